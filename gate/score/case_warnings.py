"""Per-case warnings: what a case asked for that its run did not deliver. Never a failure. Pure.

Each warning has a stable ``kind``:

- ``dropped_constraints`` / ``dropped_entities``: a constraint or entity that ``golden.yaml`` lists
  for the case and that no literal query of the run kept (all its words and numbers, or a close
  fuzzy match: :func:`gate.checks.survival.survives`). Decided without a model, so it is reported
  whatever the judge mode; not checked when the run recorded no queries.
- ``missing_recency_caveat``: a ``realtime`` or ``fast`` answer (the case's regime, else the
  judge's) that states current figures (a number with a unit, a currency or a percentage) without
  a statement that dates them (:func:`dated`: "as of ...", "at the time of writing", "last
  updated", "on <date>, the rate was"...). Any date in the text is not such a statement: "with
  effect from 11 June 2025" says when a change applied, not that the figure is still current.
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

from gate.checks.survival import dropped, dropped_by_each
from gate.model import Case, Run
from gate.results import CaseWarning, QuerySurvival

if TYPE_CHECKING:
    from gate.judgement import RunJudgement

__all__ = ["CAVEAT_REGIMES", "case_warnings", "dated", "dropped_terms", "query_survival", "question_differs",
           "states_figures"]

CAVEAT_REGIMES = ("realtime", "fast")

_MONTH = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
          r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?")
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
# A date precise enough to date a figure: a day (or a day range) and a month, with or without the
# year; a month and a year; an ISO date; a quarter and a year.
_DATE = (rf"(?:{_DAY}(?:\s?[-–]\s?{_DAY})? {_MONTH}(?:,? \d{{4}})?|{_MONTH} {_DAY}(?:,? \d{{4}})?|"
         rf"{_MONTH},? \d{{4}}|\d{{4}}-\d{{2}}-\d{{2}}|q[1-4] \d{{4}})\b")
# A character of the same sentence: not a line break, a semicolon or a full stop (a decimal point is).
_IN_SENTENCE = r"(?:[^.;\n]|\.(?=\d))"
# A clause starts at the start of the text, a line or a sentence, or after , ; : ( or a dash.
_CLAUSE = r"(?:^|(?<=[.!?;:,(\n—–-])\s*)"
_CAVEATS = {
    "as of": r"\bas (?:of|at|on)\b",
    "at the time of writing": r"\bat (?:the )?time of (?:writing|publication|this answer)\b",
    "last updated": r"\blast (?:updated|revised|checked|reviewed)\b|\bupdated (?:on )?" + _DATE,
    "on <date>, the figure": rf"{_CLAUSE}(?:on|at|in|by) (?:(?:its|the|their|a|an) )?{_DATE}",
    "the figure was ... on <date>": rf"\b(?:was|were|stood(?: at)?)\b{_IN_SENTENCE}{{0,40}}\b(?:on|at|in) {_DATE}",
    "currently ... (<date>)": (rf"\b(?:currently|now|today|at present|presently)\b{_IN_SENTENCE}{{0,120}}"
                               rf"\((?:as of |on |at )?{_DATE}\s*\)"),
    "figure (<date>)": r"(?:\d%|\d)\s?\((?:as of |on |at )?" + _DATE + r"\s*\)",
    "for the year ended <date>": (r"\b(?:for|in|during|over) the (?:(?:fiscal|financial) )?(?:year|quarter|half|"
                                  r"half-year|month|period|week|(?:twelve|nine|six|three|12|9|6|3) months) "
                                  rf"(?:ended|ending|to|through) {_DATE}"),
}
_DATED = re.compile("|".join(f"(?:{p})" for p in _CAVEATS.values()), re.IGNORECASE | re.MULTILINE)
_FIGURE = re.compile(
    r"[$€£¥]\s?\d|\d(?:[\d,.]*\d)?\s?(?:%|percent\b|per cent\b|bps\b|basis points\b|"
    r"million\b|billion\b|trillion\b|[kmb]n?\b|usd\b|eur\b|gbp\b)",
    re.IGNORECASE,
)
_NOISE = re.compile(r"https?://\S+|\[\d+\]")
_EMPHASIS = re.compile(r"\*{1,3}|(?<!\w)_{1,3}|_{1,3}(?!\w)|`")  # "**15–16 September 2026**" reads as its words


def states_figures(answer: str) -> bool:
    """True when the answer states a figure: a number with a unit, a currency sign or a percentage."""
    return bool(_FIGURE.search(_NOISE.sub(" ", answer)))


def dated(answer: str) -> bool:
    """True when the answer says when its figures held: a statement that dates them, not any date.

    "As of ...", "at the time of writing", "last updated", a clause opened by a date ("On 5 June
    2026, the rate was", "At its 15–16 September 2026 meeting the FOMC cut"), a figure said to be so
    on a date ("stood at 4.5% on 6 February 2025"), "currently ... (<date>)", a figure with its date
    in brackets, or a reporting period ("for the year ended June 30, 2026"). A date the answer only
    mentions ("with effect from 11 June 2025", "effective 17 September") does not say the figure
    is still current, so it is no caveat.
    """
    return bool(_DATED.search(_EMPHASIS.sub("", _NOISE.sub(" ", answer))))


def dropped_terms(case: Case, run: Run) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(constraints, entities) of the case that no query kept; both empty when no query was recorded."""
    if not run.queries:
        return (), ()
    return dropped(case.constraints, run.queries), dropped(case.entities, run.queries)


def query_survival(case: Case, run: Run) -> tuple[QuerySurvival, ...]:
    """Each literal query of the run, in order, with the constraints and entities of the case it does not
    keep on its own (a case that lists none: every query keeps everything)."""
    constraints = dropped_by_each(case.constraints, run.queries)
    entities = dropped_by_each(case.entities, run.queries)
    return tuple(QuerySurvival(q, c, e) for q, c, e in zip(run.queries, constraints, entities, strict=True))


def _quoted(items: Sequence[str]) -> str:
    return ", ".join(f"«{x}»" for x in items)


def _caveat(case: Case, run: Run, judgement: RunJudgement | None) -> CaseWarning | None:
    regime = case.freshness or (judgement.regime if judgement is not None else None)
    if regime not in CAVEAT_REGIMES or not states_figures(run.answer) or dated(run.answer):
        return None
    return CaseWarning("missing_recency_caveat", f"a {regime} answer states current figures without saying when "
                                                 "they held (\"as of <date>\", \"at the time of writing\")")


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
