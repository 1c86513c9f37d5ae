"""A trace ``sourcegate run`` assembles from what the replay server answered: each search and page read
timed as it was served, inside the run, so its spans have no child before its parent."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path

import pytest

from gate.cli import main
from tests.support.otlp_receiver import attributes, decode_json_lines, spans_of
from tests.support.run_golden import PLAN_ENV, faithful_plan, make_golden, scripted_agent

EURO = "euro-adoption-after-2010"


def _when(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00"))


def test_a_served_trace_is_timed_inside_the_run_and_its_spans_nest(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    golden = make_golden(tmp_path / "set", [EURO])
    monkeypatch.setenv(PLAN_ENV, json.dumps({EURO: faithful_plan(EURO)}))
    assert main(["run", str(golden), "--", *scripted_agent(tmp_path)]) == 0
    trace = json.loads((golden / "runs" / f"{EURO}.json").read_text(encoding="utf-8"))
    assert trace["replay"]["served"] is True
    assert [c["query"] for c in trace["searches"]] == list(range(len(trace["queries"])))
    started = _when(trace["started_at"])
    for timed in (*trace["searches"], *trace["pages"]):
        assert _when(timed["started_at"]) >= started and timed["duration_ms"] >= 0
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


WALL_CLOCK_AGENT = r'''
import json, os, sys
from datetime import datetime, timedelta, timezone

# an agent that saves its own trace, timed on the wall clock rather than $SOURCEGATE_NOW
trace = json.load(open(sys.argv[1], encoding="utf-8"))
now = datetime.now(timezone.utc)
stamp = lambda ms: (now + timedelta(milliseconds=ms)).isoformat().replace("+00:00", "Z")
trace["started_at"] = stamp(0)
trace["searches"] = [{"query": i, "started_at": stamp(10 + 100 * i), "duration_ms": 50.0}
                     for i in range(len(trace["queries"]))]
for j, page in enumerate(trace["pages"]):
    page["started_at"], page["duration_ms"] = stamp(500 + 100 * j), 30.0
trace["model_calls"] = [{"started_at": stamp(900), "duration_ms": 20.0, "model": "claude-sonnet-4-5"}]
with open(os.environ["SOURCEGATE_TRACE_FILE"], "w", encoding="utf-8") as f:
    json.dump(trace, f)
print(json.dumps({"answer": trace["answer"]}))
'''


def test_an_agent_s_own_trace_on_the_wall_clock_moves_whole_to_the_recording_s_time(
        tmp_path: Path) -> None:
    golden = make_golden(tmp_path / "set", [EURO])
    recorded = json.loads((golden / "runs" / f"{EURO}.json").read_text(encoding="utf-8"))
    (tmp_path / "saved.json").write_text(json.dumps(recorded), encoding="utf-8")
    agent = tmp_path / "wall_clock_agent.py"
    agent.write_text(WALL_CLOCK_AGENT, encoding="utf-8")
    assert main(["run", str(golden), "--", sys.executable, "-I", "-S", str(agent), str(tmp_path / "saved.json")]) == 0
    trace = json.loads((golden / "runs" / f"{EURO}.json").read_text(encoding="utf-8"))
    assert trace["started_at"] == recorded["started_at"]  # the recording's clock dates the case
    started = _when(trace["started_at"])
    offsets = [(_when(t["started_at"]) - started).total_seconds() * 1000
               for t in (*trace["searches"], *trace["pages"], *trace["model_calls"])]
    assert [round(ms) for ms in offsets] == [10, 110, 500, 600, 700, 900]  # moved by as much, order and gaps kept
    out = tmp_path / "spans.jsonl"
    main(["check", str(golden), "--judge", "off", "--otlp-json", str(out), "--json", str(tmp_path / "r.json")])
    spans = spans_of(decode_json_lines(out.read_text(encoding="utf-8")))
    by_id = {s.span_id: s for s in spans}
    case = next(s for s in spans if not s.parent_span_id)
    assert (case.end_time_unix_nano - case.start_time_unix_nano) / 1e6 < 1000  # the run, not months
    for s in spans:
        if s.parent_span_id:
            parent = by_id[s.parent_span_id]
            assert parent.start_time_unix_nano <= s.start_time_unix_nano <= s.end_time_unix_nano
            assert s.end_time_unix_nano <= parent.end_time_unix_nano
