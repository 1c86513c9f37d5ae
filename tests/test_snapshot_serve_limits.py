"""The replay server stays bounded: idle clients are dropped, and many of them do not make it start a
thread each, while a real request still gets its answer."""

from __future__ import annotations

import http.client
import io
import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import pytest

from gate.snapshot.records import PageRecord
from gate.snapshot.serve import ReplayServer
from gate.snapshot.store import SnapshotStore

SLOTS = 4
# Short, so that forty idle clients are dropped in a second (ten rounds of four slots); a real request
# arrives whole with its connection and is read at once, however short this is.
IDLE = 0.1


class _Replay(ReplayServer):
    # A listen backlog that holds every idle client at once: with socketserver's 5, each connect beyond
    # it waits for the client's SYN to be sent again (1 s, then 2 s, ...), which is not what is tested.
    request_queue_size = 64


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ReplayServer]:
    store = SnapshotStore(str(tmp_path / "snapshot"))
    store.put_page(PageRecord(url="https://a.test/", status=200, body="A page", content_type="text/html"))
    replay = _Replay(store, port=0, log=io.StringIO(), idle_timeout=IDLE, max_connections=SLOTS)
    thread = threading.Thread(target=replay.serve_forever, args=(0.05,), daemon=True)  # a prompt shutdown()
    thread.start()
    try:
        yield replay
    finally:
        replay.shutdown()
        replay.server_close()
        thread.join(timeout=30)


def _address(server: ReplayServer) -> tuple[str, int]:
    host, port = server.server_address[:2]
    return str(host), int(port)


def test_an_idle_client_is_dropped(server: ReplayServer) -> None:
    with socket.create_connection(_address(server), timeout=30) as idle:
        assert idle.recv(1) == b""  # the server closed it; nothing was ever sent


def test_many_idle_clients_hold_a_bounded_number_of_threads_and_a_request_is_still_answered(
    server: ReplayServer,
) -> None:
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
