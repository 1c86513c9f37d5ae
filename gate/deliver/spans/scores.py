"""The gate's scores of each case as the evaluations tracing tools show: Phoenix span annotations and
Langfuse scores, on the case span. Pure: :mod:`gate.deliver.spans.annotate` sends them.

Per case: ``verdict`` (label ``pass`` or ``fail``, score 1 or 0), each soft figure the case has
(``query_quality``, ``freshness``, ``diversity``, ``citation_validity``, ``grounding_rate``,
``hallucination_rate``, ``primary_share``: its value as the score), and one ``hard_failure.<check>``
per finding (label ``fail``, score 0, the finding's message as the explanation, its URL in the
metadata). Each has a stable ``identifier`` (the finding's place among the case's), so sending the
same report again updates the same annotations instead of adding more.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from gate.deliver.spans.ids import span_id, trace_id
from gate.results import CaseResult
from gate.verdict.report import Report

__all__ = ["ANNOTATOR", "Score", "case_scores"]

ANNOTATOR = "sourcegate"
"""Who made the scores: the identifier prefix and the metadata's ``annotator``."""


@dataclass(frozen=True)
class Score:
    """One evaluation of one case span: a name, a label and/or a number, and why."""

    trace_id: int
    span_id: int
    name: str
    identifier: str
    score: float | None = None
    label: str | None = None
    explanation: str | None = None
    metadata: Mapping[str, str | int | float] = field(default_factory=lambda: MappingProxyType({}))


def case_scores(report: Report) -> tuple[Score, ...]:
    """The scores of every case of ``report``, on each case's root span, in the report's case order."""
    out: list[Score] = []
    for result in report.cases:
        out.extend(_scores(report, result))
    return tuple(out)


def _scores(report: Report, result: CaseResult) -> list[Score]:
    trace = trace_id(report.golden_name, report.golden_version, result.id)
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
