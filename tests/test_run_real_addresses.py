"""Agents written for the real web re-run unchanged on the frozen one, served at the real addresses.

Each agent is a real process written as teams write them (``tests/support/sdk_agents/``): a search
provider's REST API at its own host with ``requests``, ``httpx``, ``urllib``, ``aiohttp``, the ``curl``
binary or Node's ``fetch``, or Tavily's and Exa's own clients at their default hosts; then each page
read at its own ``https://`` URL. None is told a base URL or anything of sourcegate: the run makes
the replay server its proxy and the case's certificate authority trusted, and the set (its snapshot
made by ``sourcegate snapshot build``) must pass as the existing SDK agents' does. A page the snapshot
lacks is a ``replay_miss`` naming its URL and the command that records it; a page recorded as a 404
is served as one. The Python agents install the suite's network guard first: nothing leaves loopback.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from gate.cli import main
from tests.support.preloaded import Preloaded
from tests.support.run_golden import as_traced, failures_of, faithful_plan, make_golden, trace_of

ROOT = Path(__file__).resolve().parent.parent
AGENTS = ROOT / "tests" / "support" / "sdk_agents"
PLAN_ENV = "SDK_AGENT_PLAN"  # what the agents read their plan from (sdk_agents/common.py)
NODE = shutil.which("node")
CURL = shutil.which("curl")
EURO = "euro-adoption-after-2010"
SLOTS = "python-dataclass-slots"
FOMC = "fomc-september-2026-decision"
REUTERS_404 = "https://www.reuters.com/markets/us/fed-cuts-rates-quarter-point-signals-more-easing-2026-09-16/"


def _built(tmp_path: Path, cases: list[str]) -> Path:
    """A golden set with these example cases and their runs, its snapshot built by ``snapshot build``."""
    golden = make_golden(tmp_path / "set", cases)
    shutil.rmtree(golden / "snapshot")
    assert main(["snapshot", "build", str(golden)]) == 0
    return golden


def _plan(case: str, **more: Any) -> dict[str, Any]:
    done = faithful_plan(case)
    cited = {"citations": done["citations"]} if "citations" in done else {}
    return {"search": done["search"], "read": done["fetch"], "answer": done["answer"], **cited, **more}


def _run(golden: Path, command: list[str], plans: dict[str, Any], tmp_path: Path,
         monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.setenv(PLAN_ENV, json.dumps(plans))
    report = tmp_path / "report.json"
    code = main(["run", str(golden), "--check", "--judge", "off", "--json", str(report), "--", *command])
    data: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    data["exit"] = code
    return data


@pytest.fixture(scope="module")
def python() -> Iterator[Preloaded]:
    """The interpreter the Python agents' processes are forked from: the guard installed, then the clients
    and SDKs imported once (``tests/support/guarded_clients.py``), not once per case."""
    with Preloaded(["tests.support.guarded_clients"], {**os.environ, "PYTHONPATH": str(ROOT)}) as preloaded:
        yield preloaded


def _client(name: str, python: Preloaded) -> list[str]:
    """The agent's command: node's for Node's fetch; aiohttp's own interpreter (it makes its TLS context
    as it is imported, from its environment); the others forked from the preloaded one."""
    if name == "node-fetch":
        if NODE is None:
            pytest.skip("needs node")
        return [NODE, str(AGENTS / "fetch_agent.mjs")]
    if name == "curl" and CURL is None:
        pytest.skip("needs curl")
    if name == "aiohttp":
        return [sys.executable, str(AGENTS / "http_client_agent.py"), name]
    return python.command(AGENTS / "http_client_agent.py", name)


def _assert_served_as_recorded(golden: Path, case: str) -> None:
    """The case's trace holds its queries and its pages, each read at its own URL, and nothing past them."""
    trace = trace_of(golden, case)
    assert trace["replay"]["misses"] == [] and trace["replay"]["agent_error"] is None
    assert "live_requests" not in trace["replay"]
    assert trace["queries"] == faithful_plan(case)["search"]
    assert trace["results"] and {r["query"] for r in trace["results"]} == set(range(len(trace["queries"])))
    assert all(p["text"] for p in trace["pages"])
    assert "SDK error" not in trace["answer"]


@pytest.mark.parametrize("client", ["requests", "httpx", "urllib", "aiohttp", "curl", "node-fetch"])
def test_a_plain_http_client_at_the_real_addresses_re_runs_a_built_set_and_passes(
        client: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, python: Preloaded) -> None:
    command = _client(client, python)
    golden = _built(tmp_path, [EURO, SLOTS])
    report = _run(golden, command, {EURO: _plan(EURO), SLOTS: _plan(SLOTS)}, tmp_path, monkeypatch)
    assert (report["exit"], report["verdict"]) == (0, "pass"), report
    for case in (EURO, SLOTS):
        _assert_served_as_recorded(golden, case)
        pages = trace_of(golden, case)["pages"]
        assert [p["url"] for p in pages] == faithful_plan(case)["fetch"]  # each at its own URL, in order
        assert {p["status"] for p in pages} == {200}


@pytest.mark.parametrize("agent", ["tavily_at_its_host_agent.py", "exa_at_its_host_agent.py"])
def test_a_provider_s_own_client_at_its_default_host_re_runs_a_built_set_and_passes(
        agent: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, python: Preloaded) -> None:
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-replay")  # what the clients read when given no key
    monkeypatch.setenv("EXA_API_KEY", "exa-replay")
    golden = _built(tmp_path, [EURO, SLOTS])
    plans = {EURO: _plan(EURO), SLOTS: _plan(SLOTS)}
    report = _run(golden, python.command(AGENTS / agent), plans, tmp_path, monkeypatch)
    assert (report["exit"], report["verdict"]) == (0, "pass"), report
    for case in (EURO, SLOTS):
        _assert_served_as_recorded(golden, case)
        read = [p["url"] for p in trace_of(golden, case)["pages"]]
        assert set(faithful_plan(case)["fetch"]) <= set(read)  # the provider's contents and the pages themselves


@pytest.mark.parametrize("client", ["requests", "curl"])
def test_an_unrecorded_page_is_a_miss_naming_its_url_and_a_recorded_404_is_served_as_one(
        client: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, python: Preloaded) -> None:
    command = _client(client, python)
    golden = _built(tmp_path, [EURO, FOMC])
    unrecorded = "https://www.example.org/not-recorded?page=2"
    euro = _plan(EURO)
    plans = {EURO: {**euro, "read": [*euro["read"], unrecorded]}, FOMC: _plan(FOMC)}
    report = _run(golden, command, plans, tmp_path, monkeypatch)
    assert (report["exit"], report["verdict"]) == (1, "fail")
    assert trace_of(golden, EURO)["replay"]["misses"] == [
        {"layer": "pages", "key": unrecorded, "provider": "page", "request": f"GET {unrecorded}",
         "reason": "not in the snapshot"}]
    assert f"HTTP 404: {unrecorded}" in trace_of(golden, EURO)["answer"]  # what the agent was answered
    [message] = [f["message"] for f in failures_of(report, EURO) if f["check"] == "replay_miss"]
    assert unrecorded in message
    assert f"`sourcegate run {golden} --record -- {shlex.join(as_traced(command))}`" in message
    # the page Reuters answered 404 when it was recorded: the agent is answered 404, the trace says so,
    # and the gate finds what it found in the committed run
    fomc = trace_of(golden, FOMC)
    assert fomc["replay"]["misses"] == [] and f"HTTP 404: {REUTERS_404}" in fomc["answer"]
    assert {p["url"]: p["status"] for p in fomc["pages"]}[REUTERS_404] == 404
    assert any(f["check"] == "url_unresolved" and "returned HTTP 404" in f["message"]
               for f in failures_of(report, FOMC))


CA_AGENT = r'''
import json, os, shutil, sys
import requests

case = os.environ["SOURCEGATE_CASE"]
out = os.path.join(sys.argv[1], case)
os.makedirs(out)
for name in ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "DENO_CERT", "NODE_EXTRA_CA_CERTS"):
    shutil.copy(os.environ[name], os.path.join(out, name))
page = requests.get(sys.argv[2], timeout=30)
print(json.dumps({"answer": f"read {page.status_code}"}))
'''


def test_each_case_trusts_an_authority_of_its_own_whose_key_is_never_on_disk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    monkeypatch.setattr("tempfile.tempdir", str(temp))  # where the run keeps its work (and the agents' files)
    script, seen = tmp_path / "ca_agent.py", tmp_path / "seen"
    script.write_text(CA_AGENT, encoding="utf-8")
    golden = _built(tmp_path, [EURO, SLOTS])
    page = faithful_plan(EURO)["fetch"][0]
    assert main(["run", str(golden), "--", sys.executable, str(script), str(seen), page]) == 0
    assert {trace_of(golden, c)["answer"] for c in (EURO, SLOTS)} == {"read 200"}
    authorities = {}
    for case in (EURO, SLOTS):
        files = {f.name: f.read_bytes() for f in (seen / case).iterdir()}
        authority = files.pop("NODE_EXTRA_CA_CERTS")
        assert set(files.values()) == {files["SSL_CERT_FILE"]}  # one bundle for every client
        assert files["SSL_CERT_FILE"].endswith(authority)
        assert b"PRIVATE KEY" not in files["SSL_CERT_FILE"] and b"PRIVATE KEY" not in authority
        authorities[case] = authority
    assert authorities[EURO] != authorities[SLOTS]
    for case, other in ((EURO, SLOTS), (SLOTS, EURO)):
        assert authorities[case] not in (seen / other / "SSL_CERT_FILE").read_bytes()
    assert list(temp.iterdir()) == []  # the run's work folder, bundles and all, is gone

