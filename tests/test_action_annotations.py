"""Annotations agree with the verdict: blocking failures first, each marked new or already in the
baseline, and the cap on their number never hides a blocking one behind one that does not block."""

from __future__ import annotations

from dataclasses import replace

from gate.action.outcome import MAX_ANNOTATIONS, outcome_from_report, set_annotation_lines
from gate.model import Finding
from gate.results import CaseResult, Counts
from gate.verdict.comparison import BaselineOrigin, CaseChange, Comparison
from gate.verdict.report import Report


def _failure(i: int, check: str = "fabricated_url") -> Finding:
    return Finding(check, f"cited https://x.example/{i}", f"https://x.example/{i}")


def _report(new: int, kept: int, block_on: str) -> Report:
    # The baseline's failures come first in the report: the annotations must still lead with the new ones.
    old = tuple(_failure(100 + i, "unread_citation") for i in range(kept))
    fresh = tuple(_failure(i) for i in range(new))
    change = CaseChange("moons", new_failures=fresh, fixed_failures=(), kept_failures=old, moved=(), flips=(),
                        unscored=(0, 0))
    comparison = Comparison(BaselineOrigin("cached-snapshots/t/baseline.json"), 1, 1, "fail", False, None, None,
                            None, ("moons",), (), (), (change,), (), block_on=block_on)
    case = CaseResult(id="moons", question="q", hard_failures=(*old, *fresh), checks=(), counts=Counts())
    return Report(verdict="fail", reasons=(), golden_name="t", golden_version=1, cases=(case,),
                  comparison=comparison)


def _lines(report: Report) -> list[str]:
    return set_annotation_lines([(outcome_from_report(report), ["cached-snapshots/t"], None)], "/")


def test_under_block_on_new_new_failures_come_first_as_errors_and_old_ones_are_warnings() -> None:
    lines = _lines(_report(new=2, kept=2, block_on="new"))
    assert [line.split(" ", 1)[0] for line in lines] == ["::error", "::error", "::warning", "::warning"]
    assert "title=sourcegate fabricated_url%3A moons (new)::" in lines[0]
    assert "title=sourcegate unread_citation%3A moons (already in the baseline; not blocking)::" in lines[2]


def test_under_block_on_all_every_failure_blocks_and_new_ones_lead() -> None:
    lines = _lines(_report(new=1, kept=2, block_on="all"))
    assert all(line.startswith("::error") for line in lines)
    assert "(new)::" in lines[0] and "(already in the baseline)::" in lines[1]


def test_the_cap_never_hides_a_blocking_failure_behind_non_blocking_ones() -> None:
    lines = _lines(_report(new=3, kept=20, block_on="new"))
    assert len(lines) == MAX_ANNOTATIONS
    assert sum(1 for line in lines if "(new)::" in line) == 3
    assert lines[-1].startswith("::warning") and "14 more hard failures" in lines[-1]


def test_when_blocking_failures_overflow_the_summary_line_says_how_many_block() -> None:
    lines = _lines(_report(new=12, kept=3, block_on="new"))
    assert all("(new)::" in line for line in lines[:-1])
    assert lines[-1].startswith("::error") and "6 more hard failures (3 blocking)" in lines[-1]


def test_without_a_baseline_nothing_is_marked() -> None:
    report = replace(_report(new=1, kept=0, block_on="all"), comparison=None)
    [line] = _lines(report)
    assert line.startswith("::error") and "title=sourcegate fabricated_url%3A moons::" in line
