"""What the step reports from a set's report: the verdict, the exit code, the outputs' figures and
one annotation per hard failure, pointing at the run file of its case.

With a baseline each annotation says whether the failure is new or the baseline already had it.
Blocking failures come first (all of them, or only the new ones under ``compare.block_on: new``)
and are ``::error``; a failure that does not block (the baseline had it, ``block_on: new``) is a
``::warning``. GitHub shows only so many annotations of a step, so they are capped: the cap never
hides a blocking failure behind a non-blocking one.

Exit codes (the command line's table): 0 pass, 1 the gate failed, 2 input error, 3 inconclusive,
4 internal error. ``fail-on: none`` turns 1 and 3 into 0; input and internal errors still fail.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any

from gate.action.commands import workflow_command
from gate.exitcodes import ExitCode
from gate.verdict.report import Report

__all__ = [
    "MAX_ANNOTATIONS", "SetOutcome", "annotation_lines", "exit_code", "figure", "outcome_from_report",
    "set_annotation_lines",
]

MAX_ANNOTATIONS = 10
"""GitHub shows at most 10 error annotations of one step; the rest are summed up in one."""


@dataclass(frozen=True)
class SetOutcome:
    """What the outputs, annotations and exit code need from a set's report."""

    verdict: str
    hard_failures: tuple[tuple[str, str, str | None, str], ...]
    """(case id, check id, url, message) for each hard failure"""
    grounding_rate: float | None = None
    hallucination_rate: float | None = None
    soft_warnings: tuple[str, ...] = field(default=())
    golden: str | None = None
    """the golden set's name, as the report says it"""
    grounding_rates: tuple[float, ...] = ()
    """each judged case's grounding rate (several sets pool them: the mean over every judged case)"""
    hallucination_rates: tuple[float, ...] = ()
    """each judged case's hallucination rate"""
    tags: tuple[str, ...] = ()
    """per hard failure (same order): ``new``, ``baseline`` (the baseline had it), or empty without a baseline"""
    blocking: tuple[bool, ...] = ()
    """per hard failure (same order): whether it blocks (not when ``block_on: new`` and the baseline had it)"""


def _values(report: Report, name: str) -> tuple[float, ...]:
    return tuple(float(v) for c in report.cases if isinstance(v := c.soft.get(name), int | float))


def _mean(values: Sequence[float]) -> float | None:
    return fmean(values) if values else None


def outcome_from_report(report: Report) -> SetOutcome:
    """The verdict, hard failures, key figures and soft warnings of a report."""
    failures = tuple((c.id, f.check, f.url, f.message) for c in report.cases for f in c.hard_failures)
    # decide() marks every soft figure out of bounds that does not block with "(warning".
    warnings = tuple(r for r in report.reasons if "(warning" in r)
    tags, blocking = _marks(report)
    grounding, hallucination = _values(report, "grounding_rate"), _values(report, "hallucination_rate")
    return SetOutcome(
        verdict=report.verdict,
        hard_failures=failures,
        grounding_rate=_mean(grounding),
        hallucination_rate=_mean(hallucination),
        soft_warnings=warnings,
        golden=report.golden_name,
        grounding_rates=grounding,
        hallucination_rates=hallucination,
        tags=tags,
        blocking=blocking,
    )


def _marks(report: Report) -> tuple[tuple[str, ...], tuple[bool, ...]]:
    """(tag, blocks) of each hard failure, in report order, from the report's comparison (if any)."""
    failures = [(c, f) for c in report.cases for f in c.hard_failures]
    comparison = report.comparison
    if comparison is None:
        return tuple("" for _ in failures), tuple(True for _ in failures)
    only_new = comparison.block_on == "new"
    kept = {change.id: list(change.kept_failures) for change in comparison.cases}
    tags, blocks = [], []
    for c, f in failures:
        left = kept.get(c.id, [])
        if f in left:
            left.remove(f)  # a failure listed twice was kept twice at most
            tags.append("baseline")
            blocks.append(not only_new)
        else:
            tags.append("new")
            blocks.append(True)
    return tuple(tags), tuple(blocks)


def exit_code(gate_code: int, outcome: SetOutcome | None, fail_on: str) -> int:
    """The step's exit code from the gate's (as the command line would exit), the verdict and ``fail-on``."""
    if gate_code in (ExitCode.INPUT, ExitCode.INTERNAL) or outcome is None:
        return gate_code if gate_code in (ExitCode.INPUT, ExitCode.INTERNAL) else ExitCode.INTERNAL
    if fail_on == "none":
        return ExitCode.PASS
    if outcome.verdict == "fail":
        return ExitCode.FAIL
    if outcome.verdict == "inconclusive":
        return ExitCode.INCONCLUSIVE
    if outcome.verdict == "pass":
        return ExitCode.FAIL if fail_on == "soft" and outcome.soft_warnings else ExitCode.PASS
    return ExitCode.INTERNAL


def figure(value: float | None) -> str:
    """A rate as an output value: four decimals, or empty when there is none."""
    return "" if value is None else f"{value:.4f}"


def _annotation_file(case: str, paths: Sequence[str], root: str, runs: str | None = None) -> str | None:
    candidates = []
    for p in paths:
        if os.path.isdir(p):
            candidates += [os.path.join(runs or os.path.join(p, "runs"), f"{case}.json"),
                           os.path.join(p, "golden.yaml")]
        elif os.path.splitext(os.path.basename(p))[0] == case or len(paths) == 1:
            candidates.append(p)
    for c in candidates:
        if os.path.isfile(c):
            return os.path.relpath(os.path.abspath(c), root).replace(os.sep, "/")
    return None


def annotation_lines(outcome: SetOutcome, paths: Sequence[str], root: str) -> list[str]:
    """One ``::error`` line per hard failure (file and case), at most :data:`MAX_ANNOTATIONS`."""
    return set_annotation_lines([(outcome, paths, None)], root)


def set_annotation_lines(sets: Sequence[tuple[SetOutcome, Sequence[str], str | None]], root: str,
                         runs: str | None = None) -> list[str]:
    """The hard failures of every set, in order, as at most :data:`MAX_ANNOTATIONS` ``::error`` lines.

    Each set is (outcome, its paths, its name or None); a name is added to each title (a run of
    several sets), the file is the case's run file in that set (in ``runs``, the traces' own folder,
    when they were read from there). GitHub shows at most 10 error
    annotations per step, whatever the number of sets, so the rest are summed up in one.
    """
    failures = [(f, tag, blocks, paths, name) for outcome, paths, name in sets
                for f, tag, blocks in zip(outcome.hard_failures, _pad(outcome.tags, len(outcome.hard_failures), ""),
                                          _pad(outcome.blocking, len(outcome.hard_failures), True), strict=True)]
    # Blocking first, then new before the baseline's: what the cap cuts is never more important than what it shows.
    failures.sort(key=lambda x: (not x[2], x[1] == "baseline"))
    shown = failures if len(failures) <= MAX_ANNOTATIONS else failures[: MAX_ANNOTATIONS - 1]
    lines = []
    for (case, check, url, message), tag, blocks, paths, name in shown:
        text = message if url is None or url in message else f"{message} ({url})"
        where = f"{case} (golden set {name})" if name else case
        lines.append(workflow_command("error" if blocks else "warning", text,
                                      file=_annotation_file(case, paths, root, runs),
                                      title=f"sourcegate {check}: {where}{_TAG_TITLE[(tag, blocks)]}"))
    if len(shown) < len(failures):
        hidden = failures[len(shown):]
        blocking = sum(1 for x in hidden if x[2])
        also = f" ({blocking} blocking)" if blocking and blocking < len(hidden) else ""
        lines.append(workflow_command(
            "error" if blocking else "warning",
            f"{len(hidden)} more hard failures{also}: see the job summary and the report",
            title="sourcegate: more hard failures"))
    return lines


_TAG_TITLE = {("", True): "", ("new", True): " (new)", ("baseline", True): " (already in the baseline)",
              ("baseline", False): " (already in the baseline; not blocking)", ("", False): " (not blocking)",
              ("new", False): " (new; not blocking)"}


def _pad(values: tuple[Any, ...], n: int, fill: Any) -> tuple[Any, ...]:
    """``values`` for each of ``n`` failures (a SetOutcome built by hand may carry no marks)."""
    return values if len(values) == n else (fill,) * n
