"""The quote rule by example: every case of ``tests/fixtures/quotes/cases.yaml`` gets its verdict.

Meaning-changing quotes (negations, antonyms, names, numbers, dates) are not on the page, however
similar their characters; faithful quotes written with each allowed normalisation are. The check
(``passage_missing``) and the judge's quote verification decide every case alike, and the table in
``docs/quotes.md`` is rendered from the same file. Regenerate it after an intended change:
``SOURCEGATE_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_quote_cases.py``.
"""

from __future__ import annotations

import os
import unicodedata
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from gate.checks import CHECKS, Subject
from gate.checks.passage import find_passage
from gate.config import Config
from gate.judge.verify import Graded, Material, check
from gate.judgement import QUOTE_NOT_FOUND, Claim
from gate.model import Case, Citation, Page, Run, SearchResult

ROOT = Path(__file__).parent.parent
CASES_FILE = ROOT / "tests" / "fixtures" / "quotes" / "cases.yaml"
DOC = ROOT / "docs" / "quotes.md"
START, END = "<!-- quote-cases:start -->\n", "<!-- quote-cases:end -->\n"
URL = "https://example.org/report"
WHY = ("the page's closest passage (", "the ellipsis omits a negation", "the bracketed insertion",
       "the page has", "its parts are on the page, but not in the order quoted")
"""What a finding says after the quote: what the page has instead, or the rule the quote broke."""

DATA: dict[str, Any] = yaml.safe_load(CASES_FILE.read_text(encoding="utf-8"))
PAGES: dict[str, str] = DATA["pages"]
CASES: list[dict[str, Any]] = DATA["cases"]


def params() -> list[Any]:
    return [pytest.param(c, id=c["id"]) for c in CASES]


def subject(quote: str, page: str, answer: str = "See the report.") -> Subject:
    run = Run(case="c", question="q", answer=answer, queries=("q",),
              results=(SearchResult(query=0, position=1, title="Report", url=URL, snippet=""),),
              pages=(Page(url=URL, text=page),), citations=(Citation(URL, quote),))
    return Subject.build(run, Case(id="c", question="q"), Config())


@pytest.mark.parametrize("case", params())
def test_the_quote_rule_decides_each_case(case: dict[str, Any]) -> None:
    match = find_passage(case["quote"], PAGES[case["page"]])
    assert match.found is case["on_page"], case["why"]


@pytest.mark.parametrize("case", params())
def test_passage_missing_fails_exactly_the_quotes_not_on_the_page(case: dict[str, Any]) -> None:
    outcome = CHECKS["passage_missing"].run(subject(case["quote"], PAGES[case["page"]]))
    assert (not outcome.findings) is case["on_page"], case["why"]
    for finding in outcome.findings:
        # The reader sees why: the page's closest passage beside the quote, or the rule it broke.
        assert finding.message.startswith(f"quote not on {URL}: \"")
        assert any(f"; {why}" in finding.message for why in WHY), finding.message


# A sentence of the answer ends at ". ": a quotation in the answer is read inside one sentence.
IN_ONE_SENTENCE = [c for c in CASES if ". " not in c["quote"] and not {"“", "”", "\"", "\n"} & set(c["quote"])]


@pytest.mark.parametrize("case", [pytest.param(c, id=c["id"]) for c in IN_ONE_SENTENCE])
def test_a_quotation_in_the_answer_is_held_to_the_same_rule(case: dict[str, Any]) -> None:
    answer = f"The report says “{case['quote']}” ([report]({URL}))."
    run = subject("", PAGES[case["page"]], answer).run
    quoted = Subject.build(replace(run, citations=None), Case(id="c", question="q"), Config())
    outcome = CHECKS["passage_missing"].run(quoted)
    assert outcome.not_checked is None
    assert (not outcome.findings) is case["on_page"], case["why"]


@pytest.mark.parametrize("case", params())
def test_the_judge_quote_stands_exactly_when_it_is_on_the_page(case: dict[str, Any]) -> None:
    # The judge's verbatim quote is held to the same rule: a misquote is no evidence for the claim.
    claim = Claim(1, case["quote"], (URL,))
    verdict = check(claim, Graded("supported", case["quote"]), Material([Page(url=URL, text=PAGES[case["page"]])]))
    if case["on_page"]:
        assert (verdict.verdict, verdict.located) == ("supported", "cited")
    else:
        assert (verdict.verdict, verdict.overruled, verdict.overrule_reason) == ("unsupported", True, QUOTE_NOT_FOUND)


def test_the_cases_cover_what_changes_meaning_and_every_allowed_normalisation() -> None:
    ids = {c["id"] for c in CASES}
    for kind in ("negation-added", "negation-dropped", "antonym-fall-for-grow", "denied-for-approved",
                 "antonym-weak-for-strong-and-names-swapped", "number-changed", "date-changed"):
        assert kind in ids and not next(c for c in CASES if c["id"] == kind)["on_page"]
    for kind in ("case-and-whitespace", "straight-quotes-and-apostrophes", "hyphen-for-an-em-dash",
                 "soft-hyphen-and-zero-width-space", "ligature", "three-dots", "bracket-for-a-pronoun",
                 "one-typo-in-a-long-quote"):
        assert kind in ids and next(c for c in CASES if c["id"] == kind)["on_page"]
    assert len(ids) == len(CASES), "case ids are unique"


def _cell(text: str) -> str:
    # Invisible characters (soft hyphens, zero-width spaces) are shown by their code points.
    flat = "".join(f"<U+{ord(c):04X}>" if unicodedata.category(c) == "Cf" else c for c in " ".join(text.split()))
    fence = "``" if "`" in flat else "`"
    return f"{fence}{flat}{fence}".replace("|", "\\|")


def table() -> str:
    """The docs' table: the pages, then one row per case."""
    lines = ["| page | text |", "|---|---|"]
    lines += [f"| `{key}` | {_cell(text)} |" for key, text in PAGES.items()]
    lines += ["", "| quote | page | on the page? | why |", "|---|---|---|---|"]
    for c in CASES:
        verdict = "✅ yes" if c["on_page"] else "❌ no"
        lines.append(f"| {_cell(c['quote'])} | `{c['page']}` | {verdict} | {' '.join(c['why'].split())} |")
    return "\n".join(lines) + "\n"


def test_docs_quotes_shows_the_cases() -> None:
    text = DOC.read_text(encoding="utf-8")
    before, rest = text.split(START, 1)
    shown, after = rest.split(END, 1)
    if os.environ.get("SOURCEGATE_UPDATE_GOLDEN") == "1":
        DOC.write_text(before + START + table() + END + after, encoding="utf-8")
        return
    assert shown == table(), "docs/quotes.md is stale: regenerate with SOURCEGATE_UPDATE_GOLDEN=1"
