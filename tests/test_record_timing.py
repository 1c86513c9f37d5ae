"""The Recorder times what it already wraps, and records the model calls it is given to wrap: each
search, page read and model call with its start and duration, the model's tokens and their cost."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import anthropic

from gate.deliver.spans import build_spans
from gate.load.golden import parse_trace
from gate.model import ModelCall
from gate.record import Recorder
from gate.results import CaseResult, Counts
from gate.verdict.report import Report

FIXTURES = Path(__file__).parent / "fixtures"
BRAVE = json.loads((FIXTURES / "search-apis" / "go-brave-search.testdata.web_search_response.json")
                   .read_text(encoding="utf-8"))
MESSAGE = json.loads((FIXTURES / "anthropic" / "vercel-ai.anthropic-text.json").read_text(encoding="utf-8"))
RESPONSE = json.loads((FIXTURES / "import" / "openai" / "vercel-ai.openai-web-search-tool.1.json")
                      .read_text(encoding="utf-8"))
START = datetime(2026, 10, 2, 9, 14, tzinfo=UTC)


class Timer:
    """A monotonic timer the tools move on by as long as they take: what they take, exactly."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def take(self, ms: float) -> None:
        self.now += ms / 1000


def _recorder(timer: Callable[[], float] = time.perf_counter) -> Recorder:
    return Recorder("What is Go?", case="go", clock=lambda: START, environ={}, timer=timer)


def _agent(rec: Recorder, timer: Timer) -> None:
    @rec.search(provider="brave")
    def web_search(query: str) -> dict[str, Any]:
        timer.take(50)
        return BRAVE

    @rec.read
    def read_page(url: str) -> str:
        timer.take(30)
        return "Go is an open source programming language."

    timer.take(5)
    web_search("go language")
    timer.take(2)
    read_page("https://go.dev/")
    rec.answer("Go is a language (https://go.dev/).")


def _spans(rec: Recorder) -> dict[str, Any]:
    run = parse_trace(rec.trace(), "<recording>", "go")
    report = Report(verdict="pass", reasons=(), golden_name="go", golden_version=1,
                    cases=(CaseResult(id="go", question=run.question, hard_failures=(), checks=(),
                                       counts=Counts()),))
    return {s.name: s for s in build_spans(report, {"go": run})}


def test_a_50_ms_search_and_a_30_ms_read_give_tool_spans_of_those_durations() -> None:
    timer = Timer()
    rec = _recorder(timer)
    _agent(rec, timer)
    data = rec.trace()
    assert data["searches"] == [{"query": 0, "started_at": "2026-10-02T09:14:00.005000Z", "duration_ms": 50.0,
                                 "provider": "brave"}]  # the provider prices the call
    page = data["pages"][0]
    assert page["started_at"] == "2026-10-02T09:14:00.057000Z" and page["duration_ms"] == 30.0
    spans = _spans(rec)
    assert spans["web_search"].end_ns - spans["web_search"].start_ns == 50_000_000
    assert spans["fetch_page"].end_ns - spans["fetch_page"].start_ns == 30_000_000
    assert spans["web_search"].start_ns < spans["fetch_page"].start_ns


def test_on_the_real_clock_a_call_lasts_at_least_as_long_as_it_sleeps() -> None:
    rec = _recorder()

    @rec.search(provider="brave")
    def web_search(query: str) -> dict[str, Any]:
        time.sleep(0.05)
        return BRAVE

    web_search("go language")
    rec.answer("Go.")
    spans = _spans(rec)
    assert spans["web_search"].end_ns - spans["web_search"].start_ns >= 50_000_000
    assert spans["web_search"].start_ns >= spans["case go"].start_ns


def test_async_tools_are_timed_the_same_way() -> None:
    timer = Timer()
    rec = _recorder(timer)

    @rec.read
    async def read_page(url: str) -> str:
        await asyncio.sleep(0)
        timer.take(30)
        return "text"

    asyncio.run(read_page("https://go.dev/"))
    rec.answer("Go.")
    assert rec.trace()["pages"][0]["duration_ms"] == 30.0


def test_model_calls_keep_the_model_the_tokens_and_the_price_table_s_cost() -> None:
    timer = Timer()
    rec = _recorder(timer)

    def create(**kwargs: Any) -> anthropic.types.Message:
        timer.take(812)
        return anthropic.types.Message.model_validate(MESSAGE)

    messages = rec.model(create)
    reply = messages(model="claude-sonnet-4-5", max_tokens=100, messages=[])
    assert isinstance(reply, anthropic.types.Message)  # what the SDK returned, unchanged
    responses = rec.model(lambda **kwargs: RESPONSE)  # a dict of the Responses API's shape
    responses(model="gpt-5-mini", input="...")
    rec.answer("Hello.")
    first, second = rec.run().model_calls
    # claude-sonnet-4-5-20250929 is priced as claude-sonnet-4-5: 12 in at $3/M, 29 out at $15/M
    assert first == ModelCall(START + timedelta(seconds=0), 812.0, "claude-sonnet-4-5-20250929", 12, 29, 0, 0,
                              (12 * 3.0 + 29 * 15.0) / 1_000_000)
    # OpenAI counts cached tokens inside input_tokens: 19681 - 3712 uncached, 3712 read from the cache
    assert (second.input_tokens, second.cache_read_tokens, second.output_tokens) == (15969, 3712, 3773)
    assert second.cost_usd == (15969 * 0.25 + 3712 * 0.025 + 3773 * 2.0) / 1_000_000
    back = parse_trace(rec.trace(), "<recording>", "go").model_calls
    assert back == (first, second)


def test_a_model_the_table_does_not_price_has_no_cost_and_a_stream_is_timed_only() -> None:
    rec = _recorder(Timer())
    rec.model(lambda: {**MESSAGE, "model": "some-local-model"})()
    rec.model(lambda: iter(()))()
    rec.answer("Hello.")
    priced, stream = rec.run().model_calls
    assert priced.input_tokens == 12 and priced.cost_usd is None
    assert stream.model is None and stream.input_tokens is None and stream.duration_ms == 0.0
