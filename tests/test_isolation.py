"""The tests' own isolation (``tests/conftest.py``): loopback only, and no credentials from the shell.

The blocked destination is 192.0.2.1 (TEST-NET-1, documentation only); the guard refuses it before
the real call, so not even a SYN or a DNS query leaves the machine.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
import requests

from tests.support.loopback import ServerThread
from tests.support.network import NetworkBlocked, NetworkGuard

TEST_NET = "192.0.2.1"


class _Hello(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go in two writes: each reply would wait on a delayed ACK

    def do_GET(self) -> None:  # noqa: N802 - the http.server convention
        data = json.dumps({"path": self.path}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        pass


@pytest.fixture
def hello() -> Any:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    server.daemon_threads = True
    with ServerThread(server, "hello") as running:
        yield running


def test_a_connection_beyond_loopback_is_blocked_before_it_is_made(network_guard: NetworkGuard) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s, pytest.raises(NetworkBlocked) as blocked:
        s.connect((TEST_NET, 80))
    assert "tests never reach the network" in str(blocked.value) and TEST_NET in str(blocked.value)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s, pytest.raises(NetworkBlocked):
        s.connect_ex((TEST_NET, 443))
    with pytest.raises(NetworkBlocked):
        socket.create_connection((TEST_NET, 80), timeout=1)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s, pytest.raises(NetworkBlocked):
        s.sendto(b"x", (TEST_NET, 53))
    with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s, pytest.raises(NetworkBlocked):
        s.connect(("2001:db8::1", 80))
    attempts = network_guard.take_attempts()  # taken, or the test would fail at teardown
    assert len(attempts) == 5 and all(("192.0.2.1" in a or "2001:db8::1" in a) for a in attempts)


def test_a_name_lookup_beyond_loopback_is_blocked_before_any_dns_query(network_guard: NetworkGuard) -> None:
    for lookup in (lambda: socket.getaddrinfo("example.com", 443),
                   lambda: socket.gethostbyname("example.com"),
                   lambda: socket.gethostbyname_ex("example.com"),
                   lambda: socket.gethostbyaddr(TEST_NET)):
        with pytest.raises(NetworkBlocked):
            lookup()
    assert len(network_guard.take_attempts()) == 4
    # No query needed: a loopback name, any address literal (the connection to it is what is checked).
    assert socket.getaddrinfo("localhost", 80)
    assert socket.getaddrinfo(TEST_NET, 80, type=socket.SOCK_STREAM)[0][4] == (TEST_NET, 80)


def test_no_except_exception_in_the_code_under_test_can_swallow_the_block(network_guard: NetworkGuard) -> None:
    with pytest.raises(NetworkBlocked):
        try:
            requests.get(f"http://{TEST_NET}/", timeout=1)
        except Exception:  # what a client's error translation or a retry loop does
            pytest.fail("the block was caught as an ordinary error")
    # And an attempt swallowed anyway (say, by an ``except BaseException`` in a thread) is recorded,
    # which the conftest turns into a failure at teardown.
    with pytest.raises(NetworkBlocked):
        socket.create_connection((TEST_NET, 80))
    assert len(network_guard.take_attempts()) == 2


def test_loopback_http_clients_still_work(hello: ServerThread, network_guard: NetworkGuard) -> None:
    assert requests.get(f"{hello.url}/via-requests", timeout=5).json() == {"path": "/via-requests"}
    httpx2 = pytest.importorskip("httpx2")  # the HTTP client of the anthropic SDK
    with httpx2.Client() as client:
        assert client.get(f"{hello.url}/via-httpx").json() == {"path": "/via-httpx"}
    host, port = hello.address
    conn = http.client.HTTPConnection("localhost", port, timeout=5)
    try:
        conn.request("GET", "/via-localhost")
        assert json.loads(conn.getresponse().read()) == {"path": "/via-localhost"}
    finally:
        conn.close()
    assert network_guard.take_attempts() == []


def test_unix_sockets_are_allowed(tmp_path: Any) -> None:
    path = str(tmp_path / "s")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(path)
        server.listen()
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.connect(path)
            conn, _ = server.accept()
            with conn:
                client.sendall(b"ok")
                assert conn.recv(2) == b"ok"


def test_no_credentials_or_runner_variables_reach_a_test() -> None:
    leaked = [k for k in os.environ if k.startswith(("ANTHROPIC_", "OPENAI_", "AZURE_OPENAI_", "GITHUB_"))]
    assert leaked == []
    assert "SOURCEGATE_COMMENT_AUTHORS" not in os.environ
