"""What the gate found for one case, as values: its findings, check statuses, counts, vector and warnings.

The whole run's :class:`~gate.verdict.report.Report` holds these, one per case."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

from gate.model import Attempt, Finding, Verdict

if TYPE_CHECKING:
    from gate.judgement import RunJudgement

__all__ = ["ANSWER_KEPT", "CHECK_ERROR", "CITATION_MARKS", "INPUT_ERROR", "CaseResult", "CaseWarning", "CheckStatus",
           "CitationMark", "Counts", "PageQuote", "QuerySurvival", "SearchCharge", "Verdict"]
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
    search_cost_usd: float | None = None
    """what the run spent on search APIs (searches, and pages read through a provider's extraction API),
    when every such call has a price (0 when it made none); None when one has none (``unpriced_searches``)"""
    unpriced_searches: int = 0
    """the run's calls to search APIs that have no price: the provider is not recorded, or not in the table"""


@dataclass(frozen=True)
class SearchCharge:
    """What one call to a search API cost: a search (``query``, its index) or a page read through a
    provider's extraction API (``url``).

    ``basis`` says where the cost comes from: ``billed`` (the API's reply said it, Exa's
    ``costDollars``), ``price_table`` (the provider's credits for ``operation`` times its credit price,
    ``search_prices`` in ``sourcegate.yaml``), ``replayed`` (``sourcegate run``'s replay server answered
    it from the snapshot: nothing billed) or ``no_price`` (no provider recorded, or none in the table
    for it: ``cost_usd`` is None, never 0).
    """

    operation: str
    """``search``, ``advanced_search``, ``extract`` or ``advanced_extract``"""
    basis: str
    cost_usd: float | None = None
    provider: str | None = None
    query: int | None = None
    url: str | None = None
    credits: float | None = None
    """the credits the table counts for the call (``price_table`` only)"""


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


ANSWER_KEPT = 20_000
"""Characters of a run's answer a case result keeps (the start; ``answer_dropped`` counts the rest)."""

CITATION_MARKS = ("fabricated", "unresolved", "unread", "quote_missing", "drifted", "quote_found", "read",
                  "not_read")
"""What became of a cited URL, worst first (a URL with two is marked with the first):

``fabricated`` (no search result or redirect showed it), ``unresolved`` (its fetch failed or left the
site), ``unread`` (in the results, never fetched), ``quote_missing`` (a quote attributed to it is not on
it), ``drifted`` (a sentence citing it says what the page does not), ``quote_found`` (read, and a quote
of the answer or of the judge was found on it), ``read`` (read), ``not_read`` (not read, and no check
said why: a check disabled or not run)."""


@dataclass(frozen=True)
class CitationMark:
    """One URL the answer cites, as first cited, and what became of it (one of :data:`CITATION_MARKS`)."""

    url: str
    mark: str


@dataclass(frozen=True)
class PageQuote:
    """A quote found on a page, with the page's text either side of it, as a reader would check it.

    ``claim`` is the judged claim's number (0 for a quote the answer itself attributes to the page).
    """

    claim: int
    url: str
    before: str
    quote: str
    after: str


@dataclass(frozen=True)
class QuerySurvival:
    """One literal query the agent sent, and the case's constraints and entities it did not keep (checked
    without a model, as :func:`gate.checks.survival.survives` reads a query)."""

    query: str
    dropped_constraints: tuple[str, ...] = ()
    dropped_entities: tuple[str, ...] = ()

    @property
    def dropped(self) -> tuple[str, ...]:
        """Everything of the question the query lost: its constraints, then its entities."""
        return (*self.dropped_constraints, *self.dropped_entities)


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
    answer: str | None = None
    """the start of the run's answer, at most :data:`ANSWER_KEPT` characters; None when there was no run
    (or the report was written before reports kept answers)"""
    answer_dropped: int = 0
    """characters of the answer past :data:`ANSWER_KEPT`, not kept"""
    citations: tuple[CitationMark, ...] = ()
    """each URL the answer cites, in order, with what became of it"""
    quotes: tuple[PageQuote, ...] = ()
    """the judge's verified quotes (and the answer's own quotes) inside their page's text"""
    queries: tuple[QuerySurvival, ...] = ()
    """each query the agent sent, in the order it sent them (the judge's query scores number them from
    1), with what of the case's constraints and entities it did not keep"""
    search_charges: tuple[SearchCharge, ...] = ()
    """what each of the run's calls to a search API cost (its searches, then its pages read through a
    provider's extraction API); ``counts.search_cost_usd`` is their sum, when each has a price"""
    unrecorded_pages: tuple[str, ...] = ()
    """URLs of pages the run read that the base revision's snapshot never recorded: recorded in the pull
    request (:mod:`gate.checks.frozen_web`; empty without a base revision)"""
    attempts: tuple[Attempt, ...] = ()
    """the drafts the agent guarded before its answer, as its trace records them (their times left out)"""

    @property
    def failed(self) -> bool:
        """True when any hard check (or an input problem) failed for this case."""
        return bool(self.hard_failures)
