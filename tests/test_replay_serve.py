"""The replay server answers hits from the snapshot and misses with a 404 that names what is missing."""

from __future__ import annotations

import http.client
import io
import json
import socket
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from gate.replay.serve import ReplayServer
from gate.snapshot.records import PAGES, Anchor, ExtractionRecord, PageRecord, SearchRecord, url_key
from gate.snapshot.store import SnapshotStore
from tests.support.loopback import ServerThread

BRAVE = {"type": "search", "web": {"results": [{"url": "https://a.test/", "title": "A"}]}}


@dataclass
class Live:
    server: ReplayServer
    log: io.StringIO

    def get(self, path: str, **params: str) -> tuple[int, Any]:
        host, port = self.server.server_address[:2]
        conn = http.client.HTTPConnection(str(host), port, timeout=5)
        try:
            conn.request("GET", path + ("?" + urlencode(params) if params else ""))
            response = conn.getresponse()
            return response.status, json.loads(response.read())
        finally:
            conn.close()


@pytest.fixture
def live(tmp_path: Path) -> Iterator[Live]:
    store = SnapshotStore(str(tmp_path / "snapshot"))
    store.put_search(SearchRecord("brave", "pin actions", BRAVE))
    store.put_page(PageRecord(url="https://a.test/", status=200, body="A page", content_type="text/html"))
    store.put_page(PageRecord(url="https://a.test/gone", status=404, body="Not found"))
    anchors = (Anchor("https://b.test/", "B"),)
    store.put_extraction(ExtractionRecord(url="https://a.test/", text="A page", anchors=anchors))
    log = io.StringIO()
    server = ReplayServer(store, port=0, log=log)
    with ServerThread(server, "replay"):
        yield Live(server, log)


def test_it_binds_to_loopback_by_default(live: Live) -> None:
    assert live.server.server_address[0] == "127.0.0.1"
    assert live.server.url.startswith("http://127.0.0.1:")


def test_a_search_hit_returns_the_provider_json_as_recorded(live: Live) -> None:
    assert live.get("/search", provider="brave", q="pin  actions") == (200, BRAVE)


def test_a_fetch_hit_and_a_recorded_404_are_both_answers(live: Live) -> None:
    status, body = live.get("/fetch", url="http://www.a.test")
    assert status == 200
    assert body == {"url": "https://a.test/", "status": 200, "final_url": None, "content_type": "text/html",
                    "body": "A page", "fetched_at": None, "truncated": False}
    status, body = live.get("/fetch", url="https://a.test/gone")
    assert (status, body["status"], "miss" in body) == (200, 404, False)


def test_an_extract_hit(live: Live) -> None:
    status, body = live.get("/extract", url="https://a.test/")
    assert status == 200
    assert body["anchors"] == [{"href": "https://b.test/", "text": "B"}]


def test_a_miss_is_a_404_naming_what_is_missing_and_is_logged(live: Live) -> None:
    status, body = live.get("/fetch", url="https://never.test/page")
    assert status == 404
    assert body["miss"] is True and body["layer"] == "page" and body["key"] == url_key("https://never.test/page")
    assert "https://never.test/page" in body["error"]
    status, body = live.get("/search", provider="brave", q="Pin actions")
    assert (status, body["layer"]) == (404, "search")
    log = live.log.getvalue()
    assert log.count("MISS") == 2 and "never.test" in log and "'Pin actions'" in log


def test_bad_requests_say_what_is_wrong(live: Live) -> None:
    assert live.get("/search?provider=brave&provider=bing&q=x") == (
        400, {"error": "expected exactly one 'provider' parameter, got 2"})
    assert live.get("/fetch") == (400, {"error": "expected exactly one 'url' parameter, got 0"})
    status, body = live.get("/proxy", url="https://a.test/")
    assert status == 404 and "use /search, /fetch or /extract" in body["error"]
    assert (body["layer"], body["miss"]) == ("route", True)


def test_a_search_without_a_provider_is_serpapi_s(live: Live) -> None:
    # GET /search without sourcegate's provider parameter is SerpApi's own route: its error shape
    status, body = live.get("/search", q="x")
    assert status == 404 and set(body) == {"error"} and "'x'" in body["error"]
    assert live.get("/search") == (400, {"error": "Missing query `q` parameter."})


def test_a_target_that_reads_as_an_unclosed_ipv6_host_is_a_400_not_a_traceback(
        live: Live, capsys: pytest.CaptureFixture[str]) -> None:
    # a request target in absolute form, "http://[/fetch": urlsplit raises on it. The agent gets a
    # 400, the server goes on, and nothing is printed
    host, port = live.server.server_address[:2]
    with socket.create_connection((str(host), port), timeout=5) as sock:
        sock.sendall(b"GET http://[/fetch?url=https://a.test/ HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400") and b"not a path" in body
    assert live.get("/fetch", url="https://a.test/")[0] == 200
    assert "Traceback" not in capsys.readouterr().err + live.log.getvalue()


def test_a_damaged_entry_is_a_500_naming_the_file(live: Live) -> None:
    file = Path(live.server.store.path(PAGES, url_key("https://a.test/")))
    file.write_text("{")
    status, body = live.get("/fetch", url="https://a.test/")
    assert status == 500 and str(file) in body["error"]
    assert "ERROR" in live.log.getvalue()


def test_a_client_that_resets_mid_request_is_no_traceback_and_the_server_goes_on(
        live: Live, capfd: pytest.CaptureFixture[str]) -> None:
    # an agent killed at its deadline halfway through a request: its connection is reset
    host, port = live.server.server_address[:2]
    sock = socket.create_connection((str(host), port), timeout=5)
    sock.sendall(b"GET /fetch?url=https://a.test/ HTTP/1.1\r\nHost: x\r\n")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()
    assert live.get("/fetch", url="https://a.test/")[0] == 200
    assert live.log.getvalue() == "" and capfd.readouterr().err == ""


class _Broken:
    """A source with a bug: every answer raises."""

    def search(self, provider: str, query: str, params: Any = None) -> Any:
        raise RuntimeError("a bug in the source")

    def page(self, url: str) -> Any:
        raise RuntimeError("a bug in the source")

    def extraction(self, url: str) -> Any:
        raise RuntimeError("a bug in the source")


def test_an_error_of_the_server_s_own_goes_to_its_log_with_its_traceback(
        tmp_path: Path, capfd: pytest.CaptureFixture[str]) -> None:
    log = io.StringIO()
    server = ReplayServer(SnapshotStore(str(tmp_path / "snapshot")), log=log, source=_Broken())
    with ServerThread(server, "replay"), pytest.raises(http.client.RemoteDisconnected):
        Live(server, log).get("/fetch", url="https://a.test/")
    written = log.getvalue()
    assert written.startswith("sourcegate snapshot: ERROR serving 127.0.0.1:")
    assert "Traceback" in written and "RuntimeError: a bug in the source" in written
    assert capfd.readouterr().err == ""
