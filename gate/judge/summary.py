"""Judged figures over a whole set: means, the memory-fallback split, totals of claims and usage.

Pure: case results in, a :class:`JudgeSummary` out; both reporters render it.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, is_dataclass
from functools import cache
from statistics import fmean
from typing import Any

from gate.judgement import SUPPORT_LEVELS, RunJudgement, Usage
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


def summarise(cases: Iterable[CaseResult]) -> JudgeSummary | None:
    """The set's judged summary, or None when no case was judged.

    The cases are read once (a large report's come back from its spill file), keeping per judged
    case only its figures, a few numbers."""
    counts = dict.fromkeys((*SUPPORT_LEVELS, "unscored"), 0)
    usage = Usage()
    figures = []
    runs = claims = overruled = misattributed = problems = 0
    for c in cases:
        j = c.judgement
        if j is None:
            continue
        runs += 1
        for k, n in j.counts.items():
            counts[k] += n
        usage += j.usage
        claims += j.claim_count
        overruled += j.overruled_count
        misattributed += j.misattributed_count
        problems += len(j.problems)
        figures.append((c.counts.retrieval_succeeded, j.figures()))
    if not runs:
        return None
    return JudgeSummary(
        runs_judged=runs,
        claims=claims,
        counts=counts,
        overruled=overruled,
        misattributed=misattributed,
        means={name: _mean([f[name] for _, f in figures]) for name in JUDGED_FIGURES},
        hallucination_by_retrieval={
            "retrieval_succeeded": _mean([f["hallucination_rate"] for ok, f in figures if ok]),
            "retrieval_failed": _mean([f["hallucination_rate"] for ok, f in figures if not ok]),
        },
        usage=usage,
        problems=problems,
    )


BATCH_FIELDS = ("batch_calls", "live_cost_usd")
"""Usage fields a report carries only when some call went through the Message Batches API."""


_LEAVES = frozenset({str, int, float, bool, type(None)})


@cache
def _field_names(cls: type) -> tuple[str, ...] | None:
    return tuple(f.name for f in fields(cls)) if is_dataclass(cls) else None


def _as_data(value: Any) -> Any:
    """``dataclasses.asdict`` of a judgement's values: the same dicts and tuples, built without
    deep-copying every leaf (they are str, int, float, bool or None: immutable), which made
    ``asdict`` most of the cost of writing a judged report."""
    cls: type = type(value)
    if cls in _LEAVES:
        return value
    if cls is tuple or cls is list:
        return cls(_as_data(v) for v in value)
    if cls is dict:
        return {_as_data(k): _as_data(v) for k, v in value.items()}
    names = _field_names(cls)
    if names is None:
        return copy.deepcopy(value)  # what asdict does with any other value
    return {name: _as_data(getattr(value, name)) for name in names}


def usage_to_dict(u: Usage) -> dict[str, Any]:
    """Usage as report JSON; the batch fields only when some call was batched."""
    data: dict[str, Any] = _as_data(u)
    if not u.batch_calls:
        for name in BATCH_FIELDS:
            del data[name]
    return data


def judgement_to_dict(j: RunJudgement) -> dict[str, Any]:
    """A run's judgement as report JSON: every field, plus its counts and figures."""
    return {**_as_data(j), "usage": usage_to_dict(j.usage), "claim_count": j.claim_count,
            "unscored_count": j.unscored_count,
            "counts": j.counts, "attributed_count": j.attributed_count,
            "misattributed_count": j.misattributed_count, "attribution_share": j.attribution_share,
            "figures": j.figures()}


def summary_to_dict(s: JudgeSummary) -> dict[str, Any]:
    """The set's judged summary as report JSON."""
    return {**asdict(s), "usage": usage_to_dict(s.usage), "counts": dict(s.counts), "means": dict(s.means),
            "hallucination_by_retrieval": dict(s.hallucination_by_retrieval)}
