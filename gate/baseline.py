"""The baseline of a golden set: read and write ``baseline.json``, or read it from a git revision.

A baseline is a report (``sourcegate-report/1``) with a ``baseline`` stamp saying when it was
written and whether ``--force`` made a failing run the baseline. This is an I/O edge: it touches
files, the clock (through its caller) and ``git``; :mod:`gate.compare` only sees values.

**The PR cannot lower its own bar.** With a git revision (the PR's base commit), the baseline and
``golden.yaml`` are read with ``git show REV:path`` from that revision, so a PR that edits
``baseline.json`` is still compared with the base's. ``git`` runs with an argument list (never a
shell), the revision is resolved to a commit first, and ``--end-of-options`` keeps a revision
that looks like an option from being read as one.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from gate.compare import BaselineOrigin
from gate.errors import InputError
from gate.jsonio import load_json, parse_json, parse_yaml, read_text, validate
from gate.load import GOLDEN_NAME
from gate.outputs import write_file
from gate.results import BaselineStamp, Report

__all__ = [
    "BASELINE_NAME", "BaselineAtRef", "baseline_file", "changed_files", "read_at_ref", "read_baseline",
    "refusal", "stamped", "write_baseline",
]

BASELINE_NAME = "baseline.json"
GIT_TIMEOUT = 60.0


def baseline_file(golden_root: str) -> str:
    """Where a golden set keeps its baseline."""
    return os.path.join(golden_root, BASELINE_NAME)


def parse_report(data: object, source: str) -> Report:
    """A parsed baseline (report JSON data) as a Report; schema violations are input errors."""
    from gate.report.json import report_from_dict

    validate(data, "report", source)
    assert isinstance(data, dict)  # the schema says object
    return report_from_dict(data)


def read_baseline(file: str) -> Report | None:
    """The baseline in ``file``, or None when there is none yet."""
    if not os.path.exists(file):
        return None
    return parse_report(load_json(file), file)


def refusal(report: Report, force: bool) -> str | None:
    """Why ``report`` may not become the baseline (None: it may). Only a pass, unless forced."""
    if report.verdict == "pass" or force:
        return None
    return (f"this run's verdict is {report.verdict} ({'; '.join(report.reasons)}); a run that does not "
            "pass never becomes the baseline. Fix it, or pass --force (the baseline then says it was forced)")


def stamped(report: Report, now: datetime, force: bool) -> Report:
    """``report`` with its baseline stamp: when it was written, and what ``--force`` overrode."""
    forced = force and report.verdict != "pass"
    stamp = BaselineStamp(written_at=now.isoformat(timespec="seconds"), forced=forced,
                          forced_over=report.reasons if forced else ())
    return replace(report, stamp=stamp, comparison=None)


def write_baseline(file: str, report: Report, within: str | None = None) -> None:
    """Write a stamped report atomically (a temporary file, then a rename); inside ``within`` (the
    golden set), never through a symlink that leads out of it."""
    from gate.report.json import JsonReporter

    write_file(file, JsonReporter().render(report), within=within)


# -- git ---------------------------------------------------------------------------------------


def _git(cwd: str, *args: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=GIT_TIMEOUT, env=env,
                              check=False)
    except FileNotFoundError as e:
        raise InputError("--baseline-ref needs git, and git is not installed") from e
    except subprocess.TimeoutExpired as e:
        raise InputError(f"git {args[0]} took longer than {GIT_TIMEOUT:g}s") from e


def _toplevel(folder: str) -> str:
    done = _git(folder, "rev-parse", "--show-toplevel")
    if done.returncode != 0:
        raise InputError(f"--baseline-ref: not inside a git repository ({_err(done)})", file=folder)
    return os.path.realpath(done.stdout.decode().strip())


def _err(done: subprocess.CompletedProcess[bytes]) -> str:
    return " ".join(done.stderr.decode(errors="replace").split())[:300] or f"exit {done.returncode}"


def resolve_commit(top: str, ref: str) -> str:
    """The commit id ``ref`` names in the repository at ``top``."""
    if not ref or ref.startswith("-"):
        raise InputError(f"--baseline-ref: {ref!r} is not a revision")
    done = _git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
    if done.returncode != 0:
        raise InputError(f"--baseline-ref: {ref!r} is not a commit of this repository "
                         "(with a shallow checkout, fetch the base commit first, e.g. fetch-depth: 0)")
    return done.stdout.decode().strip()


def _relative(top: str, path: str) -> str:
    rel = os.path.relpath(os.path.realpath(path), top)
    if rel == ".." or rel.startswith(".." + os.sep):
        raise InputError("is outside the git repository of the golden set", file=path)
    return rel.replace(os.sep, "/")


def show(top: str, commit: str, rel: str, ref: str | None = None) -> str | None:
    """The text of ``rel`` at ``commit`` (``git show``), or None when the file is not there.

    ``ref`` is how the user named the commit, for messages; text that is not UTF-8 is an input error.
    """
    if _git(top, "cat-file", "-e", "--end-of-options", f"{commit}:{rel}").returncode != 0:
        return None
    done = _git(top, "show", "--end-of-options", f"{commit}:{rel}")
    if done.returncode != 0:
        raise InputError(f"git show {commit[:12]}:{rel} failed: {_err(done)}")
    try:
        return done.stdout.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:  # the file's problem, as with a file of the working tree
        raise InputError(f"not UTF-8 text ({e.reason} at byte {e.start})", file=f"{ref or commit}:{rel}") from e


def changed_files(top: str, commit: str, rels: Sequence[str]) -> tuple[str, ...]:
    """Files under ``rels`` that differ between ``commit`` and the working tree (untracked included)."""
    diff = _git(top, "diff", "--name-only", "--no-renames", "-z", commit, "--", *rels)
    if diff.returncode != 0:
        raise InputError(f"git diff against {commit[:12]} failed: {_err(diff)}")
    new = _git(top, "ls-files", "--others", "--exclude-standard", "-z", "--", *rels)
    names = {n for out in (diff.stdout, new.stdout if new.returncode == 0 else b"")
             for n in out.decode(errors="replace").split("\0") if n}
    return tuple(sorted(names))


def _golden_cases(text: str | None, source: str) -> dict[str, object]:
    if text is None:
        return {}
    data = parse_yaml(text, source)
    validate(data, "golden", source)
    return {c["id"]: c for c in data["cases"]}


def redefined_cases(before: dict[str, object], after: dict[str, object]) -> tuple[str, ...]:
    """Cases present in both versions of golden.yaml whose definition differs."""
    return tuple(i for i in after if i in before and before[i] != after[i])


@dataclass(frozen=True)
class BaselineAtRef:
    """The baseline as a git revision has it (None: the revision has none), and where it came from."""

    report: Report | None
    origin: BaselineOrigin


def read_at_ref(golden_root: str, ref: str, file: str | None = None,
                extra: Sequence[str] = ()) -> BaselineAtRef:
    """Read the baseline (default ``<golden>/baseline.json``) and golden.yaml at revision ``ref``.

    Lists the golden-set files (and ``extra`` files such as the config) that the working tree
    changed against ``ref``, and the cases whose definition changed.
    """
    top = _toplevel(golden_root)
    commit = resolve_commit(top, ref)
    rel_file = _relative(top, file or baseline_file(golden_root))
    rel_golden = _relative(top, os.path.join(golden_root, GOLDEN_NAME))
    source = f"{ref}:{rel_file}"
    text = show(top, commit, rel_file, ref)
    report = None if text is None else parse_report(parse_json(text, source), source)
    before = _golden_cases(show(top, commit, rel_golden, ref), f"{ref}:{rel_golden}")
    here = os.path.join(golden_root, GOLDEN_NAME)
    after = _golden_cases(read_text(here), here) if os.path.isfile(here) else {}
    watched = [_relative(top, golden_root), rel_file, *(_relative(top, x) for x in extra)]
    return BaselineAtRef(report, BaselineOrigin(
        file=rel_file, ref=ref, commit=commit, changed_files=changed_files(top, commit, sorted(set(watched))),
        redefined_cases=redefined_cases(before, after),
    ))


def attach_baseline(report: Report, paths: Sequence[str], config_file: str | None, *, file: str | None,
                    ref: str | None, now: datetime) -> Report:
    """``report`` compared with its baseline and decided again; unchanged (with a note) when there is none.

    The baseline is ``file`` or the golden set's ``baseline.json``; with ``ref``, both it and
    ``golden.yaml`` are read at that git revision. A baseline of another golden set is an input error.
    """
    from gate.compare import compare
    from gate.config import load_config
    from gate.decide import decide_report

    root = paths[0] if len(paths) == 1 and os.path.isdir(paths[0]) else None
    config = load_config(config_file, beside=root)
    if ref is not None:
        if root is None:
            raise InputError("--baseline-ref needs a golden-set folder, not trace files")
        at = read_at_ref(root, ref, file, [config_file] if config_file else [])
        base, origin = at.report, at.origin
    else:
        path = file or (baseline_file(root) if root is not None else None)
        if path is None:
            return report
        base, origin = read_baseline(path), BaselineOrigin(file=path)
        if base is None and file is not None:
            raise InputError("no such baseline file", file=file)
    if base is None:
        where = f"{ref}:{origin.file}" if ref else origin.file
        note = (f"no baseline at {where}: nothing to compare with; "
                "record one with `sourcegate baseline update`")
        return replace(report, warnings=(*report.warnings, note))
    if base.golden_name != report.golden_name:
        raise InputError(f"the baseline is for golden set {base.golden_name!r}, not {report.golden_name!r}",
                         file=origin.file)
    return decide_report(report, config, compare(base, report, config, origin, now))
