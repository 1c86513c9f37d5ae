"""Per-case warnings: what a case asked for that its run did not deliver. Never a failure. Pure.

Each warning has a stable ``kind``:

- ``dropped_constraints`` / ``dropped_entities``: a constraint or entity that ``golden.yaml`` lists
  for the case and that no literal query of the run kept (all its words and numbers, or a close
  fuzzy match: :func:`gate.checks.survival.survives`). Decided without a model, so it is reported
  whatever the judge mode; not checked when the run recorded no queries.
- ``missing_recency_caveat``: a ``realtime`` or ``fast`` answer (the case's regime, else the
  judge's) that states current figures (a number with a unit, a currency or a percentage) without
  saying when they held: no date (``5 June 2026``, ``June 2026``, ``2026-06-05``) and no "as of".
- ``question_differs``: the trace records another question than the case's in ``golden.yaml``
  (whitespace aside): the run may answer a question the case no longer asks. Both are named.

A primary source missing where the case's class requires one is a hard failure, not a warning
(``no_primary_source``). The verdict never reads these: they are shown per case in the report,
the JSON and the comment.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gate.checks.survival import dropped
from gate.model import Case, Run
from gate.results import CaseWarning

if TYPE_CHECKING:
    from gate.judgement import RunJudgement

__all__ = ["CAVEAT_REGIMES", "case_warnings", "dated", "dropped_terms", "question_differs", "states_figures"]

CAVEAT_REGIMES = ("realtime", "fast")

_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_DATED = re.compile(
    rf"\bas (?:of|at|on)\b|\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b\d{{1,2}}(?:st|nd|rd|th)? {_MONTH}\b|"
    rf"\b{_MONTH} \d{{1,2}}(?:st|nd|rd|th)?\b|\b{_MONTH},? \d{{4}}\b",
    re.IGNORECASE,
)
_FIGURE = re.compile(
    r"[$€£¥]\s?\d|\d(?:[\d,.]*\d)?\s?(?:%|percent\b|per cent\b|bps\b|basis points\b|"
    r"million\b|billion\b|trillion\b|[kmb]n?\b|usd\b|eur\b|gbp\b)",
    re.IGNORECASE,
)
_NOISE = re.compile(r"https?://\S+|\[\d+\]")


def states_figures(answer: str) -> bool:
    """True when the answer states a figure: a number with a unit, a currency sign or a percentage."""
    return bool(_FIGURE.search(_NOISE.sub(" ", answer)))


def dated(answer: str) -> bool:
    """True when the answer says when: a day, a month and year, an ISO date, or "as of"."""
    return bool(_DATED.search(_NOISE.sub(" ", answer)))


def dropped_terms(case: Case, run: Run) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(constraints, entities) of the case that no query kept; both empty when no query was recorded."""
    if not run.queries:
        return (), ()
    return dropped(case.constraints, run.queries), dropped(case.entities, run.queries)


def _quoted(items: Sequence[str]) -> str:
    return ", ".join(f"«{x}»" for x in items)


def _caveat(case: Case, run: Run, judgement: RunJudgement | None) -> CaseWarning | None:
    regime = case.freshness or (judgement.regime if judgement is not None else None)
    if regime not in CAVEAT_REGIMES or not states_figures(run.answer) or dated(run.answer):
        return None
    return CaseWarning("missing_recency_caveat", f"a {regime} answer states current figures without a date "
                                                 "or \"as of\"")


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
    """The warnings of one case, in a fixed order: question, constraints, entities, recency caveat."""
    constraints, entities = dropped_terms(case, run)
    out = []
    differs = question_differs(case, run)
    if differs is not None:
        out.append(differs)
    if constraints:
        out.append(CaseWarning("dropped_constraints", f"no query kept the constraint(s) {_quoted(constraints)}"))
    if entities:
        out.append(CaseWarning("dropped_entities", f"no query kept the entity(ies) {_quoted(entities)}"))
    caveat = _caveat(case, run, judgement)
    if caveat is not None:
        out.append(caveat)
    return tuple(out)
