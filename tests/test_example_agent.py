"""The example agents end to end: ``sourcegate run`` runs them as real processes against the replay
server and the loopback Messages API (scripted tool use), and the gate judges what they produced.

The Python agent (``examples/agent/agent.py``) uses the Anthropic SDK and the recorder; the Node
agent (``examples/agent-node/agent.mjs``) uses plain ``fetch`` and prints its answer on stdout.

Each case of the Python agent is its own process, forked from one interpreter that imported the SDK
and the recorder once (``tests/support/preloaded.py``): the SDK's import costs seconds of CPU, the
same in every case. That interpreter also did, in memory, what each agent process would otherwise
redo on its first request and its guard (``tests/support/agent_warmup.py``).
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from gate.cli import main
from gate.pipeline import run_paths
from tests.support.anthropic_server import AnthropicServer, Reply, Request, tool_reply
from tests.support.preloaded import Preloaded
from tests.support.run_golden import make_golden

ROOT = Path(__file__).resolve().parent.parent
PYTHON_AGENT = ROOT / "examples" / "agent" / "agent.py"
NODE = shutil.which("node")

EURO = "euro-adoption-after-2010"
SLOTS = "python-dataclass-slots"
UK = "uk-digital-switchover"
WIKI = "https://en.wikipedia.org/wiki/Enlargement_of_the_eurozone"
DOCS = "https://docs.python.org/3/library/dataclasses.html"
NEVER_SEEN = "https://realpython.com/python-dataclass-slots/"
WIKI_QUOTE = "Latvia followed on 1 January 2014 at 0.702804 lats per euro"
DOCS_QUOTE = "This module provides a decorator and functions for automatically adding generated special methods"

# What the model does for each question, turn by turn: a tool call (name, input) per turn.
SCRIPT: dict[str, list[tuple[str, dict[str, Any]]]] = {
    "Which EU member states adopted the euro": [
        ("web_search", {"query": "EU member states adopted euro after 2010"}),
        ("read_page", {"url": WIKI}),
        ("final_answer", {"answer": f"Estonia, Latvia, Lithuania, Croatia and Bulgaria [{WIKI}].",
                          "citations": [{"url": WIKI, "quote": WIKI_QUOTE}]}),
    ],
    "@dataclass generate __slots__": [  # cites a URL it never saw, in its text and its list
        ("web_search", {"query": "python dataclass slots parameter version"}),
        ("read_page", {"url": DOCS}),
        ("final_answer", {"answer": f"Since Python 3.10, with @dataclass(slots=True) (see {NEVER_SEEN}).",
                          "citations": [{"url": DOCS, "quote": DOCS_QUOTE}, {"url": NEVER_SEEN}]}),
    ],
    "analogue TV signal": [  # searches for something the snapshot does not hold
        ("web_search", {"query": "when did analogue tv end in the uk"}),
        ("final_answer", {"answer": "I could not find it.", "citations": []}),
    ],
}


# What the model answers once it is told that a URL it cited was rejected: the same, without that URL.
TOLD: dict[str, tuple[str, dict[str, Any]]] = {
    NEVER_SEEN: ("final_answer", {"answer": "Since Python 3.10, with @dataclass(slots=True).",
                                  "citations": [{"url": DOCS, "quote": DOCS_QUOTE}]}),
}


def told(request: Request) -> list[str]:
    """What the model was told in tool results so far (the agent's guard says so in final_answer's)."""
    return [str(block.get("content")) for m in request.body.get("messages", []) if m.get("role") == "user"
            and isinstance(m.get("content"), list) for block in m["content"] if block.get("type") == "tool_result"]


def responder(request: Request) -> Reply:
    """The scripted model: which question, then which turn of it; told that a URL was rejected, it
    answers without it."""
    heard = told(request)
    again = next((step for url, step in TOLD.items() if any(url in text for text in heard)), None)
    if again is not None:
        return tool_reply(request, again[1], name=again[0])
    steps = next(s for q, s in SCRIPT.items() if q in request.user_text)
    name, tool_input = steps[min(request.turn, len(steps) - 1)]
    return tool_reply(request, tool_input, name=name)


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[AnthropicServer]:
    with AnthropicServer(responder) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", server.api_key)
        monkeypatch.setenv("PYTHONPATH", str(ROOT))
        yield server


@pytest.fixture(scope="module")
def python() -> Iterator[Preloaded]:
    """The interpreter the Python agent's processes are forked from: the SDK and the recorder imported, and
    what an agent does once per process done (``tests/support/agent_warmup.py``)."""
    modules = ["argparse", "urllib.request", "anthropic", "gate.record", "tests.support.agent_warmup"]
    with Preloaded(modules, {**os.environ, "PYTHONPATH": str(ROOT)}) as preloaded:
        yield preloaded


def _failed(golden: Path) -> dict[str, set[str]]:
    report = run_paths([str(golden)], None, judge_mode="off")
    return {c.id: {f.check for f in c.hard_failures} for c in report.cases}


def _trace(golden: Path, case: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((golden / "runs" / f"{case}.json").read_text(encoding="utf-8"))
    return data


def test_the_python_agent_is_gated_on_what_it_saw(tmp_path: Path, api: AnthropicServer, python: Preloaded) -> None:
    golden = make_golden(tmp_path / "set", [EURO, SLOTS, UK])
    code = main(["run", str(golden), "--jobs", "3", "--check", "--judge", "off", "--json", str(tmp_path / "r.json"),
                 "--", *python.command(PYTHON_AGENT, "--no-guard")])
    assert code == 1
    failed = _failed(golden)
    assert failed[EURO] == set()
    assert failed[SLOTS] == {"fabricated_url"}
    assert "replay_miss" in failed[UK]
    euro = _trace(golden, EURO)
    assert euro["replay"]["served"] is False  # the recorder's own trace: what the model saw
    assert euro["agent"]["name"] == "sourcegate-example-agent"
    assert euro["queries"] == ["EU member states adopted euro after 2010"]
    assert [p["url"] for p in euro["pages"]] == [WIKI] and len(euro["pages"][0]["text"]) <= 8000
    # every model call of the run, timed, with the tokens the API reported and their price
    calls = euro["model_calls"]
    assert len(calls) == 3 and all(c["input_tokens"] > 0 and c["output_tokens"] > 0 for c in calls)
    assert all(c["cost_usd"] > 0 and c["duration_ms"] >= 0 for c in calls)
    assert [c["started_at"] for c in calls] == sorted(c["started_at"] for c in calls)
    uk = _trace(golden, UK)
    assert uk["replay"]["misses"] == [{"layer": "search", "key": "when did analogue tv end in the uk",
                                       "provider": "trace", "request": "GET /search",
                                       "reason": "not in the snapshot"}]
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    messages = [f["message"] for c in report["cases"] if c["id"] == UK for f in c["hard_failures"]]
    assert any("'when did analogue tv end in the uk'" in m and f"`sourcegate run {golden} --record -- " in m
               for m in messages)
    assert api.calls == 3 + 3 + 2


def test_the_agent_regenerates_without_the_url_its_guard_rejected(tmp_path: Path, api: AnthropicServer,
                                                                   python: Preloaded) -> None:
    golden = make_golden(tmp_path / "set", [SLOTS])
    out = {kind: tmp_path / f"r.{kind}" for kind in ("json", "html", "jsonl")}
    assert main(["run", str(golden), "--check", "--judge", "off", "--json", str(out["json"]), "--html",
                 str(out["html"]), "--otlp-json", str(out["jsonl"]), "--", *python.command(PYTHON_AGENT)]) == 0
    # the model was told which URL was rejected and why, as the result of its final_answer call
    [message] = [text for text in told(api.requests[-1]) if NEVER_SEEN in text]
    assert f"- {NEVER_SEEN}: fabricated_url: cited {NEVER_SEEN} but no search result" in message
    assert api.calls == 4  # search, read, the first answer, the answer once told
    # the trace: the answer without the link (nothing removed by hand: the model wrote it so), every attempt
    trace = _trace(golden, SLOTS)
    assert NEVER_SEEN not in trace["answer"] and [c["url"] for c in trace["citations"]] == [DOCS]
    first, second = trace["attempts"]
    assert (first["rejected"], first.get("kept", False)) == ([NEVER_SEEN], False)
    assert [f["check"] for f in first["findings"]] == ["fabricated_url"]
    assert (second["rejected"], second["findings"], second["kept"]) == ([], [], True)
    # the report: no failure, the attempts, and the case counted as one that needed a regeneration
    [case] = json.loads(out["json"].read_text(encoding="utf-8"))["cases"]
    assert case["hard_failures"] == [] and case["soft"]["regeneration_rate"] == 1.0
    assert [a["rejected"] for a in case["attempts"]] == [[NEVER_SEEN], []]
    page = out["html"].read_text(encoding="utf-8")
    assert "<h3>Attempts</h3><p>2 attempts; the answer is attempt 2.</p>" in page
    # the spans: an attempt span each, the rejected URL on the first
    [line] = out["jsonl"].read_text(encoding="utf-8").splitlines()
    spans = json.loads(line)["resourceSpans"][0]["scopeSpans"][0]["spans"]
    attempts = [{a["key"]: a["value"] for a in s["attributes"]} for s in spans if s["name"] == "attempt"]
    assert [a["openinference.span.kind"]["stringValue"] for a in attempts] == ["GUARDRAIL", "GUARDRAIL"]
    assert attempts[0]["sourcegate.attempt.rejected"]["arrayValue"]["values"] == [{"stringValue": NEVER_SEEN}]
    assert attempts[1]["sourcegate.attempt.kept"] == {"boolValue": True}


def test_an_agent_that_keeps_citing_a_rejected_url_gives_up_and_is_failed_for_it(
        tmp_path: Path, python: Preloaded, monkeypatch: pytest.MonkeyPatch) -> None:
    def stubborn(request: Request) -> Reply:  # never listens: the same answer every time
        steps = SCRIPT["@dataclass generate __slots__"]
        name, tool_input = steps[min(request.turn, len(steps) - 1)]
        return tool_reply(request, tool_input, name=name)

    golden = make_golden(tmp_path / "set", [SLOTS])
    with AnthropicServer(stubborn) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", server.api_key)
        assert main(["run", str(golden), "--", *python.command(PYTHON_AGENT)]) == 0
        assert server.calls == 3 + 2  # three drafts: the first after a search and a read
    trace = _trace(golden, SLOTS)
    assert len(trace["attempts"]) == 3 and trace["attempts"][-1]["kept"] is True  # the last draft, as it was
    assert _failed(golden)[SLOTS] == {"fabricated_url", "rejected_url_kept"}


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_node_agent_gets_a_trace_from_what_it_was_served(tmp_path: Path, api: AnthropicServer) -> None:
    assert NODE is not None
    golden = make_golden(tmp_path / "set", [EURO, SLOTS, UK])
    agent = str(ROOT / "examples" / "agent-node" / "agent.mjs")
    assert main(["run", str(golden), "--jobs", "3", "--", NODE, agent, "--no-guard"]) == 0
    failed = _failed(golden)
    assert failed[EURO] == set()
    assert failed[SLOTS] == {"fabricated_url"}
    assert "replay_miss" in failed[UK]
    euro = _trace(golden, EURO)
    assert euro["replay"]["served"] is True
    assert euro["queries"] == ["EU member states adopted euro after 2010"]
    assert [p["url"] for p in euro["pages"]] == [WIKI]


@pytest.mark.skipif(NODE is None, reason="node is not installed")
def test_the_node_agent_regenerates_through_the_replay_server_s_guard(tmp_path: Path, api: AnthropicServer) -> None:
    assert NODE is not None
    golden = make_golden(tmp_path / "set", [EURO, SLOTS])
    agent = str(ROOT / "examples" / "agent-node" / "agent.mjs")
    report = tmp_path / "r.json"
    assert main(["run", str(golden), "--jobs", "2", "--check", "--judge", "off", "--json", str(report), "--",
                 NODE, agent]) == 0
    # the replay server's guard named the rejected URL, and the model was told so
    last = [r for r in api.requests if "@dataclass generate __slots__" in r.user_text][-1]
    assert any(NEVER_SEEN in text and "fabricated_url" in text for text in told(last))
    slots = _trace(golden, SLOTS)
    assert slots["replay"]["served"] is True and NEVER_SEEN not in slots["answer"]
    assert [(a["rejected"], a.get("kept", False)) for a in slots["attempts"]] == [([NEVER_SEEN], False), ([], True)]
    first, second = slots["attempts"]
    # the first attempt runs from the case's start to its guard's end, the second from there
    assert first["started_at"] == slots["started_at"] and first["duration_ms"] > 0
    took = datetime.fromisoformat(second["started_at"]) - datetime.fromisoformat(first["started_at"])
    assert took.total_seconds() * 1000 == pytest.approx(first["duration_ms"], abs=0.01)
    assert [p["url"] for p in slots["pages"]] == [DOCS]  # a guarded draft is not a page read
    euro = _trace(golden, EURO)
    assert [(a["rejected"], a.get("kept", False)) for a in euro["attempts"]] == [([], True)]
    cases = {c["id"]: c for c in json.loads(report.read_text(encoding="utf-8"))["cases"]}
    assert cases[SLOTS]["hard_failures"] == [] and cases[SLOTS]["soft"]["regeneration_rate"] == 1.0
    assert cases[EURO]["soft"]["regeneration_rate"] == 0.0

