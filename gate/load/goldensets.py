"""Several golden sets in one run: which paths form which set, and where each set's files go.

``sourcegate check A B`` and the action's ``golden-set: A B`` run each golden-set folder in turn,
each with its own config, baseline, judge cache, comparison, reports and PR comment. The rules:

* **Sets.** Every folder is one set; trace files together are one set. Folders and trace files
  mixed are an input error, as is a path that does not exist.
* **Names.** With several folders, each ``golden.yaml`` is read before anything runs. Two sets of
  one ``name`` are an input error (reports, baselines and the PR comment are keyed by the name),
  and so is a name starting with ``.`` (it would name a hidden or parent folder).
* **Files.** With several sets, an output path (``--json``, ``--markdown``, ``--junit``,
  ``--summary``, ``--baseline``) must hold ``{name}``, replaced by each set's name, or be ``-``
  (stdout, where the sets' reports follow one another); anything else is a usage error before
  anything runs. With one set nothing changes (``{name}``, if there, is replaced all the same).
  ``{name}`` is the name made safe as one file name (:func:`file_name`): no path separator, no
  ``..``, no control character, so a set's files stay under the folder the template names.
* **Exit code.** The most severe of the sets' codes (:func:`gate.exitcodes.combined_exit`).

Pure, except that several folders have their ``golden.yaml`` read for the names.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gate.errors import InputError
from gate.load.golden import load_golden

__all__ = [
    "NAME_FIELD",
    "GoldenSetPaths",
    "file_name",
    "per_set_file",
    "require_name_field",
    "split_sets",
    "default_paths",
]

NAME_FIELD = "{name}"
"""Replaced by the golden set's name in an output path, when a run has several sets."""

@dataclass(frozen=True)
class GoldenSetPaths:
    """The paths of one golden set of a run: one folder, or every trace file of the run.

    ``name`` is the ``golden.yaml`` name, read only when the run has several sets (with one, the
    gate reads it as it always did, and no file name depends on it).
    """

    paths: tuple[str, ...]
    name: str | None = None

    @property
    def label(self) -> str:
        """How messages name the set: its name, else its path."""
        return self.name or ", ".join(self.paths)


DEFAULT_ROOT = "cached-snapshots"
"""Where ``sourcegate check`` with no path looks for golden sets (in the current folder)."""


def default_paths(root: str = DEFAULT_ROOT) -> tuple[str, ...]:
    """Every golden-set folder (one with a ``golden.yaml``) directly under ``root``, sorted by name."""
    found = tuple(os.path.join(root, d) for d in sorted(os.listdir(root))
                  if os.path.isfile(os.path.join(root, d, "golden.yaml"))) if os.path.isdir(root) else ()
    if not found:
        raise InputError(f"usage: no PATH given and no golden set (a folder with golden.yaml) under {root}/: "
                         "give a golden-set folder or trace files, or start one with `sourcegate init`")
    return found


def split_sets(paths: Sequence[str]) -> tuple[GoldenSetPaths, ...]:
    """Group a run's paths into golden sets; see the module docstring for what is refused."""
    for p in paths:
        if not os.path.exists(p):
            raise InputError("no such file or folder", file=p)
    dirs = [p for p in paths if os.path.isdir(p)]
    if dirs and len(dirs) < len(paths):
        raise InputError("give golden-set folders, or trace files, not both")
    if not dirs:
        return (GoldenSetPaths(tuple(paths)),)
    if len(dirs) == 1:
        return (GoldenSetPaths((dirs[0],)),)
    sets: list[GoldenSetPaths] = []
    seen: dict[str, str] = {}
    for d in dirs:
        name = load_golden(d).name
        if name in seen:
            raise InputError(
                f"two golden sets are named {name!r} ({seen[name]} and {d}): each set's reports, "
                "baseline and PR comment are keyed by its name, so names must differ (golden.yaml `name`)"
            )
        if name.startswith("."):
            raise InputError(f"golden set name {name!r} cannot name a file or folder ({NAME_FIELD}): "
                             "rename it in golden.yaml", file=d)
        seen[name] = d
        sets.append(GoldenSetPaths((d,), name))
    return tuple(sets)


def require_name_field(options: Mapping[str, str | None], sets: int) -> None:
    """With several sets, every output path must hold ``{name}``: else a usage error (``-`` too: the
    sets' documents would follow one another on stdout)."""
    if sets < 2:
        return
    for flag, value in options.items():
        if value == "-":
            raise InputError(
                f"usage: with {sets} golden sets, {flag} - would write {sets} documents to stdout, one after "
                f"another: use a {NAME_FIELD} pattern instead, one file per set (e.g. {flag} "
                f"{_STDOUT_EXAMPLE.get(flag, 'reports/' + NAME_FIELD)})"
            )
        if value is not None and NAME_FIELD not in value:
            raise InputError(
                f"usage: with {sets} golden sets, {flag} needs {NAME_FIELD} in its path (one file per "
                f"set, e.g. {_example(value)})"
            )


_STDOUT_EXAMPLE = {"--json": f"reports/{NAME_FIELD}.json", "--markdown": f"reports/{NAME_FIELD}.md",
                   "--junit": f"reports/{NAME_FIELD}.xml", "--summary": f"reports/{NAME_FIELD}-summary.md"}


def _example(value: str) -> str:
    stem, ext = os.path.splitext(value)
    return f"{stem}-{NAME_FIELD}{ext}"


_NOT_IN_FILE_NAME = re.compile(r"[^A-Za-z0-9._-]")
MAX_FILE_NAME = 100
"""The longest name :func:`file_name` gives (a file name may have 255 bytes; keep room around it)."""


def file_name(name: str) -> str:
    """A golden set's name made safe as one file or folder name: every character other than letters,
    digits, ``.``, ``_`` and ``-`` (path separators, NUL, control characters) becomes ``_``, leading
    dots become ``_`` (so ``..`` is ``__``, never the parent folder), and it is cut to
    :data:`MAX_FILE_NAME` characters. Never empty."""
    safe = _NOT_IN_FILE_NAME.sub("_", name)[:MAX_FILE_NAME]
    dots = len(safe) - len(safe.lstrip("."))
    return "_" * dots + safe[dots:] or "_"


def per_set_file(template: str | None, name: str | None) -> str | None:
    """``template`` with ``{name}`` replaced by the set's name made safe as a file name
    (:func:`file_name`); None and ``-`` are kept as they are."""
    if template is None or template == "-" or name is None:
        return template
    return template.replace(NAME_FIELD, file_name(name))
