"""``gate.deliver.spans.build_spans``: the span tree of hand-made runs, as plain values (no OpenTelemetry)."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, date, datetime

from gate.deliver.spans import build_spans
from gate.deliver.spans.timing import restamp
from gate.model import Attempt, Citation, Finding, ModelCall, Page, Run, SearchCall, SearchResult
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


TIMED = Run(
    case="q1", question="What happened today?", answer="It rained (https://a.example/x).",
    queries=("rain today", "rain radar"),
    results=(SearchResult(0, 1, "Rain", "https://a.example/x", "It rained"),),
    pages=(Page("https://a.example/x", "It rained.", status=200, fetched_at=datetime(2025, 12, 30, tzinfo=UTC),
                started_at=datetime(2026, 3, 1, 12, 0, 1, tzinfo=UTC), duration_ms=30.0),),
    started_at=START, agent=(("model", "m-1"),),
    searches=(SearchCall(1, datetime(2026, 3, 1, 12, 0, 0, 600_000, tzinfo=UTC), 40.0),
              SearchCall(0, datetime(2026, 3, 1, 12, 0, 0, 100_000, tzinfo=UTC), 50.0, cost_usd=0.005)),
    model_calls=(ModelCall(datetime(2026, 3, 1, 12, 0, 0, 10_000, tzinfo=UTC), 80.0, "claude-sonnet-4-5", 100, 20),
                 ModelCall(datetime(2026, 3, 1, 12, 0, 2, tzinfo=UTC), 900.0, "claude-sonnet-4-5", 1000, 300,
                           cache_read_tokens=4000, cache_write_tokens=50, cost_usd=0.0123)))
S = 10**9


def _ns(moment: datetime) -> int:
    return int(moment.timestamp()) * S + moment.microsecond * 1000


def test_timed_calls_are_spans_of_their_recorded_start_and_length_in_call_order() -> None:
    spans = build_spans(_report(_result("q1")), {"q1": TIMED})
    assert [s.name for s in spans] == ["case q1", "search", "web_search", "search", "web_search", "fetch_page",
                                       "llm", "synthesis"]
    root, first, first_tool, second, _, page, llm, synthesis = spans
    assert (first.end_ns - first.start_ns, second.end_ns - second.start_ns) == (50_000_000, 40_000_000)
    assert first.start_ns < second.start_ns  # the searches' own times put them in the order they ran
    assert (first_tool.start_ns, first_tool.end_ns) == (first.start_ns, first.end_ns)
    assert first_tool.attributes["sourcegate.cost_usd"] == 0.005
    assert first_tool.attributes["sourcegate.latency_ms"] == 50.0
    # the page was fetched for the snapshot in December; this run read it at 12:00:01
    assert page.start_ns == _ns(datetime(2026, 3, 1, 12, 0, 1, tzinfo=UTC))
    assert page.end_ns - page.start_ns == 30 * 10**6
    assert page.attributes["sourcegate.page.fetched_at"] == "2025-12-30T00:00:00Z"
    assert all(s.attributes["sourcegate.timing"] == "recorded" for s in spans[1:])
    for child in spans[1:]:
        assert root.start_ns <= child.start_ns <= child.end_ns <= root.end_ns
    assert root.end_ns == synthesis.end_ns == _ns(datetime(2026, 3, 1, 12, 0, 2, 900_000, tzinfo=UTC))


def test_llm_spans_carry_the_model_the_token_counts_and_the_cost() -> None:
    spans = build_spans(_report(_result("q1")), {"q1": TIMED})
    llm, synthesis = spans[-2].attributes, spans[-1].attributes
    assert llm["llm.token_count.prompt"] == 100 and llm["llm.token_count.completion"] == 20
    assert "output.value" not in llm and llm["sourcegate.model_call.index"] == 0
    assert synthesis["llm.token_count.prompt"] == 1000 + 4000 + 50
    assert synthesis["llm.token_count.prompt_details.cache_read"] == 4000
    assert synthesis["llm.token_count.prompt_details.cache_write"] == 50
    assert synthesis["llm.token_count.total"] == 5350 and synthesis["llm.cost.total"] == 0.0123
    assert synthesis["output.value"] == TIMED.answer and synthesis["llm.model_name"] == "claude-sonnet-4-5"
    assert spans[0].attributes["sourcegate.cost_usd"] == 0.0123 + 0.005


def test_a_trace_without_timing_says_so_and_invents_no_duration() -> None:
    spans = build_spans(_report(_result("q1")), {"q1": RUN})
    for s in spans[1:]:
        assert s.attributes["sourcegate.timing"] == "not_recorded" and s.start_ns == s.end_ns
        assert "sourcegate.latency_ms" not in s.attributes and "llm.token_count.prompt" not in s.attributes


def test_no_child_starts_before_its_parent_even_when_a_page_was_fetched_before_the_run() -> None:
    early = Run(case="q1", question="q", answer="a", started_at=START,
                pages=(Page("https://a.example/x", "t", fetched_at=datetime(2026, 1, 1, tzinfo=UTC)),))
    spans = build_spans(_report(_result("q1")), {"q1": early})
    root = spans[0]
    assert all(root.start_ns <= s.start_ns and s.end_ns <= root.end_ns for s in spans[1:])


def test_restamping_moves_each_trace_whole_to_the_export_time() -> None:
    spans = build_spans(_report(_result("q1")), {"q1": TIMED})
    now = _ns(datetime(2026, 11, 30, 8, 0, tzinfo=UTC))
    moved = restamp(spans, now)
    assert moved[0].end_ns == now and moved[0].attributes["sourcegate.recorded_at"] == "2026-03-01T12:00:00Z"
    assert [(s.end_ns - s.start_ns) for s in moved] == [(s.end_ns - s.start_ns) for s in spans]
    assert [s.start_ns - spans[i].start_ns for i, s in enumerate(moved)] == [now - spans[0].end_ns] * len(spans)
    assert moved[0].events[0].time_ns == now


def test_a_trace_id_names_one_run_whatever_file_it_was_read_from() -> None:
    from dataclasses import replace

    from gate.deliver.spans.ids import run_identity

    same = replace(RUN, source="elsewhere/q1.json")  # the same run, read from another file
    assert build_spans(_report(_result("q1")), {"q1": same})[0].trace_id == \
        build_spans(_report(_result("q1")), {"q1": RUN})[0].trace_id
    assert run_identity(same) == run_identity(RUN)
    for other in (replace(RUN, answer=RUN.answer + " Again."), replace(RUN, started_at=START.replace(hour=13)),
                  replace(RUN, pages=RUN.pages[:1]), replace(RUN, queries=("rain today", "rain now"))):
        assert build_spans(_report(_result("q1")), {"q1": other})[0].trace_id != \
            build_spans(_report(_result("q1")), {"q1": RUN})[0].trace_id
INVENTED = "https://a.example/invented"
REGENERATED = replace(TIMED, attempts=(
    Attempt(rejected=(INVENTED,), findings=(Finding("fabricated_url", f"cited {INVENTED} but never saw it", INVENTED),
                                            Finding("no_citations", "the answer cites no source")),
            started_at=START, duration_ms=1500.0),
    Attempt(kept=True, started_at=datetime(2026, 3, 1, 12, 0, 1, 500_000, tzinfo=UTC), duration_ms=1400.0),
    Attempt()))


def test_each_attempt_is_a_guardrail_span_of_its_own_with_what_it_rejected() -> None:
    spans = build_spans(_report(_result("q1")), {"q1": REGENERATED})
    attempts = [s for s in spans if s.name == "attempt"]
    assert len(attempts) == 3 and list(spans[-3:]) == attempts
    first, kept, untimed = attempts
    root = spans[0]
    assert all(a.parent_id == root.span_id for a in attempts)
    assert (first.start_ns, first.end_ns) == (_ns(START), _ns(START) + 1500 * 10**6)
    assert first.attributes["openinference.span.kind"] == "GUARDRAIL"
    assert first.attributes["sourcegate.attempt.rejected"] == (INVENTED,)
    assert first.attributes["sourcegate.attempt.kept"] is False and kept.attributes["sourcegate.attempt.kept"] is True
    assert json.loads(str(first.attributes["output.value"]))[1] == {
        "check": "no_citations", "url": None, "message": "the answer cites no source"}
    assert [(e.name, e.attributes.get("url.full")) for e in first.events] == [
        ("sourcegate.rejection", INVENTED), ("sourcegate.rejection", None)]
    assert "sourcegate.attempt.rejected" not in kept.attributes and kept.events == ()
    # an attempt the trace did not time is an instant at the end of the run, and says so
    assert untimed.start_ns == untimed.end_ns == root.end_ns
    assert untimed.attributes["sourcegate.timing"] == "not_recorded"


def test_a_run_without_attempts_has_no_attempt_span() -> None:
    assert not [s for s in build_spans(_report(_result("q1")), {"q1": TIMED}) if s.name == "attempt"]
