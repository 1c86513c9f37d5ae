"""A hard failure keeps the sentence of the answer that carried its citation: what a reviewer reads first."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from gate.config import Config
from gate.model import SENTENCE_KEPT, Case, Page, Run, SearchResult
from gate.report.json import JsonReporter
from gate.score.evaluate import evaluate_run
from gate.store.baseline import parse_report
from gate.verdict.report import Report

SEEN = "https://example.org/seen"
MADE_UP = "https://made-up.example.net/page"


def _run(answer: str) -> Run:
    return Run(case="c", question="q?", answer=answer, queries=("q",),
               results=(SearchResult(0, 1, "Seen", SEEN, "snippet"),),
               pages=(Page(SEEN, "the page text", status=200, fetched_at=datetime(2026, 1, 1, tzinfo=UTC)),),
               started_at=datetime(2026, 1, 2, tzinfo=UTC))


def _fabricated(answer: str) -> str | None:
    result = evaluate_run(_run(answer), Case("c", "q?"), Config())
    (finding,) = [f for f in result.hard_failures if f.check == "fabricated_url"]
    return finding.sentence


def test_the_sentence_of_a_reference_marker_is_kept() -> None:
    answer = (f"The page says one thing [1]. The guideline added a second rule in 2026 [2].\n\n"
              f"[1]: {SEEN}\n[2]: {MADE_UP}\n")
    assert _fabricated(answer) == "The guideline added a second rule in 2026."


def test_the_sentence_a_markdown_link_sits_in_is_kept_with_its_link_text() -> None:
    answer = f"Seen first ([a]({SEEN})). Then the [second rule]({MADE_UP}) was **added** in 2026."
    assert _fabricated(answer) == "Then the second rule was added in 2026."


def test_a_url_no_sentence_cites_keeps_none_and_a_long_sentence_is_cut() -> None:
    assert _fabricated(f"<{MADE_UP}>") is None
    long = "word " * 200
    sentence = _fabricated(f"{long}[1].\n\n[1]: {MADE_UP}\n")
    assert sentence is not None and len(sentence) == SENTENCE_KEPT and sentence.endswith("…")


def test_the_sentence_is_written_in_the_report_and_read_back() -> None:
    result = evaluate_run(_run(f"It was made up [1].\n\n[1]: {MADE_UP}\n"), Case("c", "q?"), Config())
    report = Report("fail", ("x",), "demo", 1, (result,))
    data = json.loads(JsonReporter().render(report))
    (written,) = [f for f in data["cases"][0]["hard_failures"] if f["check"] == "fabricated_url"]
    assert written["sentence"] == "It was made up."
    back = parse_report(data, "report.json")  # valid against the schema, and read back the same
    assert back.cases[0].hard_failures == result.hard_failures
    assert all("sentence" not in f for f in data["cases"][0]["hard_failures"] if f["check"] != "fabricated_url")
