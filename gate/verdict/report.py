"""The whole gate run as a value: the verdict, why, each case, and the comparison with the baseline."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from gate.exitcodes import VERDICT_EXIT, ExitCode
from gate.load.shards import ShardMark
from gate.load.subset import Subset
from gate.model import Finding, Verdict
from gate.results import CHECK_ERROR, CaseResult
from gate.verdict.comparison import Comparison
from gate.verdict.configdiff import ConfigChange

__all__ = ["BaselineStamp", "Report", "report_exit"]


@dataclass(frozen=True)
class BaselineStamp:
    """Written into a report when it becomes a baseline: when, and whether it was forced."""

    written_at: str
    forced: bool = False
    forced_over: tuple[str, ...] = ()
    """the reasons of the failing verdict that ``--force`` overrode"""


@dataclass(frozen=True)
class Report:
    """The whole gate run: the verdict, why, and each case."""

    verdict: Verdict
    reasons: tuple[str, ...]
    golden_name: str
    golden_version: int | None
    cases: Sequence[CaseResult]
    """each case, in order: a tuple, or for a run of many cases a :class:`gate.store.casestore.CaseStore`
    that reads them back from a file one at a time (iterate it; do not make a list of it)"""
    config_source: str | None = None
    warnings: tuple[str, ...] = ()
    judge_mode: str = "off"
    stamp: BaselineStamp | None = None
    """set when this report is (or was read from) a baseline file"""
    comparison: Comparison | None = None
    """the comparison with the baseline, when there was one"""
    config_changes: tuple[ConfigChange, ...] = ()
    """settings the pull request changes in the configuration; they apply after the merge"""
    shard: ShardMark | None = None
    """set on a partial report (``check --shard i/n``), which ``sourcegate merge`` combines"""
    subset: Subset | None = None
    """set when only some cases ran (``--case``, ``--failed``): no verdict on the whole set"""

    @property
    def check_errors(self) -> tuple[Finding, ...]:
        """The findings of checks that raised (an internal error: the run exits 4)."""
        kept = getattr(self.cases, "tally", None)  # a case store's (gate.store.casestore): no case read back
        if kept is not None:
            return tuple(kept.check_errors)
        return tuple(f for c in self.cases for f in c.hard_failures if f.check == CHECK_ERROR)

    @property
    def hard_failure_count(self) -> int:
        """Total hard failures across cases."""
        kept = getattr(self.cases, "tally", None)
        if kept is not None:
            return int(kept.hard_failures)
        return sum(len(c.hard_failures) for c in self.cases)


def report_exit(report: Report) -> ExitCode:
    """The exit code of a set's report: its verdict's, or 4 when a check raised on one of its runs
    (the report is still written, every other case in it)."""
    return ExitCode.INTERNAL if report.check_errors else VERDICT_EXIT[report.verdict]
