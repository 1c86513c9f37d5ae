"""A trace ``sourcegate run`` assembles from what the replay server answered: each search and page read
timed as it was served, inside the run, so its spans have no child before its parent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gate.cli import main
from tests.support.otlp_receiver import attributes, decode_json_lines, spans_of
from tests.support.run_golden import PLAN_ENV, faithful_plan, make_golden, scripted_agent

EURO = "euro-adoption-after-2010"


def test_a_served_trace_is_timed_inside_the_run_and_its_spans_nest(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    golden = make_golden(tmp_path / "set", [EURO])
    monkeypatch.setenv(PLAN_ENV, json.dumps({EURO: faithful_plan(EURO)}))
    assert main(["run", str(golden), "--", *scripted_agent(tmp_path)]) == 0
    trace = json.loads((golden / "runs" / f"{EURO}.json").read_text(encoding="utf-8"))
    assert trace["replay"]["served"] is True
    assert [c["query"] for c in trace["searches"]] == list(range(len(trace["queries"])))
    started = trace["started_at"]
    for timed in (*trace["searches"], *trace["pages"]):
        assert timed["started_at"] >= started and timed["duration_ms"] >= 0
    out = tmp_path / "spans.jsonl"
    main(["check", str(golden), "--judge", "off", "--otlp-json", str(out), "--json", str(tmp_path / "r.json")])
    spans = spans_of(decode_json_lines(out.read_text(encoding="utf-8")))
    by_id = {s.span_id: s for s in spans}
    for s in spans:
        if s.parent_span_id:
            parent = by_id[s.parent_span_id]
            assert parent.start_time_unix_nano <= s.start_time_unix_nano <= s.end_time_unix_nano
            assert s.end_time_unix_nano <= parent.end_time_unix_nano
    timings = {attributes(s)["sourcegate.timing"] for s in spans if s.name in ("search", "fetch_page")}
    assert timings == {"recorded"}
    searches = sorted((s for s in spans if s.name == "search"), key=lambda s: s.start_time_unix_nano)
    assert [attributes(s)["input.value"] for s in searches] == trace["queries"]  # in the order they were asked
