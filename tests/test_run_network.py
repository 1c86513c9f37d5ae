"""``sourcegate run`` on Linux: each agent runs in a network namespace whose only way out is the replay
server, so a client that ignores the proxy variables reaches nothing; a run that is not confined says so.

Real agent processes, each against a stand-in "live" web site the test runs on the host's 127.0.0.1: a
client that ignores proxies (``http.client``, aiohttp's default session, a raw socket) fails at once and
the site receives nothing, while a client that honours them (``requests``) is served its searches and
pages by the replay server from inside the namespace. Nothing here reaches past loopback: inside a
namespace there is nowhere else to go, and the agents only ever aim at the host's loopback.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

import gate.runner.network
from gate.cli import main
from tests.support.namespaces import METHOD, needs_namespace
from tests.support.run_golden import faithful_plan, make_golden
from tests.support.web_sites import Site, page

EURO = "euro-adoption-after-2010"
SLOTS = "python-dataclass-slots"

AGENT = r'''
import asyncio, json, os, socket, struct, sys, time

how = json.loads(os.environ["NETWORK_AGENT_PLAN"])[os.environ["SOURCEGATE_CASE"]]
start = time.monotonic()

def blind(client, url):
    host, port = url.split("/")[2].rsplit(":", 1)
    if client == "http.client":
        import http.client
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
        conn.request("GET", "/secret")
        return conn.getresponse().status
    if client == "aiohttp":
        import aiohttp
        async def get():
            async with aiohttp.ClientSession() as session:  # trust_env=False: the proxy variables ignored
                async with session.get(url, timeout=aiohttp.ClientTimeout(total=10)) as reply:
                    return reply.status
        return asyncio.run(get())
    with socket.create_connection((host, int(port)), timeout=10) as conn:
        conn.sendall(b"GET /secret HTTP/1.0\r\n\r\n")
        return conn.recv(100)[:12]

def lookup(resolver, name):
    # a resolver of its own (as Go's or c-ares are): one A query, straight to the resolver
    query = struct.pack("!HHHHHH", 0x5151, 0x0100, 1, 0, 0, 0)
    query += b"".join(bytes([len(p)]) + p.encode() for p in name.split(".")) + b"\0" + struct.pack("!HH", 1, 1)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(10)
        s.sendto(query, (resolver, 53))
        reply = s.recv(512)
    return f"rcode {reply[3] & 0xF}"

if "honest" in how:
    import requests
    replay = os.environ["SOURCEGATE_REPLAY_URL"]
    for q in how["honest"]["search"]:
        assert requests.get(f"{replay}/search", params={"provider": "trace", "q": q}, timeout=10).ok
    for url in how["honest"]["fetch"]:
        assert requests.get(f"{replay}/fetch", params={"url": url}, timeout=10).ok
    if how.get("live"):
        requests.get(how["live"], timeout=10).raise_for_status()  # through the proxy: refused (403), in the trace
    print(json.dumps({"answer": how["honest"]["answer"]}))
    sys.exit(0)
if how.get("escape"):  # join the machine's own network namespace (pid 1's), then go round the proxy
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    try:
        fd = os.open("/proc/1/ns/net", os.O_RDONLY)
        left = libc.setns(fd, 0x40000000) == 0
        print(f"setns: {'joined' if left else os.strerror(ctypes.get_errno())}", file=sys.stderr)
    except OSError as e:
        print(f"setns: {e.strerror}", file=sys.stderr)
try:
    got = lookup(*how["lookup"]) if "lookup" in how else blind(how["client"], how["url"])
except Exception as e:
    print(f"failed after {time.monotonic() - start:.3f} s: {type(e).__name__}: {e}", file=sys.stderr)
    sys.exit(1)
print(f"reached: {got!r} after {time.monotonic() - start:.3f} s", file=sys.stderr)
sys.exit(1 if "lookup" in how else 0)
'''


def _agent(tmp_path: Path) -> list[str]:
    script = tmp_path / "network_agent.py"
    script.write_text(AGENT, encoding="utf-8")
    return [sys.executable, str(script)]


def _honest(case: str) -> dict[str, Any]:
    plan = faithful_plan(case)
    return {"honest": {"search": plan["search"], "fetch": plan["fetch"], "answer": plan["answer"]}}


def _replay(golden: Path, case: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((golden / "runs" / f"{case}.json").read_text(encoding="utf-8"))
    return data


def _check(golden: Path, tmp_path: Path) -> dict[str, Any]:
    out = tmp_path / "report.json"
    main(["check", str(golden), "--judge", "off", "--json", str(out), "--quiet"])
    return {c["id"]: c for c in json.loads(out.read_text(encoding="utf-8"))["cases"]}


@needs_namespace
@pytest.mark.parametrize("client", ["http.client", "aiohttp", "socket"])
def test_a_proxy_blind_client_never_reaches_the_live_web_and_fails_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], client: str) -> None:
    golden = make_golden(tmp_path / "set", [EURO, SLOTS])
    with Site("127.0.0.1", {"/secret": page("the live web")}) as live:
        monkeypatch.setenv("NETWORK_AGENT_PLAN", json.dumps({
            EURO: {"client": client, "url": live.url("/secret")}, SLOTS: _honest(SLOTS)}))
        assert main(["run", str(golden), "--jobs", "2", "--timeout", "60", "--", *_agent(tmp_path)]) == 0
        assert live.seen == []  # not one request reached the host's "live" site
    assert "each agent runs in a network namespace of its own" in capsys.readouterr().err
    blind, honest = _replay(golden, EURO)["replay"], _replay(golden, SLOTS)
    assert blind["network"] == {"confined": True}
    error = blind["agent_error"]
    assert re.search(r"failed after (\d+\.\d+) s: (ConnectionRefusedError|ClientConnectorError)", error), error
    assert float(re.search(r"failed after (\d+\.\d+) s", error)[1]) < 5  # refused at once, not a timeout
    # the client that honours the proxy variables was served from inside its own namespace
    assert honest["replay"]["network"] == {"confined": True} and honest["replay"]["agent_error"] is None
    assert honest["queries"] == faithful_plan(SLOTS)["search"] and honest["replay"]["misses"] == []
    assert [p["url"] for p in honest["pages"]] == faithful_plan(SLOTS)["fetch"]
    cases = _check(golden, tmp_path)
    assert "agent_error" in {f["check"] for f in cases[EURO]["hard_failures"]}
    assert not any(w["kind"] == "unconfined" for c in cases.values() for w in c["warnings"])


@pytest.mark.skipif(METHOD != "user", reason="a user namespace of its own is what keeps an agent in")
def test_an_agent_cannot_leave_its_namespace_for_the_machine_s(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    golden = make_golden(tmp_path / "set", [EURO, SLOTS])
    with Site("127.0.0.1", {"/secret": page("the live web")}) as live:
        monkeypatch.setenv("NETWORK_AGENT_PLAN", json.dumps({
            EURO: {"escape": True, "client": "socket", "url": live.url("/secret")}, SLOTS: _honest(SLOTS)}))
        assert main(["run", str(golden), "--jobs", "2", "--", *_agent(tmp_path)]) == 0
        assert live.seen == []
    error = _replay(golden, EURO)["replay"]["agent_error"]
    assert "setns: joined" not in error and "ConnectionRefusedError" in error


@needs_namespace
def test_a_dns_look_up_inside_the_namespace_is_refused_and_names_the_host(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # as on GitHub's runners, where /etc/resolv.conf names systemd-resolved's 127.0.0.53
    monkeypatch.setattr(gate.runner.network, "read_resolvers", lambda: ("127.0.0.53",))
    golden = make_golden(tmp_path / "set", [EURO, SLOTS])
    monkeypatch.setenv("NETWORK_AGENT_PLAN", json.dumps({
        EURO: {"lookup": ["127.0.0.53", "api.tavily.com"]}, SLOTS: _honest(SLOTS)}))
    assert main(["run", str(golden), "--jobs", "2", "--", *_agent(tmp_path)]) == 0
    replay = _replay(golden, EURO)["replay"]
    assert "reached: 'rcode 5'" in replay["agent_error"]  # REFUSED, answered inside the namespace
    assert [(r["host"], r["request"]) for r in replay["live_requests"]] == [
        ("api.tavily.com", "DNS A api.tavily.com: looked up by a client that ignores the proxy variables")]
    [found] = [f for f in _check(golden, tmp_path)[EURO]["hard_failures"] if f["check"] == "live_request"]
    assert "api.tavily.com" in found["message"]


@needs_namespace
def test_every_case_refused_still_writes_its_traces_and_says_why(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    golden = make_golden(tmp_path / "set", [EURO, SLOTS])
    plan = {c: {"honest": {"search": [], "fetch": [], "answer": "x"}, "live": "http://search.example.net/q"}
            for c in (EURO, SLOTS)}
    monkeypatch.setenv("NETWORK_AGENT_PLAN", json.dumps(plan))
    assert main(["run", str(golden), "--jobs", "2", "--", *_agent(tmp_path)]) == 0
    assert "the agent failed in every case (2); 2 of them had requests refused" in capsys.readouterr().err
    for case in (EURO, SLOTS):  # refused (a live_request), or answered from the frozen web and missed
        replay = _replay(golden, case)["replay"]
        named = [r["host"] for r in replay.get("live_requests", ())] + [m["key"] for m in replay["misses"]]
        assert replay["agent_error"] is not None and any("search.example.net" in n for n in named)
    for c in _check(golden, tmp_path).values():
        found = {f["check"] for f in c["hard_failures"]}
        assert "agent_error" in found and found & {"live_request", "replay_miss"}


@needs_namespace
def test_every_agent_failing_with_nothing_refused_writes_nothing_and_says_it_ran_confined(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    golden = make_golden(tmp_path / "set", [EURO])
    before = _replay(golden, EURO)
    with Site("127.0.0.1", {"/secret": page("the live web")}) as live:
        monkeypatch.setenv("NETWORK_AGENT_PLAN", json.dumps({EURO: {"client": "socket", "url": live.url("/")}}))
        assert main(["run", str(golden), "--", *_agent(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "the agent failed in every case (1), no trace written" in err and "ConnectionRefusedError" in err
    assert "Each agent ran in a network namespace whose only way out is the replay server" in err
    assert _replay(golden, EURO) == before


def _no_namespace(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gate.runner.network, "probe", lambda: (None, "user: refused by the test"))


def test_where_no_namespace_can_be_made_the_run_says_it_was_not_confined(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _no_namespace(monkeypatch)
    golden = make_golden(tmp_path / "set", [EURO, SLOTS])
    monkeypatch.setenv("NETWORK_AGENT_PLAN", json.dumps({c: _honest(c) for c in (EURO, SLOTS)}))
    assert main(["run", str(golden), "--jobs", "2", "--", *_agent(tmp_path)]) == 0
    assert "sourcegate run: NOT CONFINED: " in capsys.readouterr().err
    cases = _check(golden, tmp_path)
    for case in (EURO, SLOTS):
        network = _replay(golden, case)["replay"]["network"]
        assert network["confined"] is False
        if sys.platform.startswith("linux"):
            assert "user: refused by the test" in network["reason"]
        [warning] = [w["message"] for w in cases[case]["warnings"] if w["kind"] == "unconfined"]
        assert warning.startswith("not confined: the agent ran without a network namespace (")


def test_network_proxy_is_said_in_every_case_s_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    golden = make_golden(tmp_path / "set", [EURO])
    monkeypatch.setenv("NETWORK_AGENT_PLAN", json.dumps({EURO: _honest(EURO)}))
    assert main(["run", str(golden), "--network", "proxy", "--", *_agent(tmp_path)]) == 0
    assert _replay(golden, EURO)["replay"]["network"] == {"confined": False, "reason": "--network proxy"}
    [warning] = [w["message"] for w in _check(golden, tmp_path)[EURO]["warnings"] if w["kind"] == "unconfined"]
    assert "(--network proxy)" in warning


def test_network_confined_where_no_namespace_can_be_made_exits_2_before_any_agent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _no_namespace(monkeypatch)
    golden = make_golden(tmp_path / "set", [EURO])
    before = _replay(golden, EURO)
    started = tmp_path / "started"
    command = [sys.executable, "-c", f"open({str(started)!r}, 'w').close()"]
    assert main(["run", str(golden), "--network", "confined", "--", *command]) == 2
    assert "--network confined: " in capsys.readouterr().err
    assert not started.exists() and _replay(golden, EURO) == before


@needs_namespace
def test_a_keeper_that_cannot_make_its_namespace_never_starts_the_agent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # the probe said yes, the keeper cannot: its case fails, saying why, and its agent never runs
    monkeypatch.setattr(gate.runner.network, "probe", lambda: ("no-such-method", ""))
    golden = make_golden(tmp_path / "set", [EURO])
    started = tmp_path / "started"
    command = [sys.executable, "-c", f"open({str(started)!r}, 'w').close()"]
    assert main(["run", str(golden), "--", *command]) == 1
    assert "its network namespace could not be made: no method 'no-such-method'" in capsys.readouterr().err
    assert not started.exists()
