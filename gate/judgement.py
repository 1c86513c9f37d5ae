"""What the judge says of one run, as frozen values the core reads without loading the judge.

A claim the judge could not grade (unparseable reply, verdict off the rubric, API down, missing from
the replay cache) is *unscored*: it is counted apart, never as supported and never as failed. A
verdict whose quote the code could not find on the pages is *overruled*: it counts as unsupported and
says so (``quote_not_found``), so a reader sees where the judge was not believed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import fmean
from typing import Literal

from gate.model import Freshness

Support = Literal["supported", "partial", "unsupported", "contradicted"]
SUPPORT_LEVELS: tuple[Support, ...] = ("supported", "partial", "unsupported", "contradicted")
Located = Literal["cited", "other_source", "snippet", "not_found"]
SourceKind = Literal["primary", "secondary"]

QUOTE_NOT_FOUND = "quote_not_found"
QUOTE_UNRELATED = "quote_unrelated_to_claim"
NOT_IN_CACHE = "not in judge cache"


@dataclass(frozen=True)
class Claim:
    """One atomic factual claim of the answer; ``id`` is its number in the grading prompt (from 1)."""

    id: int
    text: str
    citations: tuple[str, ...] = ()


@dataclass(frozen=True)
class ClaimVerdict:
    """The verdict on one claim after the code checked the judge's quote.

    ``verdict`` is None when the claim is unscored (``unscored_reason`` says why). ``located`` says
    where the quote was found: on a page the claim cites, only on another retrieved page (grounded but
    misattributed), only in a search snippet (grounded in a snippet: the agent never read the page), or
    nowhere (then the verdict is overruled to ``unsupported``).
    """

    claim_id: int
    verdict: Support | None
    evidence: str | None = None
    located: Located | None = None
    located_url: str | None = None
    overruled: bool = False
    overrule_reason: str | None = None
    judge_verdict: Support | None = None
    """what the judge said, when the code overruled it"""
    unscored_reason: str | None = None


@dataclass(frozen=True)
class QueryScore:
    """Judged quality of one literal query the agent sent (both scores 1-5).

    ``index`` is the query's number in the judge's prompt, from 1; :attr:`position` is its place among
    the run's queries, from 0, as a search result's ``query`` and the spans count them.
    """

    index: int
    query: str
    constraint_preservation: int
    entity_recall: int
    note: str | None = None

    @property
    def score(self) -> float:
        """The mean of the two scores."""
        return (self.constraint_preservation + self.entity_recall) / 2

    @property
    def position(self) -> int:
        """The query's place among the run's queries, from 0 (``index`` counts from 1)."""
        return self.index - 1


@dataclass(frozen=True)
class SourceType:
    """A cited source classified ``primary`` or ``secondary``; ``decided_by`` is ``rule`` or ``judge``."""

    url: str
    kind: SourceKind | None
    decided_by: str | None = None
    reason: str | None = None


@dataclass(frozen=True)
class Usage:
    """What judging cost: API calls, tokens by kind, the estimated price in USD, and the judge cache.

    ``cost_usd`` is None when the model has no price in the configuration. ``cache_read_tokens`` and
    ``cache_write_tokens`` are Anthropic *prompt* caching; ``judge_cache_hits`` and
    ``judge_cache_misses`` count replies read from (or, in replay, missing from) the golden set's
    *judge* cache, which cost no call at all. ``batch_calls`` counts the calls among ``calls`` sent
    through the Message Batches API (billed at the batch price), and ``live_cost_usd`` is what the
    calls would have cost at live prices (equal to ``cost_usd`` when none was batched).
    """

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    cost_usd: float | None = 0.0
    judge_cache_hits: int = 0
    judge_cache_misses: int = 0
    batch_calls: int = 0
    live_cost_usd: float | None = 0.0

    @property
    def from_judge_cache(self) -> bool:
        """True when every reply came from the judge cache: no API call and no miss."""
        return self.calls == 0 and self.judge_cache_misses == 0 and self.judge_cache_hits > 0

    def __add__(self, other: Usage) -> Usage:
        cost = None if self.cost_usd is None or other.cost_usd is None else self.cost_usd + other.cost_usd
        live = None if self.live_cost_usd is None or other.live_cost_usd is None \
            else self.live_cost_usd + other.live_cost_usd
        return Usage(
            calls=self.calls + other.calls,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
            cost_usd=cost,
            judge_cache_hits=self.judge_cache_hits + other.judge_cache_hits,
            judge_cache_misses=self.judge_cache_misses + other.judge_cache_misses,
            batch_calls=self.batch_calls + other.batch_calls,
            live_cost_usd=live,
        )


@dataclass(frozen=True)
class RunJudgement:
    """Everything the judge said of one run, after the code checked it.

    When the claims themselves could not be extracted, ``claims_error`` says why and the answer counts
    as ``estimated_claims`` unscored claims (its sentences), so that an outage is never a pass.
    """

    claims: tuple[Claim, ...] = ()
    verdicts: tuple[ClaimVerdict, ...] = ()
    regime: Freshness | None = None
    query_scores: tuple[QueryScore, ...] = ()
    source_types: tuple[SourceType, ...] = ()
    retrieval_relevance: int | None = None
    """could what the search returned answer the question, 1-5 (judged with query quality); None: not judged"""
    usage: Usage = field(default_factory=Usage)
    warnings: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    problems: tuple[str, ...] = ()
    """parts other than claims the judge could not answer (query quality, regime, source types)"""
    claims_error: str | None = None
    estimated_claims: int = 0

    def query_score(self, position: int) -> QueryScore | None:
        """The scores of the run's query at ``position`` (from 0, as the run lists its queries); None when
        the judge gave it none."""
        return next((q for q in self.query_scores if q.position == position), None)

    @property
    def claim_count(self) -> int:
        """Claims in the answer (estimated from its sentences when extraction failed)."""
        return self.estimated_claims if self.claims_error is not None else len(self.claims)

    @property
    def unscored_count(self) -> int:
        """Claims left without a verdict."""
        if self.claims_error is not None:
            return self.estimated_claims
        return sum(1 for v in self.verdicts if v.verdict is None)

    @property
    def judged_count(self) -> int:
        """Claims with a verdict (overruled ones included, as unsupported)."""
        return sum(1 for v in self.verdicts if v.verdict is not None)

    @property
    def counts(self) -> dict[str, int]:
        """Claims per final verdict, plus ``unscored``."""
        out: dict[str, int] = {v: 0 for v in SUPPORT_LEVELS}
        for v in self.verdicts:
            if v.verdict is not None:
                out[v.verdict] += 1
        out["unscored"] = self.unscored_count
        return out

    @property
    def overruled_count(self) -> int:
        """Verdicts the code did not believe (their quote is not on the pages)."""
        return sum(1 for v in self.verdicts if v.overruled)

    @property
    def misattributed_count(self) -> int:
        """Claims that cite a source, whose quote was found only in another retrieved source."""
        cites = {c.id: bool(c.citations) for c in self.claims}
        return sum(1 for v in self.verdicts if v.located == "other_source" and cites.get(v.claim_id))

    @property
    def snippet_grounded_count(self) -> int:
        """Claims whose support was found only in a search snippet, never on a page the agent read."""
        return sum(1 for v in self.verdicts if v.located == "snippet" and v.verdict is not None)

    @property
    def attributed_count(self) -> int:
        """Claims that cite a source whose quote was found on a page they cite (correctly attributed)."""
        cites = {c.id: bool(c.citations) for c in self.claims}
        return sum(1 for v in self.verdicts if v.located == "cited" and cites.get(v.claim_id))

    @property
    def attribution_share(self) -> float | None:
        """Of the grounded claims that cite a source, the share whose quote is on a page they cite.

        A claim is grounded when the code found its quote on some retrieved page (``located`` is
        ``cited`` or ``other_source``); one found only on a page it does not cite is misattributed,
        a citation-validity failure for that claim. None when no claim is grounded and cites a source.
        """
        grounded = self.attributed_count + self.misattributed_count
        return self.attributed_count / grounded if grounded else None

    @property
    def unscored_reasons(self) -> tuple[str, ...]:
        """Each distinct reason a claim was left unscored, in first-seen order."""
        reasons = [self.claims_error] if self.claims_error else []
        reasons += [v.unscored_reason for v in self.verdicts if v.unscored_reason]
        return tuple(dict.fromkeys(reasons))

    def figures(self) -> dict[str, float | None]:
        """The judged soft figures; None where not measurable (zero claims is not "100% grounded")."""
        judged = self.judged_count
        counts = self.counts
        wrong = counts["unsupported"] + counts["contradicted"]
        typed = [s for s in self.source_types if s.kind is not None]
        return {
            "grounding_rate": counts["supported"] / judged if judged else None,
            "hallucination_rate": wrong / judged if judged else None,
            "query_quality": fmean(q.score for q in self.query_scores) if self.query_scores else None,
            "primary_share": sum(1 for s in typed if s.kind == "primary") / len(typed) if typed else None,
        }
