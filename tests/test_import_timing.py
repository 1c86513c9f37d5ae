"""Importers carry time and usage where the record holds them: a Langfuse export keeps its durations and
generations, LangSmith its runs' times and tokens, the Anthropic and OpenAI responses their usage,
and sourcegate's own spans come back as the trace they were written from, moved to export time or not."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gate.deliver.spans import build_spans
from gate.deliver.spans.otel import encode_json_lines
from gate.deliver.spans.timing import restamp
from gate.importers import convert
from gate.load.golden import parse_trace
from gate.results import CaseResult, Counts
from gate.verdict.report import Report
from tests.test_spans_tree import TIMED

IMPORTS = Path(__file__).parent / "fixtures" / "import"


def _convert(fmt: str, name: str) -> dict[str, Any]:
    return convert(fmt, (IMPORTS / name).read_text(encoding="utf-8"), question="q", case="q1")


def test_an_imported_langfuse_export_keeps_its_durations_and_its_generations() -> None:
    trace = _convert("langfuse", "langfuse/agno-2025-06-11.json")
    # duckduckgo_search: 14:01:33.564 to 14:01:34.281
    assert trace["searches"] == [{"query": 0, "started_at": "2025-06-11T14:01:33.564000Z", "duration_ms": 717.0}]
    # the two "chat gpt-4o-mini" calls, not the OpenAIChat.invoke wrappers around them
    calls = trace["model_calls"]
    assert [(c["started_at"], c["duration_ms"], c["input_tokens"], c["output_tokens"]) for c in calls] == [
        ("2025-06-11T14:01:32.606000Z", 953.0, 163, 20), ("2025-06-11T14:01:34.296000Z", 4793.0, 663, 225)]
    assert [c["cost_usd"] for c in calls] == [3.645e-05, 0.000234449999]  # as Langfuse priced them
    run = parse_trace(trace, "<import>", "q1")
    spans = {s.name: s for s in build_spans(_report(), {"q1": run})}
    assert spans["web_search"].end_ns - spans["web_search"].start_ns == 717_000_000


def test_langsmith_runs_keep_their_times_and_tokens() -> None:
    [call] = _convert("langsmith", "langsmith/langsmith-sdk.langsmith_js_wrap_openai_default.json")["model_calls"]
    assert call == {"started_at": "2024-10-13T07:05:37.170000Z", "duration_ms": 1115.0,
                    "model": "gpt-4o-mini-2024-07-18", "input_tokens": 9, "output_tokens": 9,
                    "cache_read_tokens": 0, "cache_write_tokens": 0}  # not in the price table: no cost


def test_api_responses_keep_their_usage_and_the_stream_its_final_counts() -> None:
    [whole] = _convert("anthropic", "anthropic/vercel-ai.anthropic-web-search-tool.1.json")["model_calls"]
    assert (whole["input_tokens"], whole["output_tokens"]) == (27118, 600) and "started_at" not in whole
    [streamed] = _convert("anthropic", "anthropic/vercel-ai.anthropic-web-search-tool.1.chunks.txt")["model_calls"]
    assert streamed["output_tokens"] > 1  # message_delta's count, not message_start's placeholder
    [openai] = _convert("openai-responses", "openai/vercel-ai.openai-web-search-tool.1.json")["model_calls"]
    assert (openai["input_tokens"], openai["cache_read_tokens"]) == (19681 - 3712, 3712)
    assert openai["cost_usd"] == (15969 * 0.25 + 3712 * 0.025 + 3773 * 2.0) / 1_000_000  # gpt-5-mini's prices


def _report() -> Report:
    return Report(verdict="pass", reasons=(), golden_name="news", golden_version=1,
                  cases=(CaseResult(id="q1", question="q", hard_failures=(), checks=(), counts=Counts()),))


def test_sourcegate_s_own_spans_come_back_with_their_times_even_moved_to_export_time() -> None:
    spans = build_spans(_report(), {"q1": TIMED})
    now = int(datetime(2026, 11, 30, tzinfo=UTC).timestamp()) * 10**9
    for written in (spans, restamp(spans, now)):
        back = parse_trace(convert("otlp", encode_json_lines(written), case="q1"), "<import>", "q1")
        assert back.started_at == TIMED.started_at
        assert sorted(back.searches, key=lambda c: c.query) == sorted(TIMED.searches, key=lambda c: c.query)
        assert [(p.started_at, p.duration_ms) for p in back.pages] == [(p.started_at, p.duration_ms)
                                                                       for p in TIMED.pages]
        first, second = TIMED.model_calls
        # a call the trace did not price is priced from the gate's table when it is imported
        assert back.model_calls == (replace(first, cache_read_tokens=0, cache_write_tokens=0,
                                            cost_usd=(100 * 3.0 + 20 * 15.0) / 1_000_000), second)


def test_spans_that_say_their_times_were_not_recorded_import_no_times() -> None:
    untimed = parse_trace({"format": "sourcegate-trace/1", "question": "q", "queries": ["a"], "results": [],
                           "pages": [{"url": "https://a.example/", "text": "t"}], "answer": "x",
                           "started_at": "2026-03-01T12:00:00Z"}, "<t>", "q1")
    back = convert("otlp", encode_json_lines(build_spans(_report(), {"q1": untimed})), case="q1")
    assert "searches" not in back and "model_calls" not in back and "started_at" not in back["pages"][0]


def test_a_beeai_search_runs_from_its_start_event_to_its_finish_event() -> None:
    trace = _convert("langfuse", "langfuse/beeai-2025-08-01.json")
    # tool.search.wikipedia.start-12 at 13:56:55.683, .finish-12 at 13:56:57.468 (each event span "ends"
    # at 13:57:11.334, with the whole run)
    assert trace["searches"] == [{"query": 0, "started_at": "2025-08-01T13:56:55.683000Z", "duration_ms": 1785.0}]
