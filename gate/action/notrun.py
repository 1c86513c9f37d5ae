"""Golden sets that have no verdict in this step: the sets a pull request dropped, and the PR comment
that says a set could not run.

* **Dropped sets.** With ``golden-set`` empty, the action gates every set under ``cached-snapshots/``
  of the working tree. A set that the base commit has and the pull request deleted (or renamed) would
  then leave the gate without a word: :func:`dropped_sets` lists them from git, and each one fails
  the step as a set that could not run (exit 2). A set is retired on purpose by naming the sets to
  gate in the ``golden-set`` input.
* **The could-not-run comment.** A set that could not run (a malformed run file, a dropped set) has
  no report to comment; its comment from an earlier push would still show that push's verdict. It
  is updated in place (same key) with :func:`not_run_comment`: the error, escaped, and no verdict.
  None is created when there is no earlier comment: the failed check says it.

I/O at the edges (git, the comment), the body pure.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import TextIO

import yaml

from gate.action.inputs import SNAPSHOT_ROOT
from gate.errors import GateError
from gate.files.jsonio import dump_json, load_json, validate
from gate.files.outputs import write_file
from gate.git.revision import Revision, relative, resolve_revision, show_file, tree_entries
from gate.report.sections import golden_set
from gate.text.escape import md_code
from gate.text.marker import marker
from gate.version import __version__

__all__ = [
    "NOT_RUN_FILE",
    "NOT_RUN_FORMAT",
    "DroppedSet",
    "NotRun",
    "dropped_message",
    "dropped_sets",
    "not_run_comment",
    "post_not_run",
    "read_not_run",
    "write_not_run",
]

NOT_RUN_FILE = "not-run.json"
"""The record of a set that could not run, in the folder its ``report.json`` would be in."""
NOT_RUN_FORMAT = "sourcegate-not-run/1"
"""Its format (``gate/schemas/not-run.json``)."""
_MAX_ERROR = 4000
"""A record's error is cut to this many characters (the schema's limit)."""


@dataclass(frozen=True)
class DroppedSet:
    """A golden set of the base commit that the working tree no longer has."""

    path: str
    """its folder, relative to the workspace (``cached-snapshots/<folder>``)"""
    name: str
    """its ``golden.yaml`` name at the base commit (its PR comment's key), else its folder's name"""


def _base_name(at: Revision, rel: str) -> str:
    """The set's ``name`` in its ``golden.yaml`` at the revision; its folder's name when that cannot be read."""
    try:
        data = yaml.safe_load(show_file(at.top, at.commit, f"{rel}/golden.yaml") or "")
    except (yaml.YAMLError, GateError):
        data = None
    if isinstance(data, dict) and isinstance(data.get("name"), str) and data["name"]:
        return str(data["name"])
    return os.path.basename(rel)


def dropped_sets(root: str, commit: str, found: Collection[str]) -> tuple[DroppedSet, ...]:
    """The golden sets (folders of ``cached-snapshots/`` with a ``golden.yaml``) at ``commit`` that are
    not among ``found``, sorted by path. Read as the gate reads the base (:mod:`gate.git.revision`: objects
    checked by hash). Empty when the commit cannot be read (not a git checkout, a missing commit,
    changed objects): the gate itself then says what it cannot read at the base."""
    try:
        at = resolve_revision(root, commit)
        snapshots = relative(at.top, os.path.join(root, SNAPSHOT_ROOT))
        folders = [name for name, (kind, _) in tree_entries(at.top, at.commit, snapshots).items() if kind == "tree"]
        rels = {f"{snapshots}/{name}" if snapshots != "." else name: os.path.join(SNAPSHOT_ROOT, name)
                for name in folders}
        at_base = sorted((path, rel) for rel, path in rels.items()
                         if tree_entries(at.top, at.commit, rel).get("golden.yaml", ("", ""))[0] == "blob")
        here = {os.path.normpath(p) for p in found}
        return tuple(DroppedSet(path.replace(os.sep, "/"), _base_name(at, rel)) for path, rel in at_base
                     if os.path.normpath(path) not in here)
    except GateError:
        return ()


def dropped_message(dropped: DroppedSet, commit: str) -> str:
    """Why a dropped set fails the step, and how to retire a set on purpose."""
    return (f"golden set {dropped.path} ({dropped.name!r}) is in the base commit {commit[:12]} but not in this "
            "pull request, so the gate would skip it silently: restore it, or, to retire it on purpose, "
            "name the golden sets to gate in the action's 'golden-set' input")


def not_run_comment(name: str, error: str, code: int, run_url: str | None) -> str:
    """The PR comment of a golden set that could not run: no verdict, the error as inert text.

    ``name`` and ``error`` may hold text from the pull request: both are shown as code spans, cut short."""
    where = "the job summary" if run_url is None else f"the [job summary]({run_url})"
    return "\n".join([
        f"## ⛔ sourcegate could not run · {golden_set(name, None)}",
        "",
        f"**No verdict for this push** (exit {code}): the result of an earlier push no longer applies.",
        "",
        f"**Error:** {md_code(error, max_len=1000, in_table=False) or 'no message'}",
        "",
        f"<sub>sourcegate {__version__} · see {where} of this workflow run.</sub>",
        marker(name),
        "",
    ])


def post_not_run(name: str, error: str, code: int, env: Mapping[str, str], authors: Collection[str] | None,
                 out: TextIO) -> None:
    """Update the set's PR comment from an earlier push, if it has one, to say it could not run (none is
    created: the failed check says it); a failure is said on ``out``."""
    from gate.deliver.publish import post_comment, run_url

    done = post_comment(not_run_comment(name, error, code, run_url(env)), name, env, err=out, authors=authors,
                        update_only=True)
    if done is None:
        out.write(f"sourcegate: no earlier PR comment of golden set {name!r} to mark as not run\n")


@dataclass(frozen=True)
class NotRun:
    """A set that could not run, as its ``not-run.json`` says: no verdict, only why."""

    name: str
    """the set's name, its PR comment's key"""
    exit_code: int
    error: str


def write_not_run(folder: str, record: NotRun) -> str:
    """Write ``record`` as ``folder/not-run.json`` (the folder made if needed); return the file."""
    file = os.path.join(folder, NOT_RUN_FILE)
    os.makedirs(folder, exist_ok=True)
    write_file(file, dump_json({"format": NOT_RUN_FORMAT, "name": record.name, "exit_code": record.exit_code,
                                "error": record.error[:_MAX_ERROR]}))
    return file


def read_not_run(file: str) -> NotRun:
    """A ``not-run.json`` read as untrusted data: bounded strict JSON, validated against its schema
    (anything else is an input error naming the file and the JSON path)."""
    data = load_json(file)
    validate(data, "not-run", file)
    return NotRun(str(data["name"]), int(data["exit_code"]), str(data["error"]))
