"""Each search query of a case, with the judge's scores and what it dropped of the question: the rows the
HTML report lists and the lines the markdown report gives of the queries that lost something. Pure.

A case's queries come from two places: the run's literal queries with what each did not keep of the
case's constraints and entities (:attr:`gate.results.CaseResult.queries`, no model needed), and the
judge's scores of them (``judgement.query_scores``, numbered from 1). A report of an earlier version
has only the second; a case judged with the judge off only the first.
"""

from __future__ import annotations

from dataclasses import dataclass

from gate.judgement import QueryScore
from gate.results import CaseResult, QuerySurvival

__all__ = ["QueryRow", "lost_words", "query_rows"]


@dataclass(frozen=True)
class QueryRow:
    """One query of a case: its number (from 1, as the judge numbers them), its text, the judge's scores
    (None: not scored) and what it did not keep of the case (None: not known)."""

    number: int
    query: str
    score: QueryScore | None
    kept: QuerySurvival | None

    @property
    def lost(self) -> bool:
        """True when the query did not keep a constraint or an entity of its case."""
        return self.kept is not None and bool(self.kept.dropped)


def query_rows(c: CaseResult) -> list[QueryRow]:
    """The case's queries in the order the agent sent them."""
    scores = {q.position: q for q in c.judgement.query_scores} if c.judgement is not None else {}
    count = max([len(c.queries), *(p + 1 for p in scores if p >= 0)])
    rows = []
    for i in range(count):
        kept = c.queries[i] if i < len(c.queries) else None
        score = scores.get(i)
        text = kept.query if kept is not None else score.query if score is not None else ""
        rows.append(QueryRow(i + 1, text, score, kept))
    return rows


def lost_words(kept: QuerySurvival) -> str:
    """What a query did not keep, in words: ``the constraint(s) «a» and the entity(ies) «b»`` (raw
    text: the caller escapes it for its format)."""
    parts = []
    if kept.dropped_constraints:
        parts.append("the constraint(s) " + ", ".join(f"«{d}»" for d in kept.dropped_constraints))
    if kept.dropped_entities:
        parts.append("the entity(ies) " + ", ".join(f"«{d}»" for d in kept.dropped_entities))
    return " and ".join(parts)
