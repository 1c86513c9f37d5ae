"""The gate's results as values: per-case figures and findings, and the whole report."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

from gate.comparison import Comparison
from gate.model import Finding, Verdict

if TYPE_CHECKING:
    from gate.configdiff import ConfigChange
    from gate.judgement import RunJudgement
    from gate.load.shards import ShardMark

__all__ = [
    "CHECK_ERROR", "INPUT_ERROR", "BaselineStamp", "CaseResult", "CaseWarning", "CheckStatus", "Counts", "Report",
    "Verdict",
]
INPUT_ERROR = "input_error"
CHECK_ERROR = "check_error"
"""The finding of a check that raised on a run: our bug, reported for that case (exit 4), never a pass."""


@dataclass(frozen=True)
class Counts:
    """Counts for one run that are reported, not judged."""

    citations: int = 0
    unique_domains: int = 0
    results: int = 0
    pages_read: int = 0
    quoted_citations: int = 0
    retrieval_succeeded: bool = False
    median_source_age_days: float | None = None


@dataclass(frozen=True)
class CheckStatus:
    """One check's status for one run: ``pass``, ``fail``, ``warn`` (a soft check's findings, shown as
    case warnings), ``not_checked`` or ``disabled``."""

    check: str
    status: str
    reason: str | None = None


@dataclass(frozen=True)
class CaseWarning:
    """Something about one case a reader should see that never fails the gate (see ``gate.case_warnings``).

    ``kind`` is a stable id: ``dropped_constraints``, ``dropped_entities``, ``missing_recency_caveat``,
    ``question_differs``, or the id of a soft check whose finding it is (``paraphrase_drift``).
    """

    kind: str
    message: str


@dataclass(frozen=True)
class CaseResult:
    """Everything the gate found for one case."""

    id: str
    question: str
    hard_failures: tuple[Finding, ...]
    checks: tuple[CheckStatus, ...]
    counts: Counts
    """what was counted (reported, never judged); ``figures`` in the JSON report"""
    notes: tuple[str, ...] = ()
    regime: str | None = None
    shape: str | None = None
    soft: Mapping[str, float | None] = field(default_factory=lambda: MappingProxyType({}))
    """the per-query vector and judged rates by name (see ``gate.figures.SOFT_FIGURES``)"""
    judgement: RunJudgement | None = None
    axes: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """why each axis of the vector has its value, in a line (median age and limit, what failed, pair counts)"""
    dropped_constraints: tuple[str, ...] = ()
    """the case's constraints that no query kept (checked without a model)"""
    dropped_entities: tuple[str, ...] = ()
    """the case's entities that no query kept (checked without a model)"""
    warnings: tuple[CaseWarning, ...] = ()
    """per-case warnings, never failures: dropped constraints or entities, a missing recency caveat"""

    @property
    def failed(self) -> bool:
        """True when any hard check (or an input problem) failed for this case."""
        return bool(self.hard_failures)


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
    """each case, in order: a tuple, or for a run of many cases a :class:`gate.casestore.CaseStore`
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

    @property
    def check_errors(self) -> tuple[Finding, ...]:
        """The findings of checks that raised (an internal error: the run exits 4)."""
        kept = getattr(self.cases, "tally", None)  # a case store's (gate.casestore): no case read back
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
