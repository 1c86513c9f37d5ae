"""Each reporter reads a spilled report's cases a fixed number of times, whatever it renders.

A report of many cases keeps them in a file (:mod:`gate.store.casestore`), and every pass over them
decodes each case from JSON again: a reporter walks them once, keeping per case only the lines
and numbers it shows, so its cost does not grow with the number of its sections.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import overload

import pytest

from gate.report.registry import REPORTERS
from gate.report.terminal import TerminalReporter, verdict_line
from gate.results import CaseResult
from gate.store.casestore import CaseStore
from gate.verdict.report import Report
from tests.support.report_factory import regression_report

MAX_PASSES = {"json": 1, "markdown": 1, "comment": 1, "summary": 1, "junit": 1, "terminal": 1}
"""How often each reporter may read the cases back (the JSON reporter copies their records as written,
and reads them back only for the judged summary)."""


class CountingStore(CaseStore):
    """A spilled store that counts the passes over its cases and the single cases read back."""

    passes = 0
    reads = 0

    def __iter__(self) -> Iterator[CaseResult]:
        """The cases, counted as one pass."""
        CountingStore.passes += 1
        return super().__iter__()

    @overload
    def __getitem__(self, index: int) -> CaseResult: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[CaseResult, ...]: ...

    def __getitem__(self, index: int | slice) -> CaseResult | tuple[CaseResult, ...]:
        """One case, counted."""
        CountingStore.reads += 1
        return super().__getitem__(index)


def _counted(report: Report) -> Report:
    store = CountingStore.collect(iter(report.cases), in_memory=0)
    assert store.spilled
    CountingStore.passes = CountingStore.reads = 0
    return replace(report, cases=store)


def _reports() -> list[Report]:
    with_baseline = regression_report()
    return [with_baseline, replace(with_baseline, comparison=None)]


@pytest.mark.parametrize("name", sorted(MAX_PASSES))
@pytest.mark.parametrize("baseline", [True, False], ids=["baseline", "no-baseline"])
def test_a_reporter_reads_a_spilled_report_s_cases_a_fixed_number_of_times(name: str, baseline: bool) -> None:
    report = _reports()[0 if baseline else 1]
    counted = _counted(report)
    text = REPORTERS[name].make(None).render(counted)
    assert text == REPORTERS[name].make(None).render(report)
    assert CountingStore.passes <= MAX_PASSES[name]
    assert CountingStore.reads == 0


@pytest.mark.parametrize("baseline", [True, False], ids=["baseline", "no-baseline"])
def test_the_verbose_terminal_report_reads_the_cases_once_and_the_verdict_line_never(baseline: bool) -> None:
    report = _reports()[0 if baseline else 1]
    counted = _counted(report)
    reporter = TerminalReporter(verbose=True)
    assert reporter.render(counted) == reporter.render(report)
    assert (CountingStore.passes, CountingStore.reads) == (1, 0)
    CountingStore.passes = 0
    assert verdict_line(counted) == verdict_line(report)
    assert (CountingStore.passes, CountingStore.reads) == (0, 0)  # the store's tally is enough
