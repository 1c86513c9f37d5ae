"""A case result keeps what a reader needs to see its answer as the checks saw it: the answer
(bounded), each cited URL marked by what became of it, each verified quote inside its page's text,
and, against a baseline, the baseline's answer when it differs. All of it is in the saved report."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gate.config import Config
from gate.errors import InputError
from gate.files.jsonio import validate
from gate.model import Case, Citation, Page, Run, SearchResult
from gate.pipeline import SetRequest, run_set
from gate.results import ANSWER_KEPT, CaseResult, Counts
from gate.score.evaluate import evaluate_run
from gate.store.serialise import case_from_dict, case_to_dict, dump_report, report_from_dict
from gate.verdict.compare import case_change
from gate.verdict.report import Report

EXAMPLE = Path(__file__).parent.parent / "cached-snapshots" / "example"
NOW = datetime(2026, 12, 1, tzinfo=UTC)
WHO_MADE_UP = "https://www.who.int/publications/i/item/9789240114319"


@pytest.fixture(scope="module")
def compared() -> Report:
    """The example set checked against its shipped baseline, judged from its cache."""
    return run_set(SetRequest((str(EXAMPLE),), judge_mode="replay"), now=NOW)


def _case(report: Report, case_id: str) -> CaseResult:
    return next(c for c in report.cases if c.id == case_id)


def test_each_cited_url_is_marked_with_what_became_of_it(compared: Report) -> None:
    marks = {c.id: {m.url: m.mark for m in c.citations} for c in compared.cases}
    assert marks["who-physical-activity-adults"][WHO_MADE_UP] == "fabricated"
    assert marks["who-physical-activity-adults"][
        "https://www.who.int/news-room/fact-sheets/detail/physical-activity"] == "quote_found"
    assert sorted(marks["fomc-september-2026-decision"].values()).count("unresolved") == 2
    assert list(marks["four-day-week-evidence"].values()).count("fabricated") == 2
    assert "unread" in marks["halvorsen-fy2026-revenue"].values()
    assert "quote_missing" in marks["solar-wind-vs-coal-2025"].values()
    assert marks["nobel-chemistry-2026"] == {}
    # every URL the answer cites, in order, once
    assert all(len(c.citations) == c.counts.citations for c in compared.cases)


def test_the_answer_is_kept_and_quotes_are_shown_in_their_page_s_text(compared: Report) -> None:
    who = _case(compared, "who-physical-activity-adults")
    trace = json.loads((EXAMPLE / "runs" / "who-physical-activity-adults.json").read_text(encoding="utf-8"))
    assert who.answer == trace["answer"] and who.answer_dropped == 0
    first = next(q for q in who.quotes if q.claim == 1)
    page = next(p["text"] for p in trace["pages"] if p["url"] == first.url)
    assert first.quote == "Adults aged 18–64 years"
    assert " ".join(page.split()).find(first.before + first.quote + first.after) != -1


def test_the_baseline_s_answer_is_kept_only_where_it_differs(compared: Report) -> None:
    cmp = compared.comparison
    assert cmp is not None
    differs = {c.id for c in cmp.cases if c.baseline_answer is not None}
    assert differs == {"who-physical-activity-adults", "storm-dervla-disruption"}
    before = cmp.case("who-physical-activity-adults")
    assert before is not None and before.baseline_answer is not None
    assert WHO_MADE_UP not in before.baseline_answer
    assert WHO_MADE_UP in (_case(compared, "who-physical-activity-adults").answer or "")


def test_a_baseline_without_answers_gives_no_diff() -> None:
    base = CaseResult(id="a", question="q", hard_failures=(), checks=(), counts=Counts())
    assert case_change(base, replace(base, answer="now")).baseline_answer is None
    assert case_change(replace(base, answer="now"), replace(base, answer="now")).baseline_answer is None
    assert case_change(replace(base, answer="then"), replace(base, answer="now")).baseline_answer == "then"


def test_a_long_answer_is_kept_to_its_bound() -> None:
    url = "https://example.org/a"
    answer = f"It holds [1].\n\n[1]: {url}\n" + "x" * (ANSWER_KEPT + 500)
    run = Run(case="a", question="q", answer=answer,
              results=(SearchResult(0, 1, "t", url, "s"),), pages=(Page(url, "It holds, says the page."),))
    c = evaluate_run(run, Case("a", "q"), Config())
    assert c.answer == answer[:ANSWER_KEPT] and c.answer_dropped == len(answer) - ANSWER_KEPT
    assert [(m.url, m.mark) for m in c.citations] == [(url, "read")]


def test_a_quote_of_the_answer_is_found_in_the_page_s_own_words() -> None:
    url = "https://example.org/report"
    page = "Intro text.  The  Committee   decided to hold rates at 4%, it said on Tuesday. More."
    run = Run(case="a", question="q", answer=f"Rates held [1].\n\n[1]: {url}",
              results=(SearchResult(0, 1, "t", url, "s"),), pages=(Page(url, page),),
              citations=(Citation(url, "the committee decided to hold rates at 4%"),))
    c = evaluate_run(run, Case("a", "q"), Config())
    assert [m.mark for m in c.citations] == ["quote_found"]
    (q,) = c.quotes
    assert (q.claim, q.before, q.quote, q.after) == (
        0, "Intro text. ", "The Committee decided to hold rates at 4", "%, it said on Tuesday. More.")


def test_the_fields_round_trip_and_older_reports_read_without_them(compared: Report) -> None:
    data = json.loads(dump_report(compared))
    validate(data, "report", "report.json")
    back = report_from_dict(data)
    assert [case_to_dict(c) for c in back.cases] == [case_to_dict(c) for c in compared.cases]
    assert back.comparison is not None and compared.comparison is not None
    assert [c.baseline_answer for c in back.comparison.cases] == [c.baseline_answer for c in compared.comparison.cases]
    old = {k: v for k, v in data["cases"][0].items() if k not in ("answer", "answer_dropped", "citations", "quotes")}
    read = case_from_dict(old)
    assert (read.answer, read.answer_dropped, read.citations, read.quotes) == (None, 0, (), ())


def test_the_schema_bounds_what_a_report_may_hold(compared: Report) -> None:
    data = json.loads(dump_report(compared))
    data["cases"][0]["answer"] = "x" * (ANSWER_KEPT + 1)
    with pytest.raises(InputError, match="answer"):
        validate(data, "report", "report.json")
