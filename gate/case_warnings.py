"""Per-case warnings: what a case asked for that its run did not deliver. Never a failure. Pure.

Each warning has a stable ``kind``:

- ``dropped_constraints`` / ``dropped_entities``: a constraint or entity that ``golden.yaml`` lists
  for the case and that no literal query of the run kept (all its words and numbers, or a close
  fuzzy match: :func:`gate.judge.sources.survives`). Decided without a model, so it is reported
  whatever the judge mode; not checked when the run recorded no queries.
- ``no_primary_source``: a ``regulatory`` or ``synthesis`` case whose cited sources were typed (by
  a rule or by the judge) and none of them is primary. Sources left untyped (the judge could not
  answer) count neither way: with none typed, nothing is flagged.
- ``question_differs``: the trace records another question than the case's in ``golden.yaml``
  (whitespace aside): the run may answer a question the case no longer asks. Both are named.

The verdict never reads these: they are shown per case in the report, the JSON and the comment.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gate.judge.sources import dropped
from gate.model import Case, Run
from gate.results import CaseWarning

if TYPE_CHECKING:
    from gate.judge.model import RunJudgement

__all__ = ["NO_PRIMARY_CLASSES", "case_warnings", "dropped_terms", "question_differs"]

NO_PRIMARY_CLASSES = ("regulatory", "synthesis")


def dropped_terms(case: Case, run: Run) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(constraints, entities) of the case that no query kept; both empty when no query was recorded."""
    if not run.queries:
        return (), ()
    return dropped(case.constraints, run.queries), dropped(case.entities, run.queries)


def _quoted(items: Sequence[str]) -> str:
    return ", ".join(f"«{x}»" for x in items)


def _no_primary(case: Case, judgement: RunJudgement | None) -> CaseWarning | None:
    if case.cls not in NO_PRIMARY_CLASSES or judgement is None:
        return None
    kinds = [s.kind for s in judgement.source_types]
    typed = [k for k in kinds if k is not None]
    if not typed or "primary" in typed:
        return None
    untyped = len(kinds) - len(typed)
    also = f"; {untyped} not typed (judge unavailable)" if untyped else ""
    return CaseWarning("no_primary_source", f"a {case.cls} case that cites no primary source "
                                            f"({len(typed)} cited source(s) typed, all secondary{also})")


def question_differs(case: Case, run: Run) -> CaseWarning | None:
    """A warning naming both questions when the trace's differs from the case's (whitespace aside)."""
    if not run.question.strip() or " ".join(run.question.split()) == " ".join(case.question.split()):
        return None
    return CaseWarning("question_differs", f"the trace's question «{_short(run.question)}» differs from the "
                                           f"case's in golden.yaml «{_short(case.question)}»")


def _short(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def case_warnings(case: Case, run: Run, judgement: RunJudgement | None) -> tuple[CaseWarning, ...]:
    """The warnings of one case, in a fixed order: question, constraints, entities, source types."""
    constraints, entities = dropped_terms(case, run)
    out = []
    differs = question_differs(case, run)
    if differs is not None:
        out.append(differs)
    if constraints:
        out.append(CaseWarning("dropped_constraints", f"no query kept the constraint(s) {_quoted(constraints)}"))
    if entities:
        out.append(CaseWarning("dropped_entities", f"no query kept the entity(ies) {_quoted(entities)}"))
    primary = _no_primary(case, judgement)
    if primary is not None:
        out.append(primary)
    return tuple(out)
