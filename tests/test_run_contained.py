"""``sourcegate run`` ends everything the agent starts: real processes that detach every way they can.

The agent is :mod:`tests.support.hostile_agent`; each test leaves processes behind (in the agent's
group, in a new session, a double fork, one that ignores SIGTERM), and checks afterwards that none
of them exists any more, not even as a zombie: ``kill(pid, 0)`` finds a zombie too.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from gate.cli import main
from gate.model import STDERR_KEPT, STDOUT_KEPT
from tests.support.hostile_agent import PLAN_ENV, hostile_agent, plan_env
from tests.support.namespaces import needs_namespace
from tests.support.pty_run import start_gate
from tests.support.run_golden import faithful_plan, make_golden

EURO = "euro-adoption-after-2010"
SLOTS = "python-dataclass-slots"
linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the keeper is Linux's (docs/trust.md)")


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def _pids(files: list[Path]) -> list[int]:
    return [int(f.read_text()) for f in files]


def _replay(golden: Path, case: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((golden / "runs" / f"{case}.json").read_text(encoding="utf-8"))
    return dict(data["replay"])


def _check(golden: Path, tmp_path: Path) -> dict[str, Any]:
    out = tmp_path / "report.json"
    main(["check", str(golden), "--judge", "off", "--json", str(out), "--quiet"])
    return {c["id"]: c for c in json.loads(out.read_text(encoding="utf-8"))["cases"]}


@linux
@pytest.mark.parametrize(("how", "ignore_term"), [("group", False), ("setsid", False), ("double_fork", False),
                                                  ("setsid", True)])
def test_what_the_agent_leaves_running_is_ended_when_its_case_ends(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str, ignore_term: bool) -> None:
    golden = make_golden(tmp_path / "set", [EURO])
    pid_file = tmp_path / "left.pid"
    monkeypatch.setenv(PLAN_ENV, plan_env({EURO: [{"leave": how, "pid_file": str(pid_file),
                                                   "ignore_term": ignore_term}]}))
    assert main(["run", str(golden), "--", *hostile_agent(tmp_path)]) == 0
    assert _gone(_pids([pid_file])[0])
    replay = _replay(golden, EURO)
    assert replay["agent_error"] is None and replay["left_running"] == 1
    case = _check(golden, tmp_path)[EURO]
    assert [w["message"] for w in case["warnings"] if w["kind"] == "agent_left_processes"] == [
        "the agent left 1 process(es) running when it exited: the gate ended them"]


@linux
def test_an_agent_killed_by_its_deadline_takes_what_it_started_with_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    golden = make_golden(tmp_path / "set", [EURO, SLOTS])
    files = [tmp_path / f"{n}.pid" for n in range(3)]
    monkeypatch.setenv(PLAN_ENV, plan_env({
        EURO: [{"leave": "double_fork", "pid_file": str(files[0])},
               {"leave": "setsid", "pid_file": str(files[1]), "ignore_term": True},
               {"leave": "group", "pid_file": str(files[2]), "ignore_term": True}, {"sleep": 60}],
        SLOTS: [],
    }))
    assert main(["run", str(golden), "--timeout", "2", "--", *hostile_agent(tmp_path)]) == 0
    assert all(_gone(pid) for pid in _pids(files))
    assert "timed out after 2 s" in _replay(golden, EURO)["agent_error"]


@linux
@pytest.mark.parametrize("sig", ["SIGKILL", "SIGSTOP"])
def test_an_agent_that_kills_or_stops_its_keeper_is_ended_by_the_gate(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sig: str) -> None:
    golden = make_golden(tmp_path / "set", [EURO, SLOTS])
    files = [tmp_path / "a.pid", tmp_path / "b.pid"]
    monkeypatch.setenv(PLAN_ENV, plan_env({
        EURO: [{"signal_parent": sig}, {"leave": "setsid", "pid_file": str(files[0])},
               {"leave": "double_fork", "pid_file": str(files[1])}],
        SLOTS: [],  # the other case is not touched
    }))
    assert main(["run", str(golden), "--timeout", "3", "--", *hostile_agent(tmp_path)]) == 0
    assert all(_gone(pid) for pid in _pids(files))
    error = _replay(golden, EURO)["agent_error"]
    if sig == "SIGKILL":
        assert "its keeper (the process that ends what the agent starts) was killed by SIGKILL" in error
    else:  # stopped, the keeper never reports: the deadline, then the gate kills it and ends the rest
        assert "timed out after 3 s" in error
    assert _replay(golden, SLOTS)["agent_error"] is None


@linux
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
def test_a_gate_interrupted_or_killed_leaves_nothing_of_the_agents_running(tmp_path: Path, stop: int) -> None:
    golden = make_golden(tmp_path / "set", [EURO, SLOTS])
    before = {n: (golden / "runs" / n).read_bytes() for n in os.listdir(golden / "runs")}
    files = {c: [tmp_path / f"{c}.{n}.pid" for n in range(2)] for c in (EURO, SLOTS)}
    plan = {c: [{"leave": "double_fork", "pid_file": str(f[0])},
                {"leave": "setsid", "pid_file": str(f[1]), "ignore_term": True}, {"sleep": 60}]
            for c, f in files.items()}
    env = {**os.environ, PLAN_ENV: plan_env(plan), "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    gate = start_gate(["run", str(golden), "--jobs", "2", "--", *hostile_agent(tmp_path)], env)
    every = [f for fs in files.values() for f in fs]
    deadline = time.monotonic() + 60
    while not all(f.exists() for f in every) and time.monotonic() < deadline:
        time.sleep(0.01)
    pids = _pids(every)
    os.kill(gate.pid, stop)
    done = gate.finish()
    if stop == signal.SIGKILL:  # each keeper hears of it (PR_SET_PDEATHSIG) and ends its case
        deadline = time.monotonic() + 60
        while not all(_gone(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.05)
    else:
        assert done.returncode == 130, done.stderr
        assert "every agent stopped, nothing written" in done.stderr
    assert all(_gone(pid) for pid in pids)
    assert {n: (golden / "runs" / n).read_bytes() for n in os.listdir(golden / "runs")} == before


@linux
@pytest.mark.parametrize("network", ["proxy", pytest.param("confined", marks=needs_namespace)])
def test_a_sibling_s_stolen_replay_url_is_refused_and_reported_in_both_cases(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, network: str) -> None:
    golden = make_golden(tmp_path / "set", [EURO, SLOTS])
    ready, done, stolen = tmp_path / "victim-ready", tmp_path / "thief-done", tmp_path / "stolen.json"
    handed = tmp_path / "victim-url"
    # /proc/<pid>/environ, where it can be read: in a user namespace of its own (confined) the thief can
    # read no other process's, so the victim hands its URL over in a file
    steal = {"steal": "stolen query", "out": str(stolen)} | ({"from": str(handed)} if network == "confined" else {})
    monkeypatch.setenv(PLAN_ENV, plan_env({
        EURO: [{"wait_for": str(ready)}, steal, {"touch": str(done)}],
        SLOTS: [{"search": "own query"}, {"url_to": str(handed)}, {"touch": str(ready)}, {"wait_for": str(done)}],
    }))
    assert main(["run", str(golden), "--jobs", "2", "--network", network, "--", *hostile_agent(tmp_path)]) == 0
    answered = json.loads(stolen.read_text(encoding="utf-8"))
    assert list(answered.values()) == [403]  # the victim's URL was found, and the request refused
    victim, thief = _replay(golden, SLOTS), _replay(golden, EURO)
    assert len(victim["cross_case"]) == 1 and len(thief["cross_case"]) == 1
    by = "(from inside its network namespace)" if network == "confined" else "(pid "
    assert victim["cross_case"][0].startswith(f"a request with this case's replay URL came from a process of "
                                              f"case {EURO!r} {by}")
    assert victim["cross_case"][0].endswith("and was refused: GET /search?provider=trace&q=stolen+query")
    assert thief["cross_case"] == [f"the agent sent a request with the replay URL of case {SLOTS!r}, refused: "
                                   "GET /search?provider=trace&q=stolen+query"]
    trace = json.loads((golden / "runs" / f"{SLOTS}.json").read_text(encoding="utf-8"))
    assert trace["queries"] == ["own query"]  # nothing of the thief's in the victim's trace
    cases = _check(golden, tmp_path)
    for case in (EURO, SLOTS):
        assert "cross_case_request" in {f["check"] for f in cases[case]["hard_failures"]}


HELPER = r'''
import os, socket, sys, time
from urllib.parse import urlencode, urlsplit
url_file, done, query = sys.argv[1], sys.argv[2], sys.argv[3]
while not os.path.exists(url_file):
    time.sleep(0.01)
base = urlsplit(open(url_file).read())
with socket.create_connection((base.hostname, base.port), timeout=10) as conn:
    conn.sendall(f"GET {base.path}/search?{urlencode({'provider': 'trace', 'q': query})} HTTP/1.1\r\n"
                 f"Host: {base.netloc}\r\nConnection: close\r\n\r\n".encode())
    status = b"".join(iter(lambda: conn.recv(65536), b"")).split(b" ", 2)[1]
with open(done + ".tmp", "wb") as f:
    f.write(status)
os.replace(done + ".tmp", done)
'''


@linux
def test_a_service_outside_every_case_is_served_and_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    golden = make_golden(tmp_path / "set", [EURO])
    url_file, done = tmp_path / "url", tmp_path / "done"
    # started before the run, as a service the agent hands its work to would be
    query = faithful_plan(EURO)["search"][0]
    service = subprocess.Popen([sys.executable, "-I", "-S", "-c", HELPER, str(url_file), str(done), query])
    monkeypatch.setenv(PLAN_ENV, plan_env({EURO: [{"url_to": str(url_file)}, {"wait_for": str(done)}]}))
    try:
        assert main(["run", str(golden), "--", *hostile_agent(tmp_path)]) == 0
    finally:
        service.wait(timeout=60)
    assert done.read_bytes() == b"200"
    replay = _replay(golden, EURO)
    assert replay["outside_connections"] == 1 and "cross_case" not in replay
    assert json.loads((golden / "runs" / f"{EURO}.json").read_text(encoding="utf-8"))["queries"] == [query]
    kinds = [w["kind"] for w in _check(golden, tmp_path)[EURO]["warnings"]]
    assert "outside_connections" in kinds


def test_output_past_the_bounds_is_counted_and_dropped_and_the_answer_still_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    golden = make_golden(tmp_path / "set", [EURO, SLOTS])
    monkeypatch.setenv(PLAN_ENV, plan_env({
        EURO: [{"print": {"stdout": 20, "stderr": 2}}],  # then its answer, on the last line
        SLOTS: [{"print": {"stdout": 20}}, {"exit": 0}],  # no answer after the logs
    }))
    assert main(["run", str(golden), "--jobs", "2", "--", *hostile_agent(tmp_path)]) == 0
    answer = len(b'{"answer": "ok"}\n')
    replay = _replay(golden, EURO)
    assert replay["stdout_dropped"] == 20 * 2**20 + answer - STDOUT_KEPT
    assert replay["stderr_dropped"] == 2 * 2**20 - STDERR_KEPT
    assert replay["agent_error"] is None
    assert json.loads((golden / "runs" / f"{EURO}.json").read_text(encoding="utf-8"))["answer"] == "ok"
    cases = _check(golden, tmp_path)
    assert [w["message"] for w in cases[EURO]["warnings"] if w["kind"] == "agent_output_dropped"] == [
        "the agent printed more than the gate keeps (the last 8,388,608 bytes (8 MiB) of stdout, where its answer "
        "is read, and 4,096 bytes of stderr): 12,582,929 bytes (12 MiB) of stdout and 2,093,056 bytes (2 MiB) of "
        "stderr counted and dropped"]
    error = _replay(golden, SLOTS)["agent_error"]
    assert "printed no answer" in error and "the gate kept its last 8,388,608 bytes (8 MiB) and dropped the " \
        "12,582,912 bytes (12 MiB) before them, so the answer must be its last line" in error
