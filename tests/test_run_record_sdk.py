"""An agent written with Tavily's own client, recorded through ``sourcegate run --record``, then replayed.

The agent (``tests/support/sdk_agents/tavily_agent.py``) knows only ``$SOURCEGATE_REPLAY_URL``, its
client's base URL. Recording, the replay server answers its ``POST /search`` by asking Tavily (a
loopback stand-in, allowed through ``record.allow``, its endpoint set in ``sourcegate.yaml`` as
record mode allows) with the agent's own parameters and the key from the environment, and keeps
them in the search entry; its ``POST /extract`` by asking Tavily's ``/extract`` beside it, never the
site: the snapshot keeps what Tavily read (a page the site refuses to serve directly included).
Replaying, the same routes answer from the snapshot alone, and the set passes; a parameter that
changes the answer is a miss whose message names the command that records it. A recording that
left something unrecorded exits 3, its last line naming the command that records it.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from gate.cli import main
from tests.support.run_golden import as_traced
from tests.support.tavily_api import TavilyApi

AGENT = Path(__file__).resolve().parent / "support" / "sdk_agents" / "tavily_agent.py"
KEY = "tvly-live-0123456789abcdef"
CASE = "pin-actions"
QUERY = "why pin github actions to a commit sha"
QUOTE = "a tag can move"
FAILING = "what does tavily answer with a 500"


@pytest.fixture
def tavily() -> Any:
    with TavilyApi({"/pinning": ("Pinning actions", f"Pin actions to a full-length commit SHA: {QUOTE}."),
                    "/tags": ("Git tags", "A tag is a name for a commit; it can be moved with --force.")},
                   failing=frozenset({FAILING}), blocked=frozenset({"/pinning"})) as api:
        yield api


def _new_set(root: Path, tavily: TavilyApi, cases: tuple[str, ...] = (CASE,)) -> Path:
    root.mkdir(parents=True)
    (root / "golden.yaml").write_text(yaml.safe_dump({
        "format": "sourcegate-golden/1", "version": 1, "name": "mine",
        "cases": [{"id": c, "question": "Why pin GitHub Actions to a commit SHA?"} for c in cases]}),
        encoding="utf-8")
    config = {"record": {"search": {"tavily": {"endpoint": tavily.url("/search"), "key_env": "TAVILY_LIVE_KEY"}},
                         "allow": [tavily.authority]},
              "checks": {"domain_floor": {"unclassified": 1}}}
    (root / "sourcegate.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return root


def _plan(tavily: TavilyApi, monkeypatch: pytest.MonkeyPatch, queries: dict[str, str] | None = None,
          **options: Any) -> None:
    url = tavily.url("/pinning")
    monkeypatch.setenv("SDK_AGENT_PLAN", json.dumps({case: {
        "search": [query], "options": options, "read": [url],
        "answer": f"Because {QUOTE} [{url}].", "citations": [{"url": url, "quote": QUOTE}]}
        for case, query in (queries or {CASE: QUERY}).items()}))


def _trace(golden: Path, case: str = CASE) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((golden / "runs" / f"{case}.json").read_text(encoding="utf-8"))
    return data


def _everything(root: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(root.rglob("*")) if p.is_file())


def test_a_tavily_python_agent_is_recorded_through_its_provider_route_then_replays_offline_and_passes(
        tmp_path: Path, tavily: TavilyApi, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    golden = _new_set(tmp_path / "mine", tavily)
    monkeypatch.setenv("TAVILY_LIVE_KEY", KEY)
    _plan(tavily, monkeypatch, max_results=2, topic="news")
    agent = [sys.executable, str(AGENT)]
    assert main(["run", str(golden), "--record", "--", *agent]) == 0
    err = capsys.readouterr().err
    assert "entries recorded" in err and "version 1 -> 2" in err and KEY not in err

    # the provider was asked with the agent's own parameters and the key from the environment
    [search] = tavily.searches
    assert search.authorization == f"Bearer {KEY}"
    assert {k: search.body[k] for k in ("query", "max_results", "topic")} == {
        "query": QUERY, "max_results": 2, "topic": "news"}
    [entry] = [json.loads(p.read_text(encoding="utf-8")) for p in (golden / "snapshot" / "search").glob("*.json")]
    assert (entry["provider"], entry["query"]) == ("tavily", QUERY)
    assert entry["params"] == {"max_results": 2, "topic": "news"}
    assert [r["url"] for r in entry["response"]["results"]] == [tavily.url("/pinning"), tavily.url("/tags")]
    # the page was read by Tavily, as the agent asked it (the site itself refuses a direct read)
    [extract] = tavily.extracts
    assert extract.authorization == f"Bearer {KEY}" and extract.body["urls"] == [tavily.url("/pinning")]
    assert ("GET", "/pinning") not in [(a.method, a.path) for a in tavily.asked]
    [kept] = [json.loads(p.read_text(encoding="utf-8")) for p in (golden / "snapshot" / "contents").glob("*.json")]
    assert (kept["provider"], kept["url"]) == ("tavily", tavily.url("/pinning"))
    assert kept["response"] == {"results": [{"url": tavily.url("/pinning"), "title": "Pinning actions", "images": [],
                                             "raw_content": f"# Pinning actions\n\nPin actions to a full-length "
                                                            f"commit SHA: {QUOTE}."}]}
    assert not (golden / "snapshot" / "pages").exists()
    assert KEY not in _everything(golden)
    recorded = _trace(golden)
    assert recorded["queries"] == [QUERY] and recorded["replay"]["misses"] == []
    assert [p["url"] for p in recorded["pages"]] == [tavily.url("/pinning")]
    assert recorded["pages"][0]["text"].startswith("# Pinning actions")  # Tavily's text, not the site's HTML

    # the same agent replays offline: the same routes answer from the snapshot, and the set passes
    asked = len(tavily.asked)
    report = tmp_path / "report.json"
    assert main(["run", str(golden), "--", *agent]) == 0
    assert main(["check", str(golden), "--judge", "off", "--json", str(report)]) == 0
    assert len(tavily.asked) == asked
    trace = _trace(golden)
    assert trace["queries"] == [QUERY] and trace["replay"]["misses"] == []
    assert [r["url"] for r in trace["results"]] == [tavily.url("/pinning"), tavily.url("/tags")]
    assert [p["url"] for p in trace["pages"]] == [tavily.url("/pinning")]
    assert trace["pages"][0]["text"] == recorded["pages"][0]["text"]  # what Tavily answered when it was recorded
    assert "SDK error" not in trace["answer"]
    [case] = json.loads(report.read_text(encoding="utf-8"))["cases"]
    assert case["hard_failures"] == []

    # asked with another topic, the search is a miss naming the command that records it
    _plan(tavily, monkeypatch, max_results=2)
    assert main(["run", str(golden), "--check", "--judge", "off", "--json", str(report), "--", *agent]) == 1
    [miss] = _trace(golden)["replay"]["misses"]
    assert miss["reason"] == "topic (none: the provider's default) differs from the recording's 'news'"
    [case] = json.loads(report.read_text(encoding="utf-8"))["cases"]
    [message] = [f["message"] for f in case["hard_failures"] if f["check"] == "replay_miss"]
    assert f"`sourcegate run {golden} --record all -- {shlex.join(as_traced(agent))}`" in message
    assert len(tavily.asked) == asked


def test_a_search_the_live_provider_fails_is_a_miss_of_the_case_and_nothing_is_stored(
        tmp_path: Path, tavily: TavilyApi, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    golden = _new_set(tmp_path / "mine", tavily, (CASE, "fails"))
    monkeypatch.setenv("TAVILY_LIVE_KEY", KEY)
    _plan(tavily, monkeypatch, {CASE: QUERY, "fails": FAILING})
    agent = [sys.executable, str(AGENT)]
    assert main(["run", str(golden), "--record", "--", *agent]) == 3  # inconclusive: the set is incomplete
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == (f"sourcegate: error: the recording left 1 search unrecorded (each case's replay_miss says which "
                    f"and why; the traces and what was recorded are written): record them with "
                    f"`sourcegate run {golden} --record -- {shlex.join(agent)}`")  # as typed, on this machine
    assert _trace(golden)["replay"]["misses"] == []
    failed = _trace(golden, "fails")["replay"]
    [miss] = [m for m in failed["misses"] if m["layer"] == "search"]
    assert (miss["key"], miss["provider"], miss["request"]) == (FAILING, "tavily", "POST /search")
    assert miss["reason"].startswith("not recorded: ") and "HTTP 500" in miss["reason"] and KEY not in miss["reason"]
    assert "502 Server Error" in failed["agent_error"]  # the SDK raised on the server's 502
    stored = [json.loads(p.read_text(encoding="utf-8"))["query"] for p in (golden / "snapshot" / "search").glob("*")]
    assert stored == [QUERY]
