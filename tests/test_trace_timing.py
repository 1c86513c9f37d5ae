"""``sourcegate-trace/1``'s optional time and usage: each search, page read and model call, written and
read back unchanged; a trace without them is what it always was."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gate.errors import InputError
from gate.files.jsonio import validate
from gate.load.golden import load_trace, parse_trace
from gate.model import ModelCall, Page, Run, SearchCall, SearchResult
from gate.record.trace import trace_dict

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
TIMED = Run(
    case="q1", question="Is it raining?", answer="Yes.", queries=("rain today",),
    results=(SearchResult(0, 1, "Rain", "https://a.example/x", "It rained"),),
    pages=(Page("https://a.example/x", "It rained.", status=200, fetched_at=START,
                started_at=datetime(2026, 3, 1, 12, 0, 1, 250_000, tzinfo=UTC), duration_ms=30.5),),
    started_at=START,
    searches=(SearchCall(0, datetime(2026, 3, 1, 12, 0, 0, 500_000, tzinfo=UTC), 50.0, cost_usd=0.005),),
    model_calls=(ModelCall(datetime(2026, 3, 1, 12, 0, 2, tzinfo=UTC), 812.25, "claude-sonnet-4-5", 1200, 300,
                           cache_read_tokens=4000, cache_write_tokens=0, cost_usd=0.0093),))


def test_time_and_usage_are_written_and_read_back_unchanged() -> None:
    data = trace_dict(TIMED)
    validate(data, "trace", "<test>")
    assert data["searches"] == [{"query": 0, "started_at": "2026-03-01T12:00:00.500000Z", "duration_ms": 50.0,
                                 "cost_usd": 0.005}]
    assert data["pages"][0]["started_at"] == "2026-03-01T12:00:01.250000Z"
    assert data["model_calls"][0]["input_tokens"] == 1200
    back = parse_trace(json.loads(json.dumps(data)), "<test>", "q1")
    assert back.searches == TIMED.searches and back.model_calls == TIMED.model_calls
    assert back.pages == TIMED.pages


def test_a_trace_without_them_keeps_its_shape() -> None:
    plain = Run(case="q1", question="Is it raining?", answer="Yes.", pages=(Page("https://a.example/x", "t"),))
    data = trace_dict(plain)
    assert "searches" not in data and "model_calls" not in data
    assert set(data["pages"][0]) == {"url", "final_url", "status", "text", "truncated", "fetched_at", "published"}
    assert parse_trace(data, "<test>", "q1").searches == ()


def _write(tmp_path: Path, data: dict[str, object]) -> str:
    path = tmp_path / "q1.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_a_search_timing_for_a_query_that_is_not_there_names_its_place(tmp_path: Path) -> None:
    data = trace_dict(TIMED)
    data["searches"][0]["query"] = 3
    with pytest.raises(InputError) as caught:
        load_trace(_write(tmp_path, data))
    assert "$.searches[0].query" in str(caught.value) and "1 queries" in str(caught.value)


@pytest.mark.parametrize(("where", "value"), [("pages", -1), ("model_calls", "fast")])
def test_a_duration_that_is_not_one_is_refused_with_its_path(tmp_path: Path, where: str, value: object) -> None:
    data = trace_dict(TIMED)
    data[where][0]["duration_ms"] = value  # type: ignore[index]
    with pytest.raises(InputError) as caught:
        load_trace(_write(tmp_path, data))
    assert f"$.{where}[0].duration_ms" in str(caught.value)
