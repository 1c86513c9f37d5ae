"""The way out of each confined case's namespace, served by the gate (gate/runner/doors.py): sockets
handed over as a keeper hands them, connections handed to the server under the case's name, DNS
queries told to the case and refused."""

from __future__ import annotations

import socket
import struct
import threading
import time
from typing import Any

import pytest

from gate.runner import doors
from gate.runner.doors import Doors
from gate.runner.network import NetworkPlan
from gate.runner.owners import door_address, door_case

PLAN = NetworkPlan("auto", "user", resolvers=("127.0.0.53", "::1"))


class _Server:
    def __init__(self) -> None:
        self.handed: list[tuple[bytes, Any]] = []
        self.event = threading.Event()

    def process_request(self, request: socket.socket, client_address: Any) -> None:
        with request:
            self.handed.append((request.recv(100), client_address))
            request.sendall(b"served")
        self.event.set()


class _Scope:
    def __init__(self) -> None:
        self.reached_hosts: list[tuple[str, str]] = []

    def reached(self, host: str, request: str) -> None:
        self.reached_hosts.append((host, request))


def _query(name: str, kind: int = 1) -> bytes:
    labels = b"".join(bytes([len(p)]) + p.encode() for p in name.split("."))
    return struct.pack("!HHHHHH", 7, 0x0100, 1, 0, 0, 0) + labels + b"\0" + struct.pack("!HH", kind, 1)


def _hand_over(door: doors.CaseDoor, *sockets: socket.socket, message: bytes = b"ok") -> str | None:
    gate_end, keeper_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with gate_end, keeper_end:
        socket.send_fds(keeper_end, [message], [s.fileno() for s in sockets])
        for s in sockets:
            s.close()  # as the keeper does: the gate's copies are the only ones left
        return door.opened(gate_end)


def test_the_keeper_is_told_the_method_the_port_and_the_resolvers() -> None:
    door = Doors(_Server(), 4321, PLAN).case("c1", _Scope())
    assert door.keeper_args(9) == ["--net", "9", "user", "4321", "127.0.0.53,::1"]


def test_a_connection_from_the_namespace_is_served_as_its_case_s() -> None:
    server = _Server()
    with Doors(server, 0, PLAN) as run:
        listener = socket.create_server(("127.0.0.1", 0))
        port = listener.getsockname()[1]
        with run.case("c1", _Scope()) as door:
            assert _hand_over(door, listener) is None
            with socket.create_connection(("127.0.0.1", port), timeout=10) as client:
                client.sendall(b"GET /case/t/search")
                assert client.recv(100) == b"served"
            assert server.event.wait(10)
    [(data, address)] = server.handed
    assert data == b"GET /case/t/search" and door_case(address) == "c1" and address[0] == door_address("c1", 1)[0]
    with pytest.raises(OSError):  # closed with its case
        socket.create_connection(("127.0.0.1", port), timeout=1)


def test_a_look_up_is_told_to_its_case_and_refused() -> None:
    scope = _Scope()
    with Doors(_Server(), 0, PLAN, own_names=("runner-host",)) as run:
        dns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        dns.bind(("127.0.0.1", 0))
        where = dns.getsockname()
        with run.case("c1", scope) as door, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as client:
            assert _hand_over(door, dns) is None
            client.settimeout(10)
            for name, kind in (("api.tavily.com", 1), ("runner-host", 1), ("runner-host.example.internal", 28),
                               ("4.3.2.1.in-addr.arpa", 12), ("api.tavily.com", 28)):
                client.sendto(_query(name, kind), where)
                reply = client.recv(512)
                assert reply[:2] == b"\0\x07" and reply[3] & 0xF == 5  # REFUSED, to every one
    # the machine's own name and a reverse look-up are answered, not told: libraries ask them going nowhere
    assert scope.reached_hosts == [
        ("api.tavily.com", "DNS A api.tavily.com: looked up by a client that ignores the proxy variables"),
        ("api.tavily.com", "DNS AAAA api.tavily.com: looked up by a client that ignores the proxy variables")]


def test_a_keeper_that_could_not_make_its_namespace_is_said(monkeypatch: pytest.MonkeyPatch) -> None:
    door = Doors(_Server(), 0, PLAN).case("c1", _Scope())
    assert _hand_over(door, message=b"error: unshare: Operation not permitted") == (
        "its network namespace could not be made: unshare: Operation not permitted")
    gate_end, keeper_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    keeper_end.close()  # the keeper ended without a word
    with gate_end:
        assert door.opened(gate_end) == "its network namespace could not be made: the keeper ended first"
    monkeypatch.setattr(doors, "OPEN_TIMEOUT", 0.05)
    gate_end, keeper_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    with gate_end, keeper_end:
        start = time.monotonic()
        assert (door.opened(gate_end) or "").startswith("its network namespace was not made: the keeper said nothing")
        assert time.monotonic() - start < 5
