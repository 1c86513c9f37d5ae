"""The replay server stays bounded: idle clients are dropped, and many of them do not make it start a
thread each, while a real request still gets its answer."""

from __future__ import annotations

import http.client
import io
import json
import select
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlencode

import pytest

from gate.replay.serve import ReplayServer
from gate.snapshot.records import PageRecord
from gate.snapshot.store import SnapshotStore

SLOTS = 4
#: The server's timeouts, passed small (in production they are seconds): a trickling client sends a
#: byte every TRICKLE seconds, well inside the idle timeout, and runs past the request deadline.
IDLE = 0.35
REQUEST = 0.55
TRICKLE = 0.1
#: The idle timeout where forty idle clients wait their turn: they are dropped in half a second (ten
#: rounds of four slots). A real request arrives whole with its connection and is read at once, however
#: short this is.
IDLE_MANY = 0.05


def test_the_listen_backlog_holds_many_agents_connecting_at_once() -> None:
    assert ReplayServer.request_queue_size >= 64


@contextmanager
def _serving(tmp_path: Path, idle: float) -> Iterator[ReplayServer]:
    store = SnapshotStore(str(tmp_path / "snapshot"))
    store.put_page(PageRecord(url="https://a.test/", status=200, body="A page", content_type="text/html"))
    replay = ReplayServer(store, port=0, log=io.StringIO(), idle_timeout=idle, request_timeout=REQUEST,
                     max_connections=SLOTS)
    thread = threading.Thread(target=replay.serve_forever, args=(0.05,), daemon=True)  # a prompt shutdown()
    thread.start()
    try:
        yield replay
    finally:
        replay.shutdown()
        replay.server_close()
        thread.join(timeout=30)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ReplayServer]:
    with _serving(tmp_path, IDLE) as replay:
        yield replay


@pytest.fixture
def server_of_many(tmp_path: Path) -> Iterator[ReplayServer]:
    with _serving(tmp_path, IDLE_MANY) as replay:
        yield replay


def _address(server: ReplayServer) -> tuple[str, int]:
    host, port = server.server_address[:2]
    return str(host), int(port)


def test_an_idle_client_is_dropped(server: ReplayServer) -> None:
    with socket.create_connection(_address(server), timeout=30) as idle:
        assert idle.recv(1) == b""  # the server closed it; nothing was ever sent


def test_many_idle_clients_hold_a_bounded_number_of_threads_and_a_request_is_still_answered(
    server_of_many: ReplayServer,
) -> None:
    server = server_of_many
    before = threading.active_count()
    idle = [socket.create_connection(_address(server), timeout=30) for _ in range(40)]
    try:
        # One thread per slot at most, however many connections wait (plus none for the waiting).
        assert threading.active_count() <= before + SLOTS
        conn = http.client.HTTPConnection(*_address(server), timeout=60)
        try:
            conn.request("GET", "/fetch?" + urlencode({"url": "https://a.test/"}))
            response = conn.getresponse()
            body = json.loads(response.read())
        finally:
            conn.close()
        assert threading.active_count() <= before + SLOTS
    finally:
        for s in idle:
            s.close()
    assert response.status == 200 and body["body"] == "A page"


def _trickle(server: ReplayServer, data: bytes, every: float) -> tuple[bytes, int]:
    """Send ``data`` a byte at a time, ``every`` seconds apart, until the server answers or closes;
    what it answered, and how many bytes went out before that."""
    with socket.create_connection(_address(server), timeout=30) as conn:
        for sent, byte in enumerate(data):
            conn.sendall(bytes([byte]))
            readable, _, _ = select.select([conn], [], [], every)
            if readable:
                return conn.recv(4096), sent + 1
        return conn.recv(4096), len(data)


def test_a_client_trickling_a_request_is_answered_408_at_the_request_deadline(server: ReplayServer) -> None:
    """A byte every 0.1 s never trips the 0.35 s idle timeout; the 0.55 s deadline of the request does."""
    request = b"GET /fetch?url=https%3A%2F%2Fa.test%2F HTTP/1.1\r\nHost: x\r\n" + b"X-Slow: " + b"a" * 200
    answer, sent = _trickle(server, request, every=TRICKLE)
    assert answer.startswith(b"HTTP/1.1 408 ") and b"Connection: close" in answer
    assert sent < len(request)  # stopped well before the client was done
    assert sent * TRICKLE >= REQUEST * 0.9  # and not before the deadline


def test_every_request_of_a_kept_alive_connection_has_a_deadline_of_its_own(server: ReplayServer) -> None:
    conn = http.client.HTTPConnection(*_address(server), timeout=30)
    try:
        for _ in range(3):  # together longer than one deadline
            conn.request("GET", "/fetch?" + urlencode({"url": "https://a.test/"}))
            response = conn.getresponse()
            assert response.status == 200 and json.loads(response.read())["body"] == "A page"
            time.sleep(REQUEST * 0.4)
    finally:
        conn.close()


def test_the_request_deadline_is_read_off_the_injected_clock(tmp_path: Path) -> None:
    """A clock past the deadline as soon as the request starts: the first byte read is already late."""
    ticks = iter([0.0, *[1e9] * 1000])
    store = SnapshotStore(str(tmp_path / "snapshot"))
    replay = ReplayServer(store, port=0, log=io.StringIO(), idle_timeout=IDLE, request_timeout=REQUEST,
                          clock=lambda: next(ticks))
    thread = threading.Thread(target=replay.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        with socket.create_connection(_address(replay), timeout=30) as conn:
            conn.sendall(b"GET /fetch?url=x HTTP/1.1\r\nHost: x\r\n\r\n")
            assert conn.recv(4096).startswith(b"HTTP/1.1 408 ")
    finally:
        replay.shutdown()
        replay.server_close()
        thread.join(timeout=30)
