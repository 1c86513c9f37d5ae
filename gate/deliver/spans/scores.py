"""The gate's scores of each case as the evaluations tracing tools show: Phoenix span annotations and
Langfuse scores. Pure: :mod:`gate.deliver.spans.annotate` sends them.

On the case span: ``verdict`` (label ``pass`` or ``fail``, score 1 or 0), each soft figure the case has
(``query_quality``, ``freshness``, ``diversity``, ``citation_validity``, ``grounding_rate``,
``hallucination_rate``, ``primary_share``: its value as the score), and one ``hard_failure.<check>``
per finding (label ``fail``, score 0, the finding's message as the explanation, its URL in the
metadata). On each RETRIEVER span the judge scored: ``constraint_preservation`` and ``entity_recall``
(1-5), explained by the judge's note and what the query dropped of the case's constraints and entities.

Every score goes to the trace of the run the case gated (:func:`gate.deliver.spans.ids.trace_id`), and
has a stable ``identifier`` (the finding's place among the case's, the query's among the run's), so
sending the same run again updates the same annotations instead of adding more.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from gate.deliver.spans.ids import search_place, span_id, trace_id
from gate.model import Run
from gate.results import CaseResult
from gate.verdict.report import Report

__all__ = ["ANNOTATOR", "QUERY_SCORES", "Score", "case_scores"]

ANNOTATOR = "sourcegate"
"""Who made the scores: the identifier prefix and the metadata's ``annotator``."""
QUERY_SCORES = ("constraint_preservation", "entity_recall")
"""The judge's scores of one query, each an annotation of its RETRIEVER span."""


@dataclass(frozen=True)
class Score:
    """One evaluation of one span: a name, a label and/or a number, and why."""

    trace_id: int
    span_id: int
    name: str
    identifier: str
    score: float | None = None
    label: str | None = None
    explanation: str | None = None
    metadata: Mapping[str, str | int | float] = field(default_factory=lambda: MappingProxyType({}))


def case_scores(report: Report, runs: Mapping[str, Run]) -> tuple[Score, ...]:
    """The scores of every case of ``report``, on the spans of the run it gated (``runs``: by case id),
    in the report's case order."""
    out: list[Score] = []
    for result in report.cases:
        trace = trace_id(report.golden_name, report.golden_version, result.id, runs.get(result.id))
        out.extend(_scores(report, result, trace))
        out.extend(_query_scores(report, result, trace))
    return tuple(out)


def _scores(report: Report, result: CaseResult, trace: int) -> list[Score]:
    root = span_id(trace, "case")
    meta = {"annotator": ANNOTATOR, "case": result.id, "golden_set": report.golden_name}

    def score(name: str, value: float, label: str | None, explanation: str | None) -> Score:
        return Score(trace, root, name, f"{ANNOTATOR}:{result.id}:{name}", score=value, label=label,
                     explanation=explanation, metadata=MappingProxyType(meta))

    checks = ", ".join(dict.fromkeys(f.check for f in result.hard_failures))
    out = [score("verdict", 0.0 if result.failed else 1.0, "fail" if result.failed else "pass",
                 f"hard failures: {checks}" if checks else "no hard failure")]
    for name, value in result.soft.items():
        if value is not None:
            out.append(score(name, float(value), None, result.axes.get(name)))
    for i, finding in enumerate(result.hard_failures):
        extra = {**meta, **({"url": finding.url} if finding.url else {})}
        out.append(Score(trace, root, f"hard_failure.{finding.check}", f"{ANNOTATOR}:{result.id}:failure:{i}",
                         score=0.0, label="fail", explanation=finding.message, metadata=MappingProxyType(extra)))
    return out


def _query_scores(report: Report, result: CaseResult, trace: int) -> list[Score]:
    """The judge's two scores of each query it scored, on that query's RETRIEVER span."""
    out: list[Score] = []
    for q in result.judgement.query_scores if result.judgement is not None else ():
        kept = result.queries[q.position] if 0 <= q.position < len(result.queries) else None
        dropped = "; ".join(f"dropped «{d}»" for d in (kept.dropped if kept is not None else ()))
        why = "; ".join(s for s in (q.note, dropped) if s) or None
        fields: dict[str, str | int | float] = {"annotator": ANNOTATOR, "case": result.id,
                                                "golden_set": report.golden_name, "query": q.query,
                                                "query_index": q.position}
        meta = MappingProxyType(fields)
        span = span_id(trace, search_place(q.position))
        out += [Score(trace, span, name, f"{ANNOTATOR}:{result.id}:query:{q.position}:{name}",
                      score=float(getattr(q, name)), explanation=why, metadata=meta) for name in QUERY_SCORES]
    return out
