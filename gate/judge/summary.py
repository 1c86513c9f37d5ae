"""Judged figures over a whole set: means, the memory-fallback split, totals of claims and usage.

Pure: case results in, a :class:`JudgeSummary` out; both reporters render it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from statistics import fmean
from typing import Any

from gate.judgement import VERDICTS, RunJudgement, Usage
from gate.results import CaseResult

JUDGED_FIGURES = ("grounding_rate", "hallucination_rate", "query_quality", "primary_share")


def _mean(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return fmean(present) if present else None


@dataclass(frozen=True)
class JudgeSummary:
    """What the judge found across the set, and what it cost."""

    runs_judged: int
    claims: int
    counts: Mapping[str, int]
    overruled: int
    misattributed: int
    means: Mapping[str, float | None]
    hallucination_by_retrieval: Mapping[str, float | None]
    """mean hallucination rate of runs whose retrieval succeeded, and of those whose retrieval failed
    (a high rate only when retrieval failed is the agent answering from memory)"""
    usage: Usage = field(default_factory=Usage)
    problems: int = 0


def summarise(cases: Sequence[CaseResult]) -> JudgeSummary | None:
    """The set's judged summary, or None when no case was judged."""
    judged = [c for c in cases if c.judgement is not None]
    if not judged:
        return None
    counts = dict.fromkeys((*VERDICTS, "unscored"), 0)
    usage = Usage()
    figures = []
    for c in judged:
        j = c.judgement
        assert j is not None
        for k, n in j.counts.items():
            counts[k] += n
        usage += j.usage
        figures.append((c.counts.retrieval_succeeded, j.figures()))
    return JudgeSummary(
        runs_judged=len(judged),
        claims=sum(c.judgement.claim_count for c in judged if c.judgement),
        counts=counts,
        overruled=sum(c.judgement.overruled_count for c in judged if c.judgement),
        misattributed=sum(c.judgement.misattributed_count for c in judged if c.judgement),
        means={name: _mean([f[name] for _, f in figures]) for name in JUDGED_FIGURES},
        hallucination_by_retrieval={
            "retrieval_succeeded": _mean([f["hallucination_rate"] for ok, f in figures if ok]),
            "retrieval_failed": _mean([f["hallucination_rate"] for ok, f in figures if not ok]),
        },
        usage=usage,
        problems=sum(len(c.judgement.problems) for c in judged if c.judgement),
    )


BATCH_FIELDS = ("batch_calls", "live_cost_usd")
"""Usage fields a report carries only when some call went through the Message Batches API."""


def usage_to_dict(u: Usage) -> dict[str, Any]:
    """Usage as report JSON; the batch fields only when some call was batched."""
    data = asdict(u)
    if not u.batch_calls:
        for name in BATCH_FIELDS:
            del data[name]
    return data


def judgement_to_dict(j: RunJudgement) -> dict[str, Any]:
    """A run's judgement as report JSON: every field, plus its counts and figures."""
    return {**asdict(j), "usage": usage_to_dict(j.usage), "claim_count": j.claim_count,
            "unscored_count": j.unscored_count,
            "counts": j.counts, "attributed_count": j.attributed_count,
            "misattributed_count": j.misattributed_count, "attribution_share": j.attribution_share,
            "figures": j.figures()}


def summary_to_dict(s: JudgeSummary) -> dict[str, Any]:
    """The set's judged summary as report JSON."""
    return {**asdict(s), "usage": usage_to_dict(s.usage), "counts": dict(s.counts), "means": dict(s.means),
            "hallucination_by_retrieval": dict(s.hallucination_by_retrieval)}
