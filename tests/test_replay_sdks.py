"""The providers' own client libraries, pointed at ``$SOURCEGATE_REPLAY_URL``, replay a golden set unchanged.

Each agent is a real process written with an official SDK (``tests/support/sdk_agents/``): Tavily's,
Exa's, SerpApi's, Serply's, and LangChain's Tavily tools. It runs under ``sourcegate run`` on a golden
set whose snapshot ``sourcegate snapshot build`` made from the recorded runs, so every answer it gets
is rendered in its provider's shape from the neutral recording. The traces must hold the queries and
pages, and the set must pass. Whatever the snapshot cannot answer is a ``replay_miss`` naming the
provider and the request, and the SDK raises its own error. No agent reaches past loopback: each
installs the suite's network guard before it imports its SDK.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from gate.cli import main
from tests.support.preloaded import Preloaded
from tests.support.run_golden import failures_of, faithful_plan, make_golden, trace_of

ROOT = Path(__file__).resolve().parent.parent
AGENTS = Path(__file__).resolve().parent / "support" / "sdk_agents"
PLAN_ENV = "SDK_AGENT_PLAN"  # what the agents read their plan from (sdk_agents/common.py)
EURO = "euro-adoption-after-2010"
SLOTS = "python-dataclass-slots"


def _built(tmp_path: Path, cases: list[str]) -> Path:
    """A golden set with these example cases and their runs, its snapshot built by ``snapshot build``."""
    golden = make_golden(tmp_path / "set", cases)
    shutil.rmtree(golden / "snapshot")
    assert main(["snapshot", "build", str(golden)]) == 0
    return golden


def _plan(case: str, **more: Any) -> dict[str, Any]:
    done = faithful_plan(case)
    cited = {"citations": done["citations"]} if "citations" in done else {}  # else read from the answer
    return {"search": done["search"], "read": done["fetch"], "answer": done["answer"], **cited, **more}


@pytest.fixture(scope="module")
def python() -> Iterator[Preloaded]:
    """The interpreter the SDK agents' processes are forked from: the guard installed, then the SDKs
    imported once (``tests/support/guarded_sdks.py``), not once per case."""
    with Preloaded(["tests.support.guarded_sdks"], {**os.environ, "PYTHONPATH": str(ROOT)}) as preloaded:
        yield preloaded


def _run(golden: Path, agent: str, plans: dict[str, Any], tmp_path: Path,
         monkeypatch: pytest.MonkeyPatch, python: Preloaded | None = None) -> dict[str, Any]:
    monkeypatch.setenv(PLAN_ENV, json.dumps(plans))
    report = tmp_path / "report.json"
    command = [sys.executable, str(AGENTS / agent)] if python is None else python.command(AGENTS / agent)
    code = main(["run", str(golden), "--check", "--judge", "off", "--json", str(report), "--", *command])
    data: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    data["exit"] = code
    return data


@pytest.mark.parametrize("agent", ["tavily_agent.py", "exa_agent.py", "langchain_tavily_agent.py"])
def test_an_sdk_agent_re_runs_a_built_set_and_passes(agent: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                    python: Preloaded) -> None:
    golden = _built(tmp_path, [EURO, SLOTS])
    report = _run(golden, agent, {EURO: _plan(EURO), SLOTS: _plan(SLOTS)}, tmp_path, monkeypatch, python)
    assert (report["exit"], report["verdict"]) == (0, "pass"), report
    for case in (EURO, SLOTS):
        trace = trace_of(golden, case)
        assert trace["replay"]["misses"] == [] and trace["replay"]["agent_error"] is None
        assert trace["queries"] == faithful_plan(case)["search"]
        assert trace["results"] and {r["query"] for r in trace["results"]} == set(range(len(trace["queries"])))
        read = [p["url"] for p in trace["pages"]]
        assert set(faithful_plan(case)["fetch"]) <= set(read)
        assert all(p["text"] for p in trace["pages"])
        assert "SDK error" not in trace["answer"]
        # each search and page read through the provider's routes is timed inside the run
        assert [c["query"] for c in trace["searches"]] == list(range(len(trace["queries"])))
        started = datetime.fromisoformat(trace["started_at"])
        for timed in (*trace["searches"], *trace["pages"]):
            assert datetime.fromisoformat(timed["started_at"]) >= started and timed["duration_ms"] >= 0


@pytest.mark.parametrize("agent", ["serpapi_agent.py", "serply_agent.py"])
def test_a_search_sdk_with_a_plain_page_fetch_re_runs_and_passes(agent: str, tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    golden = _built(tmp_path, [EURO])
    report = _run(golden, agent, {EURO: _plan(EURO)}, tmp_path, monkeypatch)
    assert (report["exit"], report["verdict"]) == (0, "pass"), report
    trace = trace_of(golden, EURO)
    assert trace["replay"]["misses"] == [] and trace["queries"] == faithful_plan(EURO)["search"]
    assert [p["url"] for p in trace["pages"]] == faithful_plan(EURO)["fetch"]
    assert trace["pages"][0]["status"] == 200 and "eurozone" in trace["pages"][0]["text"]


def test_what_the_snapshot_cannot_answer_is_a_miss_and_the_sdk_s_own_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    golden = _built(tmp_path, [EURO])
    plan = _plan(EURO, crawl="https://en.wikipedia.org/")
    plan["search"] = [*plan["search"], "euro adoption 2027 candidates"]
    plan["read"] = [*plan["read"], "https://example.org/not-recorded"]
    report = _run(golden, "tavily_agent.py", {EURO: plan}, tmp_path, monkeypatch)
    assert report["exit"] == 1 and report["verdict"] == "fail"
    trace = trace_of(golden, EURO)
    assert trace["replay"]["misses"] == [
        {"layer": "search", "key": "euro adoption 2027 candidates", "provider": "tavily",
         "request": "POST /search", "reason": "not in the snapshot"},
        {"layer": "pages", "key": "https://example.org/not-recorded", "provider": "tavily",
         "request": "POST /extract", "reason": "not in the snapshot"},
        {"layer": "route", "key": "POST /crawl", "provider": "tavily", "request": "POST /crawl",
         "reason": "the route is not implemented by the replay server"},
    ]
    assert "SDK error: BadRequestError" in trace["answer"]  # the SDK raised its own error type
    assert "failed: https://example.org/not-recorded" in trace["answer"]
    messages = [f["message"] for f in failures_of(report, EURO) if f["check"] == "replay_miss"]
    assert len(messages) == 3
    assert "'euro adoption 2027 candidates' (tavily, POST /search) is not in the snapshot" in messages[0]
    # the agent's command as this machine's paths would not say it: a script inside the working folder
    # relative to it (the suite runs from the repository)
    script = os.path.relpath(AGENTS / "tavily_agent.py") if str(AGENTS).startswith(os.getcwd()) else str(
        AGENTS / "tavily_agent.py")
    assert f"`sourcegate run {golden} --record -- " in messages[0] and f"{script}`" in messages[0]
    assert "POST /crawl is not a route of the replay server (tavily's API): not implemented" in messages[2]


def test_a_parameter_that_changes_the_answer_is_a_miss_and_a_timeout_is_not(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    golden = _built(tmp_path, [EURO])
    plans = {EURO: _plan(EURO, options={"topic": "news", "timeout": 30})}
    report = _run(golden, "tavily_agent.py", plans, tmp_path, monkeypatch)
    assert report["verdict"] == "fail"
    misses = trace_of(golden, EURO)["replay"]["misses"]
    news = "topic 'news' differs from the recording's (none: the provider's default)"
    assert [m["reason"] for m in misses] == [news, news]
    assert [m["key"] for m in misses] == faithful_plan(EURO)["search"]
    plans = {EURO: _plan(EURO, options={"timeout": 30, "include_answer": True, "max_results": 5})}
    report = _run(golden, "tavily_agent.py", plans, tmp_path, monkeypatch)
    assert report["verdict"] == "pass" and trace_of(golden, EURO)["replay"]["misses"] == []
