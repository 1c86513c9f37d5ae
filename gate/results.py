"""What the gate found for one case, as values: its findings, check statuses, counts, vector and warnings.

The whole run's :class:`~gate.verdict.report.Report` holds these, one per case."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

from gate.model import Finding, Verdict

if TYPE_CHECKING:
    from gate.judgement import RunJudgement

__all__ = ["CHECK_ERROR", "INPUT_ERROR", "CaseResult", "CaseWarning", "CheckStatus", "Counts", "Verdict"]
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
    """Something about one case a reader should see that never fails the gate (see ``gate.score.case_warnings``).

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
    """the per-query vector and judged rates by name (see ``gate.score.figures.SOFT_FIGURES``)"""
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
