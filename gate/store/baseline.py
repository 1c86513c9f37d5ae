"""The baseline of a golden set: read and write ``baseline.json``, or read it from a git revision.

A baseline is a report (``sourcegate-report/1``) with a ``baseline`` stamp saying when it was
written and whether ``--force`` made a failing run the baseline. This is an I/O edge: it touches
files, the clock (through its caller) and ``git``; :mod:`gate.verdict.compare` only sees values.

**The PR cannot lower its own bar.** With a git revision (the PR's base commit), the baseline is
read with ``git show_file REV:path`` from that revision, so a PR that edits ``baseline.json`` is still
compared with the base's; ``golden.yaml`` is read there too, to list the cases the PR redefined.
``git`` runs with an argument list (never a shell), through :mod:`gate.git.revision`. The configuration
is read there too (:mod:`gate.rules`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from types import MappingProxyType
from typing import Any

from gate.errors import InputError
from gate.files.jsonio import load_json, parse_yaml, read_text, validate
from gate.files.outputs import write_file
from gate.git import changed_files
from gate.git.revision import Revision, base_folder, base_path, resolve_set, show_file
from gate.load.golden import GOLDEN_NAME, case_from_definition
from gate.model import Case, GoldenSet
from gate.results import CaseResult, Counts
from gate.store.reportstream import read_report, read_report_text
from gate.store.serialise import case_from_dict, dump_report, report_from_dict
from gate.verdict.comparison import BaselineOrigin
from gate.verdict.report import BaselineStamp, Report

__all__ = [
    "BASELINE_NAME", "BaselineAtRef", "Watched", "baseline_file", "changed_files", "for_comparison", "read_artifact",
    "read_at_ref", "read_baseline", "refusal", "stamped", "write_baseline",
]

BASELINE_NAME = "baseline.json"


def baseline_file(golden_root: str) -> str:
    """Where a golden set keeps its baseline."""
    return os.path.join(golden_root, BASELINE_NAME)


def parse_report(data: object, source: str) -> Report:
    """A parsed baseline (report JSON data) as a Report; schema violations are input errors."""
    validate(data, "report", source)
    assert isinstance(data, dict)  # the schema says object
    return report_from_dict(data)


def for_comparison(report: Report) -> Report:
    """``report`` with each case cut to what :func:`gate.verdict.compare.compare_cases` reads of a baseline
    case: its id, hard failures, soft figures, judgement, whether retrieval succeeded, and its answer
    (for the HTML report's diff of a changed answer). A baseline of 8,000 cases is then a few megabytes
    (plus their answers) while the run is compared with it, not tens."""
    return replace(report, cases=tuple(_compared(c) for c in report.cases))


def _compared(c: CaseResult) -> CaseResult:
    # Each case is parsed on its own, so its keys and check ids are new strings every time: shared
    # (interned), a few names stand for the whole baseline instead of one copy per case.
    return CaseResult(id=c.id, question="",
                      hard_failures=tuple(replace(f, check=sys.intern(f.check)) for f in c.hard_failures),
                      checks=(), counts=_RETRIEVED if c.counts.retrieval_succeeded else _NOT_RETRIEVED,
                      soft=MappingProxyType({sys.intern(k): v for k, v in c.soft.items()}),
                      judgement=c.judgement, answer=c.answer)


_RETRIEVED, _NOT_RETRIEVED = Counts(retrieval_succeeded=True), Counts(retrieval_succeeded=False)


def _keep(item: dict[str, Any]) -> CaseResult:
    return _compared(case_from_dict(item))


def _report(fields: dict[str, Any], cases: tuple[CaseResult, ...], source: str) -> Report:
    if fields.get("subset") is not None:
        # Its other cases would be taken for cases a pull request removed (docs/trust.md).
        raise InputError("this is the report of a subset of the golden set's cases (--case, --failed): "
                         "it cannot be a baseline; record one with `sourcegate baseline update`", file=source)
    return replace(report_from_dict({**fields, "cases": []}), cases=cases)


def read_baseline(file: str, root: str | None = None) -> Report | None:
    """The baseline in ``file`` (inside ``root``, when given), or None when there is none yet; its
    cases as the comparison reads them (:func:`for_comparison`), read one at a time
    (:mod:`gate.store.reportstream`)."""
    if not os.path.exists(file):
        return None
    return _report(*read_report(file, _keep, root=root), file)


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
    write_file(file, dump_report(report), within=within)


def _golden_cases(text: str | None, source: str) -> dict[str, Mapping[str, Any]]:
    if text is None:
        return {}
    data = parse_yaml(text, source)
    validate(data, "golden", source)
    return {c["id"]: c for c in data["cases"]}


def redefined_cases(before: Mapping[str, object], after: Mapping[str, object]) -> tuple[str, ...]:
    """Cases present in both versions of golden.yaml whose definition differs."""
    return tuple(i for i in after if i in before and before[i] != after[i])


@dataclass(frozen=True)
class Watched:
    """The golden-set files whose changes against a commit the report lists: paths relative to the
    repository at ``top``. Hashed when the comparison is made (:meth:`changed`), after the run has read
    what it reads, so a file read by the run is not read again (:mod:`gate.files.digests`)."""

    top: str
    commit: str
    rels: tuple[str, ...]

    def changed(self) -> tuple[str, ...]:
        """The watched files that differ between the commit and the working tree."""
        return changed_files(self.top, self.commit, self.rels)


@dataclass(frozen=True)
class BaselineAtRef:
    """The baseline as a git revision has it (None: the revision has none), where it came from, and
    the files whose changes the comparison lists (``origin.changed_files`` is filled from ``watched``)."""

    report: Report | None
    origin: BaselineOrigin
    watched: Watched
    cases: tuple[Case, ...] | None = None
    """the cases of the revision's ``golden.yaml``, in its order (None: it has none)"""


def read_at_ref(golden_root: str, ref: str, file: str | None = None,
                extra: Sequence[str] = (), *, revision: Revision | None = None,
                golden: GoldenSet | None = None) -> BaselineAtRef:
    """Read the baseline (default ``<golden>/baseline.json``) and golden.yaml at revision ``ref``.

    Names the golden-set files (and ``extra`` files such as the config) whose changes against ``ref``
    the comparison lists (:class:`Watched`), and lists the cases whose definition changed: against
    ``golden``'s, the set as loaded (its ``golden.yaml`` is not read again), else the working tree's.
    ``revision`` is ``ref`` when the caller has resolved it already (:func:`gate.git.revision.resolve_set`).
    Every path is read at ``ref`` by its own name, never through a symbolic link
    (:func:`gate.git.revision.base_path`).
    """
    at = revision if revision is not None else resolve_set(golden_root, ref)
    top, commit = at.top, at.commit
    rel_root = base_folder(at, golden_root)
    inside = os.path.realpath(golden_root)
    rel_file = base_path(at, file or baseline_file(golden_root), within=None if file else inside)
    rel_golden = base_path(at, os.path.join(golden_root, GOLDEN_NAME), within=inside)
    source = f"{ref}:{rel_file}"
    text = show_file(top, commit, rel_file, ref)
    report = None if text is None else _report(*read_report_text(text, source, _keep), source)
    del text
    base_golden = show_file(top, commit, rel_golden, ref)
    before = _golden_cases(base_golden, f"{ref}:{rel_golden}")
    here = os.path.join(golden_root, GOLDEN_NAME)
    if golden is not None:
        after: Mapping[str, object] = golden.definitions
    else:
        after = _golden_cases(read_text(here, root=golden_root, kind="YAML"), here) if os.path.isfile(here) else {}
    watched = Watched(top, commit, tuple(sorted({rel_root, rel_file, *(base_path(at, x) for x in extra)})))
    cases = None if base_golden is None else tuple(case_from_definition(c) for c in before.values())
    return BaselineAtRef(report, BaselineOrigin(file=rel_file, ref=ref, commit=commit,
                                                redefined_cases=redefined_cases(before, after)), watched, cases)


def read_artifact(file: str) -> Report:
    """A JSON report artifact, validated against its schema (it may come from an untrusted workflow)."""
    return parse_report(load_json(file), file)
