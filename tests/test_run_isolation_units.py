"""The parts of ``sourcegate run`` that keep each case bounded and apart: the end of an output kept
within a bound, the process table and its subtrees, the process holding a loopback connection, and
a scope that refuses a request (403, not a call of the case)."""

from __future__ import annotations

import http.client
import io
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import pytest

from gate.errors import InputError
from gate.model import STDERR_KEPT, STDOUT_KEPT
from gate.replay.serve import ReplayServer
from gate.runner.assemble import stdout_answer
from gate.runner.keeper import Proc, descendants, process_table, stopped
from gate.runner.output import Tail
from gate.runner.owners import CrossCase, diag_inode, holder, proc_net_address, socket_inode, table_inode
from gate.runner.process import Processes
from gate.runner.scope import MAX_REFUSALS, CaseScope
from gate.snapshot.records import SearchRecord
from gate.snapshot.store import SnapshotStore
from tests.support.loopback import ServerThread

linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc")


@pytest.mark.parametrize("chunk", [1, 7, 1000, 5000])
def test_a_tail_keeps_the_last_bytes_within_its_bound_and_counts_the_rest(chunk: int) -> None:
    data = bytes(range(256)) * 40  # 10,240 bytes
    tail = Tail(4096)
    for i in range(0, len(data), chunk):
        tail.add(data[i:i + chunk])
        assert sum(len(c) for c in tail._chunks) < 4096 + chunk  # never more than the bound and one chunk
    assert tail.kept() == data[-4096:]
    assert tail.total == len(data) and tail.dropped == len(data) - 4096
    short = Tail(4096)
    short.add(b"abc")
    assert short.kept() == b"abc" and short.dropped == 0


def test_the_bounds_fit_the_answer_and_the_report() -> None:
    assert STDOUT_KEPT == 8 * 1024 * 1024 and STDERR_KEPT == 4096


def test_an_answer_after_dropped_output_is_read_from_the_last_line_only() -> None:
    assert stdout_answer('x\n{"answer": "yes"}', dropped=100) == ("yes", None)
    with pytest.raises(InputError, match="dropped the 100 bytes before them, so the answer must be its last line"):
        stdout_answer('{"answer":\n "yes"}', dropped=100)  # whole, it would parse; cut, it cannot be whole


def test_descendants_are_a_subtree_without_the_spared_ones() -> None:
    table: Mapping[int, Proc] = {p: Proc((pp, "S", 0)) for p, pp in
                                 {10: 1, 11: 10, 12: 11, 13: 10, 14: 13, 20: 1}.items()}
    assert descendants(table, 10) == {11, 12, 13, 14}
    assert descendants(table, 10, spare={13}) == {11, 12}
    assert descendants(table, 20) == set()


@linux
def test_the_process_table_reads_this_process_and_its_parent() -> None:
    table = process_table()
    assert table[os.getpid()].ppid == os.getppid()
    assert table[os.getpid()].state in "RS"


@linux
def test_a_stopped_process_is_told_from_a_sleeping_one() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        assert not stopped(child.pid)
        os.kill(child.pid, signal.SIGSTOP)
        deadline = time.monotonic() + 30
        while not stopped(child.pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert stopped(child.pid)
        os.kill(child.pid, signal.SIGCONT)
        while stopped(child.pid) and time.monotonic() < deadline:
            time.sleep(0.01)
        assert not stopped(child.pid)
    finally:
        child.kill()
        child.wait()
    assert not stopped(child.pid)  # gone


class _Members:
    def __init__(self, owned: dict[int, str]) -> None:
        self.owned = owned

    def members(self, table: Mapping[int, Proc]) -> dict[int, str]:
        return self.owned


@linux
@pytest.mark.parametrize(("family", "host"), [(socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::ffff:127.0.0.1")])
def test_the_holder_of_a_loopback_connection_is_found_by_its_socket(family: int, host: str) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server, socket.socket(family) as client:
        client.connect((host, server.getsockname()[1]))
        accepted, peer = server.accept()
        with accepted:
            served = server.getsockname()
            assert peer[:2] == client.getsockname()[:2] or family == socket.AF_INET6
            inode = os.fstat(client.fileno()).st_ino
            assert socket_inode(peer[:2], served) == diag_inode(peer[:2], served) == inode
            assert table_inode(peer[:2], served) == inode  # where sock_diag cannot be asked
            assert diag_inode(("127.0.0.1", 1), served) is None and table_inode(("127.0.0.1", 1), served) is None
            assert holder(peer[:2], served, _Members({os.getpid(): "mine"})).case == "mine"
            assert holder(peer[:2], served, _Members({})).case is None


@pytest.mark.skipif(sys.byteorder != "little", reason="the kernel writes each word in the host's order")
def test_proc_net_addresses_written_as_the_kernel_writes_them() -> None:
    assert proc_net_address(("127.0.0.1", 8080), "tcp") == "0100007F:1F90"
    assert proc_net_address(("127.0.0.1", 80), "tcp6") == "0000000000000000FFFF00000100007F:0050"
    assert proc_net_address(("::ffff:127.0.0.1", 80), "tcp") == "0100007F:0050"
    assert proc_net_address(("::1", 80), "tcp6") == "00000000000000000000000001000000:0050"
    assert proc_net_address(("::1", 80), "tcp") is None


class _Refusing(CaseScope):
    def __init__(self) -> None:
        self.asked: list[tuple[tuple[str, int], str]] = []

        def admit(client: tuple[str, int], request: str) -> str | None:
            self.asked.append((client, request))
            return "refused: not yours" if "q=bad" in request else None

        super().__init__(admit)


def test_a_scope_that_refuses_answers_403_and_asks_once_per_connection(tmp_path: Path) -> None:
    store = SnapshotStore(str(tmp_path / "snapshot"))
    store.put_search(SearchRecord("brave", "ok", {"web": {"results": []}}))
    scope, refusing = _Refusing(), _Refusing()
    server = ReplayServer(store, port=0, log=io.StringIO())
    server.scopes.update({"tok": scope, "bad": refusing})
    with ServerThread(server, "replay"):
        conn = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=5)
        answers = []
        for path in ("/case/tok/search?provider=brave&q=ok", "/case/tok/search?provider=brave&q=ok",
                     "/case/bad/search?provider=brave&q=bad"):
            conn.request("GET", path)
            response = conn.getresponse()
            answers.append((response.status, json.loads(response.read())))
        conn.close()
    assert [status for status, _ in answers] == [200, 200, 403]
    assert answers[2][1] == {"error": "refused: not yours"}
    assert [request for _, request in scope.asked] == ["/search?provider=brave&q=ok"]  # once, without the token
    assert len(scope.calls()) == 2 and refusing.calls() == ()


def test_refusals_are_kept_one_by_one_up_to_a_bound_then_counted() -> None:
    scope = CaseScope()
    for i in range(MAX_REFUSALS + 3):
        scope.refused(f"r{i}")
    kept = scope.refusals()
    assert len(kept) == MAX_REFUSALS + 1 and kept[-1] == "and 3 more request(s) refused the same way"


@linux
def test_a_cross_case_refusal_is_noted_for_both_cases_and_a_case_s_own_process_is_admitted() -> None:
    with socket.create_server(("127.0.0.1", 0)) as server, socket.create_connection(server.getsockname()) as _c:
        accepted, peer = server.accept()
        with accepted:
            crossing = CrossCase(_Members({os.getpid(): "thief"}), server.getsockname())
            victim, thief = CaseScope(), CaseScope()
            crossing.register("victim", victim)
            crossing.register("thief", thief)
            assert crossing.admit("thief", peer, "/search?q=mine") is None
            refusal = crossing.admit("victim", peer, "/search?q=x\n::error::y")
    assert refusal is not None and refusal.startswith("refused: this replay URL belongs to another case")
    assert victim.refusals() == (f"a request with this case's replay URL came from a process of case 'thief' "
                                 f"(pid {os.getpid()}) and was refused: GET /search?q=x?::error::y",)
    assert thief.refusals() == ("the agent sent a request with the replay URL of case 'victim', refused: "
                                "GET /search?q=x?::error::y",)


def test_without_a_keeper_an_agent_s_group_is_ended_when_it_exits(tmp_path: Path) -> None:
    # what macOS gets: the agent's own session and process group, killed once it has exited
    pid_file = tmp_path / "pid"
    script = ("import os, sys, time\n"
              "if os.fork() == 0:\n"
              f"    open({str(pid_file)!r}, 'w').write(str(os.getpid())); time.sleep(600)\n"
              f"while not os.path.exists({str(pid_file)!r}) or not open({str(pid_file)!r}).read(): time.sleep(0.01)\n"
              "print('{\"answer\": \"ok\"}')\n")
    with Processes(contained=False) as procs:
        finished = procs.run([sys.executable, "-I", "-S", "-c", script], dict(os.environ), 60)
    assert finished.failure is None and finished.stdout.strip() == '{"answer": "ok"}'
    pid = int(pid_file.read_text())
    deadline = time.monotonic() + 30  # killed at once; reaped by its new parent (init) soon after
    while not _dead(pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert _dead(pid)


def _dead(pid: int) -> bool:
    """Gone, or a zombie (killed, not reaped yet by a parent that is not this process)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b") ", 1)[1].startswith(b"Z")
    except OSError:
        return False
