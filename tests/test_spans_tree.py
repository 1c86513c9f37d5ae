"""``gate.deliver.spans.build_spans``: the span tree of hand-made runs, as plain values (no OpenTelemetry)."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

from gate.deliver.spans import build_spans
from gate.model import Citation, Finding, Page, Run, SearchResult
from gate.results import CaseResult, CaseWarning, CheckStatus, Counts
from gate.verdict.report import Report

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def _report(*cases: CaseResult) -> Report:
    return Report(verdict="fail", reasons=(), golden_name="news", golden_version=3, cases=cases)


def _result(case: str, *failures: Finding, regime: str | None = "realtime") -> CaseResult:
    return CaseResult(id=case, question="What happened today?", hard_failures=failures,
                      checks=(CheckStatus("stale_sources", "fail" if failures else "pass"),),
                      counts=Counts(citations=1, median_source_age_days=40.0), regime=regime,
                      soft={"freshness": 0.0, "diversity": None},
                      warnings=(CaseWarning("missing_recency_caveat", "no date"),))


RUN = Run(case="q1", question="What happened today?", answer="It rained (https://a.example/x).",
          queries=("rain today",),
          results=(SearchResult(0, 1, "Rain", "https://a.example/x", "It rained", date(2026, 1, 20)),
                   SearchResult(None, 1, "Old", "https://b.example/y", "")),
          pages=(Page("https://a.example/x", "It rained.", status=200,
                      fetched_at=datetime(2026, 3, 1, 12, 0, 5, tzinfo=UTC)),
                 Page("https://b.example/y", "", status=404)),
          citations=(Citation("https://a.example/x", "It rained"),), started_at=START,
          agent=(("model", "m-1"),))


def test_a_failed_realtime_case_is_one_tree_with_its_failures_on_the_root() -> None:
    stale = Finding("stale_sources", "median source is 40 days old", "https://a.example/x")
    spans = build_spans(_report(_result("q1", stale)), {"q1": RUN})
    names = [s.name for s in spans]
    assert names == ["case q1", "search", "web_search", "search", "web_search", "fetch_page", "fetch_page",
                     "synthesis"]
    root = spans[0]
    assert root.parent_id is None and all(s.trace_id == root.trace_id for s in spans)
    a = root.attributes
    assert a["sourcegate.regime"] == "realtime" and a["sourcegate.verdict"] == "fail"
    assert a["sourcegate.check.stale_sources"] == "fail" and a["sourcegate.hard_failures"] == ("stale_sources",)
    assert a["sourcegate.soft.freshness"] == 0.0 and "sourcegate.soft.diversity" not in a
    assert a["sourcegate.freshness.median_age_days"] == 40.0
    assert [e.name for e in root.events] == ["sourcegate.hard_failure", "sourcegate.warning"]
    assert root.events[0].attributes["url.full"] == "https://a.example/x"
    assert root.error == "hard failures: stale_sources"


def test_results_pages_and_the_answer_carry_the_sources_facts() -> None:
    spans = build_spans(_report(_result("q1")), {"q1": RUN})
    first, unattributed = (s for s in spans if s.name == "search")
    assert first.attributes["input.value"] == "rain today" and first.attributes["sourcegate.regime"] == "realtime"
    meta = json.loads(str(first.attributes["retrieval.documents.0.document.metadata"]))
    assert meta == {"url": "https://a.example/x", "title": "Rain", "position": 1, "registered_domain": "a.example",
                    "source_type": "unknown", "cited": True, "read": True, "published": "2026-01-20",
                    "age_days": 40}
    assert "input.value" not in unattributed.attributes
    assert unattributed.attributes["retrieval.documents.0.document.id"] == "https://b.example/y"
    ok, missing = (s for s in spans if s.name == "fetch_page")
    assert ok.start_ns == ok.end_ns == int(datetime(2026, 3, 1, 12, 0, 5, tzinfo=UTC).timestamp()) * 10**9
    assert ok.error is None and missing.error == "HTTP 404"
    assert missing.start_ns == int(START.timestamp()) * 10**9  # no fetched_at: the run's start
    llm = spans[-1].attributes
    assert llm["openinference.span.kind"] == "LLM" and llm["llm.model_name"] == "m-1"
    assert llm["sourcegate.citations"] == ("https://a.example/x",)


def test_a_case_without_a_run_is_a_root_alone_and_ids_depend_on_set_and_case() -> None:
    spans = build_spans(_report(_result("q1"), _result("q2", Finding("input_error", "no run"))), {"q1": RUN})
    roots = [s for s in spans if s.parent_id is None]
    assert [r.name for r in roots] == ["case q1", "case q2"] and spans[-1].name == "case q2"
    assert roots[0].trace_id != roots[1].trace_id
    again = build_spans(_report(_result("q1")), {"q1": RUN})
    assert [s.span_id for s in again] == [s.span_id for s in spans[:-1]]
    other = build_spans(Report(verdict="fail", reasons=(), golden_name="news", golden_version=4,
                               cases=(_result("q1"),)), {"q1": RUN})
    assert other[0].trace_id != roots[0].trace_id
