"""Any other request at a host's real address (a POST to a page-reading API) is answered from the
exchange layer, as VCR answers it: by its method, URL and body, with secrets left out of the match and
of the entry; what was never recorded is a miss naming the request; record mode asks the host itself
with the agent's own headers and keeps what it answered, its credentials redacted."""

from __future__ import annotations

import base64
import http.client
import json
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from gate.cli import main
from gate.config import RecordConfig
from gate.errors import InputError, SnapshotMiss
from gate.live import LiveWeb
from gate.pipeline import run_paths
from gate.replay.recording import NEW_EPISODES, RecordingSource, finish
from gate.replay.serve import ReplayServer
from gate.runner.scope import CaseScope
from gate.snapshot.records import ExchangeRecord, exchange_entry, exchange_key
from gate.snapshot.store import SnapshotStore
from tests.support.loopback import ServerThread
from tests.support.run_golden import make_golden

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
SCRAPE = "https://api.reader.example/v1/scrape"
KEY = "fc-live-0123456789abcdef"
EURO = "euro-adoption-after-2010"


def _store(tmp_path: Path) -> SnapshotStore:
    return SnapshotStore(str(tmp_path / "set" / "snapshot"))


def _scrape(url: str = "https://www.bbc.com/news/a") -> bytes:
    return json.dumps({"url": url, "formats": ["markdown"]}).encode()


def test_the_key_is_the_method_url_and_body_whatever_the_member_order_and_without_secrets() -> None:
    one = exchange_key("POST", SCRAPE, '{"url": "https://a.example/", "formats": ["markdown"], "api_key": "k1"}')
    two = exchange_key("post", SCRAPE + "?api_key=k2", '{"formats":["markdown"],"url":"https://a.example/"}')
    assert one == two
    assert one != exchange_key("POST", SCRAPE, '{"url": "https://b.example/"}')
    assert one != exchange_key("PUT", SCRAPE, '{"url": "https://a.example/", "formats": ["markdown"]}')
    entry = exchange_entry(ExchangeRecord("post", SCRAPE + "?api_key=k2&page=2", '{"b": 1, "token": "t", "a": 2}',
                                          200, "{}"))
    assert (entry["method"], entry["url"], entry["request_body"]) == ("POST", SCRAPE + "?page=2", '{"a":2,"b":1}')


def test_an_exchange_is_stored_and_read_back_and_a_transient_failure_is_never_stored(tmp_path: Path) -> None:
    store = _store(tmp_path)
    record = ExchangeRecord("POST", SCRAPE, _scrape().decode(), 200, '{"markdown": "# A"}', "application/json", NOW)
    assert store.put_exchange(record)
    assert store.exchange("POST", SCRAPE, _scrape()) == ExchangeRecord(
        "POST", SCRAPE, json.dumps(json.loads(_scrape()), sort_keys=True, separators=(",", ":")), 200,
        '{"markdown": "# A"}', "application/json", NOW)
    with pytest.raises(SnapshotMiss, match="exchange layer: nothing recorded for POST"):
        store.exchange("POST", SCRAPE, _scrape("https://www.bbc.com/news/b"))
    with pytest.raises(InputError, match="errors are never cached"):
        store.put_exchange(ExchangeRecord("POST", SCRAPE, "{}", 503, "busy"))
    assert store.index().pages == frozenset()  # an exchange is no page


# --------------------------------------------------------------------------- through the proxy


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[ReplayServer, CaseScope]]:
    store = _store(tmp_path)
    store.put_exchange(ExchangeRecord("POST", "http://reader.example/v1/scrape", _scrape().decode(), 200,
                                      '{"markdown": "# Storm"}', "application/json", NOW))
    with open("/dev/null", "w", encoding="utf-8") as quiet, ReplayServer(store, log=quiet) as replay:
        scope = replay.scopes["token"] = CaseScope()
        thread = ServerThread(replay, "replay").start()
        try:
            yield replay, scope
        finally:
            thread.stop()


def _post(replay: ReplayServer, url: str, body: bytes) -> tuple[int, bytes, str | None]:
    host, port = replay.server_address[:2]
    conn = http.client.HTTPConnection(str(host), int(port), timeout=10)
    try:
        conn.request("POST", url, body=body, headers={
            "Content-Type": "application/json",
            "Proxy-Authorization": "Basic " + base64.b64encode(b"sourcegate:token").decode()})
        response = conn.getresponse()
        return response.status, response.read(), response.getheader("Content-Type")
    finally:
        conn.close()


def test_a_recorded_exchange_is_answered_at_its_real_address_and_another_body_is_a_miss(
        server: tuple[ReplayServer, CaseScope]) -> None:
    replay, scope = server
    status, body, content_type = _post(replay, "http://reader.example/v1/scrape", _scrape())
    assert (status, json.loads(body), content_type) == (200, {"markdown": "# Storm"}, "application/json; charset=utf-8")
    status, body, _ = _post(replay, "http://reader.example/v1/scrape", _scrape("https://www.bbc.com/news/b"))
    assert status == 404 and json.loads(body)["layer"] == "exchange"
    [hit, miss] = scope.calls()
    assert (hit.layer, hit.hit, hit.request) == ("exchanges", True, "POST http://reader.example/v1/scrape")
    assert (miss.layer, miss.hit, miss.key) == ("exchanges", False, "http://reader.example/v1/scrape")


# --------------------------------------------------------------------------- record mode


class _Reader(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    seen: list[tuple[str, str | None, bytes]] = []

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers["Content-Length"]))
        self.seen.append((self.path, self.headers.get("Authorization"), body))
        status = 503 if b"flaky" in body else 200
        answer = json.dumps({"markdown": "# Storm", "echo": self.headers.get("Authorization")}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


def test_record_mode_sends_the_agent_s_request_to_the_host_and_keeps_the_answer_without_its_key(
        tmp_path: Path) -> None:
    _Reader.seen = []
    upstream = ThreadingHTTPServer(("127.0.0.1", 0), _Reader)
    thread = ServerThread(upstream, "reader").start()
    try:
        port = upstream.server_address[1]
        web = LiveWeb(RecordConfig(allow=(f"127.0.0.1:{port}",)), environ={}, clock=lambda: NOW)
        store = _store(tmp_path)
        source = RecordingSource(store, web, NEW_EPISODES)
        url = f"http://127.0.0.1:{port}/v1/scrape"
        headers = {"authorization": f"Bearer {KEY}", "content-type": "application/json"}
        got = source.exchange("POST", url, _scrape(), headers)
        assert got.status == 200 and KEY not in got.body and json.loads(got.body)["markdown"] == "# Storm"
        assert _Reader.seen == [("/v1/scrape", f"Bearer {KEY}", _scrape())]  # the agent's own request, key and all
        again = source.exchange("POST", url, _scrape(), headers)  # recorded once, then replayed
        assert (again.status, again.body, again.content_type) == (got.status, got.body, got.content_type)
        assert len(_Reader.seen) == 1
        files = list((tmp_path / "set" / "snapshot" / "exchanges").glob("*.json"))
        assert len(files) == 1 and KEY not in files[0].read_text(encoding="utf-8")
        with pytest.raises(Exception, match="503"):
            source.exchange("POST", url, b'{"url": "flaky"}', headers)
        assert len(list((tmp_path / "set" / "snapshot" / "exchanges").glob("*.json"))) == 1  # never stored
        assert [r.layer for r in source.recorded()] == ["exchange"]
        (tmp_path / "set" / "golden.yaml").write_text(
            "format: sourcegate-golden/1\nversion: 1\nname: x\ncases:\n- {id: a, question: q?}\n", encoding="utf-8")
        session = finish(source, str(tmp_path / "set"))  # RECORDED.json lists the exchange, and validates
        listed = json.loads((tmp_path / "set" / "snapshot" / "RECORDED.json").read_text(encoding="utf-8"))
        assert session.bump is not None and [e["layer"] for e in listed["entries"]] == ["exchange"]
    finally:
        thread.stop()


def test_an_agent_s_unrecorded_post_at_a_real_https_address_is_a_miss_naming_the_request(tmp_path: Path) -> None:
    agent = tmp_path / "agent.py"
    agent.write_text(
        "import json, requests\n"
        f"r = requests.post({SCRAPE!r}, json={{'url': 'https://www.bbc.com/news/a'}},\n"
        "                  headers={'Authorization': 'Bearer fc-test'}, timeout=10)\n"
        "print(json.dumps({'answer': f'reader said {r.status_code}'}))\n", encoding="utf-8")
    golden = make_golden(tmp_path / "set", [EURO])
    assert main(["run", str(golden), "--", sys.executable, str(agent)]) == 0
    trace = json.loads((golden / "runs" / f"{EURO}.json").read_text(encoding="utf-8"))
    assert "reader said 404" in trace["answer"]
    [miss] = trace["replay"]["misses"]
    assert (miss["layer"], miss["key"], miss["request"]) == ("exchanges", SCRAPE, f"POST {SCRAPE}")
    [found] = [f for f in run_paths([str(golden)], None, judge_mode="off").cases[0].hard_failures
               if f.check == "replay_miss"]
    assert found.message.startswith(f"the request POST {SCRAPE} is not in the snapshot: record it with `sourcegate "
                                    "run") and "--record --" in found.message
