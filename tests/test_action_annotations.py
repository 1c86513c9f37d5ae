"""Annotations agree with the verdict: blocking failures first, each marked new or already in the
baseline, and the cap on their number never hides a blocking one behind one that does not block."""

from __future__ import annotations

from typing import Any

from gate.action.outcome import MAX_ANNOTATIONS, outcome_from_report, set_annotation_lines


def _failure(i: int, check: str = "fabricated_url") -> dict[str, str]:
    return {"check": check, "url": f"https://x.example/{i}", "message": f"cited https://x.example/{i}"}


def _report(new: int, kept: int, block_on: str) -> dict[str, Any]:
    # The baseline's failures come first in the report: the annotations must still lead with the new ones.
    old = [_failure(100 + i, "unread_citation") for i in range(kept)]
    fresh = [_failure(i) for i in range(new)]
    return {
        "verdict": "fail", "reasons": [], "golden": {"name": "t", "version": 1},
        "cases": [{"id": "moons", "hard_failures": [*old, *fresh], "soft": {}}],
        "comparison": {"block_on": block_on,
                       "cases": [{"id": "moons", "new_failures": fresh, "kept_failures": old}]},
    }


def _lines(report: dict[str, Any]) -> list[str]:
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
    report = _report(new=1, kept=0, block_on="all")
    del report["comparison"]
    [line] = _lines(report)
    assert line.startswith("::error") and "title=sourcegate fabricated_url%3A moons::" in line
