"""A request the replay server forwards as the agent's proxy is the only one on its connection.

An upstream that is slow to close after its reply (a loaded machine) must not swallow the client's
next request: the reply says ``Connection: close``, and what the client sends after its request is
never passed on.
"""

from __future__ import annotations

import io
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from gate.replay.proxy import Reach, closing_head, forward_head
from gate.replay.serve import ReplayServer
from gate.snapshot.store import SnapshotStore
from tests.support.loopback import ServerThread

REPLY = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\nok"


def test_a_reply_head_says_connection_close_in_place_of_the_upstream_s_connection_headers() -> None:
    head = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nconnection: keep-alive\r\n"
            b"Keep-Alive: timeout=5, max=100\r\nProxy-Connection: keep-alive\r\nContent-Length: 2\r\n\r\n")
    assert closing_head(head) == (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
                                  b"Connection: close\r\n\r\n")
    assert closing_head(b"HTTP/1.1 204 No Content\r\n\r\n") == b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n"


def test_a_forwarded_request_is_in_origin_form_closing_without_the_proxy_s_headers() -> None:
    headers = [("Host", "api.test"), ("Proxy-Authorization", "Basic c2VjcmV0"), ("Connection", "keep-alive"),
               ("Keep-Alive", "timeout=5"), ("Expect", "100-continue"), ("Content-Length", "2")]
    assert forward_head("POST", "/v1/messages?beta=1", headers) == (
        b"POST /v1/messages?beta=1 HTTP/1.1\r\nHost: api.test\r\nContent-Length: 2\r\nConnection: close\r\n\r\n")


class _SlowToClose:
    """An upstream that answers one request, then keeps its connection open for ``linger`` seconds,
    keeping whatever else arrives on it."""

    def __init__(self, linger: float) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.linger = linger
        self.received = b""
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        conn, _ = self.listener.accept()
        with conn:
            conn.settimeout(10)
            while b"\r\n\r\n" not in self.received:
                data = conn.recv(65536)
                if not data:
                    return
                self.received += data
            conn.sendall(REPLY)
            conn.settimeout(self.linger)
            try:
                while data := conn.recv(65536):
                    self.received += data
            except TimeoutError:
                pass

    def close(self) -> None:
        self._thread.join(timeout=10)
        self.listener.close()


@pytest.fixture
def proxy(tmp_path: Path) -> Iterator[ReplayServer]:
    server = ReplayServer(SnapshotStore(str(tmp_path / "snapshot")), log=io.StringIO())
    with ServerThread(server, "replay"):
        yield server


def _read_reply(sock: socket.socket) -> bytes:
    came = b""
    while not came.endswith(b"\r\n\r\nok"):
        data = sock.recv(65536)
        assert data, f"the connection closed before the reply was whole: {came!r}"
        came += data
    return came


def test_a_forwarded_reply_closes_its_connection_and_the_next_request_never_reaches_the_upstream(
        proxy: ReplayServer) -> None:
    upstream = _SlowToClose(linger=1.0)
    proxy.reach = Reach([f"127.0.0.1:{upstream.port}"])
    host, port = proxy.server_address[:2]
    try:
        with socket.create_connection((str(host), int(port)), timeout=10) as sock:
            sock.sendall(f"GET http://127.0.0.1:{upstream.port}/v1/models HTTP/1.1\r\n"
                         f"Host: 127.0.0.1:{upstream.port}\r\nConnection: keep-alive\r\n\r\n".encode())
            head = _read_reply(sock).lower()
            assert b"connection: close\r\n" in head and b"keep-alive" not in head
            # a client that kept the connection anyway: its next request is not the upstream's
            sock.sendall(b"GET /next HTTP/1.1\r\nHost: x\r\n\r\n")
            assert sock.recv(65536) == b""  # closed once the upstream has ended, unanswered
    finally:
        upstream.close()
    assert upstream.received.count(b"HTTP/1.1\r\n") == 1 and b"/next" not in upstream.received
    assert upstream.received.startswith(b"GET /v1/models HTTP/1.1\r\n")
    assert b"connection: close\r\n" in upstream.received.lower()
