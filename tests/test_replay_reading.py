"""A provider's reading of pages (Tavily's ``POST /extract``, Exa's ``POST /contents``): recorded as the
provider answered it, then replayed as it answered it.

Recording, the server sends the URLs nothing answers to the provider in one request, with the
agent's own parameters and the key from the environment (never the site: the provider reads them);
each URL's part of the answer is stored (``snapshot/contents/``), the key scrubbed out, and a URL the
provider could not read is answered as it said it and never stored. Replaying, each URL is answered
from the provider's own recording (its title and text as they came), when the parameters that change
the answer are the recording's; else from the page the snapshot holds, with the page's ``<title>``.

The providers are a loopback stand-in answering in Tavily's and Exa's shapes.
"""

from __future__ import annotations

import http.client
import io
import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from gate.config import RecordConfig, SearchProviderConfig
from gate.live import LiveWeb
from gate.replay.recording import NEW_EPISODES, RECORD, RecordingSource, finish
from gate.replay.serve import ReplayServer
from gate.snapshot.records import ExtractionRecord, PageRecord
from gate.snapshot.store import SnapshotStore, snapshot_dir
from tests.support.loopback import ServerThread

KEY = "tvly-live-0123456789abcdef"
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
LATER = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
SITE = "https://news.example"
ARTICLE = f"{SITE}/pinning"
TAGS = f"{SITE}/tags"
GONE = f"{SITE}/gone"


# --------------------------------------------------------------------------- the providers' stand-in

@dataclass
class Provider:
    """What the stand-in was asked, and what it answers each path with (``answer(path, body) -> (status, JSON)``)."""

    answer: Callable[[str, dict[str, Any]], tuple[int, Any]]
    asked: list[tuple[str, dict[str, Any], dict[str, str]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _handler(provider: Provider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            with provider.lock:
                provider.asked.append((self.path, body, {k.lower(): v for k, v in self.headers.items()}))
            status, data = provider.answer(self.path, body)
            raw = json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass
    return Handler


def tavily_extract(path: str, body: dict[str, Any]) -> tuple[int, Any]:
    """Tavily's ``/extract``: the article and the tags page read (the key echoed, as an API may), the rest failed."""
    assert path == "/extract"
    pages = {ARTICLE: ("Pinning actions", f"# Pinning actions\n\nA tag can move. (asked with {KEY})"),
             TAGS: ("Git tags", "# Git tags\n\nA tag names a commit.")}
    results = [{"url": u, "title": pages[u][0], "raw_content": pages[u][1], "images": [], "favicon": None}
               for u in body["urls"] if u in pages]
    failed = [{"url": u, "error": "Failed to fetch url"} for u in body["urls"] if u not in pages]
    return 200, {"results": results, "failed_results": failed, "response_time": 0.7, "request_id": "live-1"}


def exa_contents(path: str, body: dict[str, Any]) -> tuple[int, Any]:
    """Exa's ``/contents``: the article read (to its final URL), the rest a crawl error."""
    assert path == "/contents"
    results = [{"id": u, "url": u + "/", "title": "Pinning actions", "publishedDate": "2025-06-30T00:00:00.000Z",
                "author": "Ann", "text": "A tag can move; a commit SHA cannot."} for u in body["urls"] if u == ARTICLE]
    statuses = [{"id": u, "status": "success", "source": "crawled"} if u == ARTICLE else
                {"id": u, "status": "error", "error": {"tag": "CRAWL_NOT_FOUND", "httpStatusCode": 404}}
                for u in body["urls"]]
    return 200, {"requestId": "live-exa", "results": results, "statuses": statuses, "costDollars": {"total": 0.001}}


@pytest.fixture
def provider() -> Iterator[Callable[[Callable[[str, dict[str, Any]], tuple[int, Any]]], tuple[Provider, str]]]:
    running: list[ServerThread] = []

    def start(answer: Callable[[str, dict[str, Any]], tuple[int, Any]]) -> tuple[Provider, str]:
        held = Provider(answer)
        thread = ServerThread(ThreadingHTTPServer(("127.0.0.1", 0), _handler(held)), "provider").start()
        running.append(thread)
        return held, thread.url

    yield start
    for thread in running:
        thread.stop()


def live(url: str, clock: datetime = NOW) -> LiveWeb:
    """The live web, with Tavily and Exa at the stand-in (their search endpoints; the readers are beside them)."""
    search = {"tavily": SearchProviderConfig(endpoint=f"{url}/search", key_env="TAVILY_LIVE_KEY"),
              "exa": SearchProviderConfig(endpoint=f"{url}/search", key_env="EXA_LIVE_KEY")}
    settings = RecordConfig(search=search, allow=(url.removeprefix("http://"),))
    return LiveWeb(settings, environ={"TAVILY_LIVE_KEY": KEY, "EXA_LIVE_KEY": KEY}, clock=lambda: clock)


# --------------------------------------------------------------------------- the replay server

@dataclass
class Client:
    server: ReplayServer
    log: io.StringIO

    def post(self, path: str, body: Any, headers: dict[str, str] | None = None) -> tuple[int, Any]:
        host, port = self.server.server_address[:2]
        conn = http.client.HTTPConnection(str(host), int(port), timeout=10)
        try:
            conn.request("POST", path, body=json.dumps(body), headers={"Content-Type": "application/json",
                                                                        **(headers or {})})
            response = conn.getresponse()
            return response.status, json.loads(response.read())
        finally:
            conn.close()


@pytest.fixture
def serving() -> Iterator[Callable[..., Client]]:
    running: list[ServerThread] = []

    def start(store: SnapshotStore, source: RecordingSource | None = None) -> Client:
        log = io.StringIO()
        server = ReplayServer(store, log=log, source=source, secrets=() if source is None else source.secrets,
                              afresh=source is not None and source.mode == RECORD)
        running.append(ServerThread(server, "replay").start())
        return Client(server, log)

    yield start
    for thread in running:
        thread.stop()


@pytest.fixture
def golden(tmp_path: Path) -> Path:
    root = tmp_path / "mine"
    root.mkdir()
    (root / "golden.yaml").write_text("format: sourcegate-golden/1\nversion: 1\nname: mine\ncases:\n"
                                      "- id: a\n  question: q\n", encoding="utf-8")
    return root


def store_of(golden: Path) -> SnapshotStore:
    return SnapshotStore(snapshot_dir(str(golden)))


def kept(golden: Path) -> dict[str, dict[str, Any]]:
    """The contents entries, by URL."""
    entries = [json.loads(p.read_text(encoding="utf-8")) for p in (golden / "snapshot" / "contents").glob("*.json")]
    return {e["url"]: e for e in entries}


# --------------------------------------------------------------------------- Tavily's extract

def test_a_tavily_extract_is_read_by_tavily_in_one_request_and_replayed_as_tavily_answered(
        golden: Path, provider: Any, serving: Callable[..., Client]) -> None:
    tavily, url = provider(tavily_extract)
    store = store_of(golden)
    source = RecordingSource(store, live(url), NEW_EPISODES)
    asked = {"urls": [ARTICLE, TAGS, GONE], "extract_depth": "advanced", "timeout": 30, "api_key": "tvly-replay"}
    status, answer = serving(store, source).post("/extract", asked)

    # one request to Tavily, with the agent's own parameters, the key from the environment and not the agent's
    [(path, body, headers)] = tavily.asked
    assert path == "/extract" and headers["authorization"] == f"Bearer {KEY}"
    assert body == {"urls": [ARTICLE, TAGS, GONE], "extract_depth": "advanced", "timeout": 30}
    # the agent gets what Tavily said of each URL, as it came (the key it echoed scrubbed out)
    assert status == 200
    assert [(r["url"], r["title"]) for r in answer["results"]] == [(ARTICLE, "Pinning actions"), (TAGS, "Git tags")]
    assert answer["results"][0]["raw_content"] == "# Pinning actions\n\nA tag can move. (asked with REDACTED)"
    assert answer["results"][0]["favicon"] is None  # every field of Tavily's item, as it came
    assert answer["failed_results"] == [{"url": GONE, "error": "Failed to fetch url"}]

    # each URL Tavily read is an entry of its own; the one it could not read is never stored
    entries = kept(golden)
    assert sorted(entries) == [ARTICLE, TAGS]
    assert entries[ARTICLE]["provider"] == "tavily" and entries[ARTICLE]["recorded_at"] == "2026-11-30T12:00:00Z"
    assert entries[ARTICLE]["params"] == {"extract_depth": "advanced", "timeout": 30}
    assert entries[ARTICLE]["response"] == {"results": [answer["results"][0]]}
    assert not (golden / "snapshot" / "pages").exists()
    session = finish(source, str(golden))
    assert [(r.layer, r.url) for r in session.recorded] == [("contents", ARTICLE), ("contents", TAGS)]
    assert [f.what for f in session.failed] == [f"{GONE} (read by tavily)"]
    assert "tavily could not read it (Failed to fetch url)" in session.summary()
    assert KEY not in "".join(p.read_text(encoding="utf-8") for p in golden.rglob("*") if p.is_file())

    # replayed offline: the same titles and texts; the URL never recorded is a miss
    status, again = serving(store).post("/extract", asked)
    assert status == 200 and again["results"] == answer["results"]
    [failed] = again["failed_results"]
    assert failed["url"] == GONE and "not in the snapshot" in failed["error"]
    assert len(tavily.asked) == 1


def test_recording_again_sends_only_the_urls_the_snapshot_lacks_and_keeps_an_unchanged_reading(
        golden: Path, provider: Any, serving: Callable[..., Client]) -> None:
    tavily, url = provider(tavily_extract)
    store = store_of(golden)
    serving(store, RecordingSource(store, live(url), NEW_EPISODES)).post("/extract", {"urls": [ARTICLE]})
    first = (golden / "snapshot" / "contents").iterdir().__next__().read_text(encoding="utf-8")

    source = RecordingSource(store, live(url, LATER), NEW_EPISODES)
    status, answer = serving(store, source).post("/extract", {"urls": [ARTICLE, TAGS]})
    assert status == 200 and [r["url"] for r in answer["results"]] == [ARTICLE, TAGS]
    assert [body["urls"] for _, body, _ in tavily.asked] == [[ARTICLE], [TAGS]]  # only what was lacking

    # --record all asks Tavily again, once per session; the same reading keeps its recorded_at
    source = RecordingSource(store, live(url, LATER), RECORD)
    client = serving(store, source)
    client.post("/extract", {"urls": [ARTICLE]})
    client.post("/extract", {"urls": [ARTICLE]})
    assert [body["urls"] for _, body, _ in tavily.asked][2:] == [[ARTICLE]]
    assert kept(golden)[ARTICLE]["recorded_at"] == "2026-11-30T12:00:00Z"
    assert first in [p.read_text(encoding="utf-8") for p in (golden / "snapshot" / "contents").iterdir()]
    assert finish(source, str(golden)).recorded == ()


def test_a_recording_made_with_other_parameters_is_a_miss_that_names_the_recording(
        golden: Path, provider: Any, serving: Callable[..., Client]) -> None:
    _, url = provider(tavily_extract)
    store = store_of(golden)
    serving(store, RecordingSource(store, live(url), NEW_EPISODES)).post(
        "/extract", {"urls": [ARTICLE], "extract_depth": "advanced"})
    replay = serving(store)
    status, answer = replay.post("/extract", {"urls": [ARTICLE], "format": "text", "extract_depth": "advanced"})
    assert status == 200 and answer["results"] == []
    [failed] = answer["failed_results"]
    assert failed["error"] == f"{ARTICLE}: format 'text' differs from the recording's (none: the provider's default)"
    assert "MISS tavily POST /extract" in replay.log.getvalue()
    # what does not change the text (a timeout, the images) is not compared
    status, answer = replay.post("/extract", {"urls": [ARTICLE], "extract_depth": "Advanced", "timeout": 5})
    assert [r["title"] for r in answer["results"]] == ["Pinning actions"]


def test_a_provider_that_fails_the_whole_request_fails_each_url_and_nothing_is_stored(
        golden: Path, provider: Any, serving: Callable[..., Client]) -> None:
    _, url = provider(lambda _path, _body: (500, {"detail": {"error": f"Internal error for {KEY}"}}))
    store = store_of(golden)
    source = RecordingSource(store, live(url), NEW_EPISODES)
    client = serving(store, source)
    status, answer = client.post("/extract", {"urls": [ARTICLE, TAGS]})
    assert status == 200 and answer["results"] == []
    assert [f["url"] for f in answer["failed_results"]] == [ARTICLE, TAGS]
    assert "HTTP 500" in answer["failed_results"][0]["error"] and KEY not in json.dumps(answer)
    assert not (golden / "snapshot").exists()
    assert len(finish(source, str(golden)).failed) == 2
    assert KEY not in client.log.getvalue()


def test_a_url_that_carries_a_secret_is_never_sent_to_the_provider(
        golden: Path, provider: Any, serving: Callable[..., Client]) -> None:
    tavily, url = provider(tavily_extract)
    store = store_of(golden)
    secret = f"{SITE}/private?api_key=sk-private-123456"
    status, answer = serving(store, RecordingSource(store, live(url), NEW_EPISODES)).post(
        "/extract", {"urls": [secret, ARTICLE]})
    assert [body["urls"] for _, body, _ in tavily.asked] == [[ARTICLE]]
    [failed] = answer["failed_results"]
    assert "carries a secret in its query parameter 'api_key'" in failed["error"]
    assert failed["url"] == secret and "sk-private-123456" not in failed["error"]  # the agent's own URL, echoed
    assert sorted(kept(golden)) == [ARTICLE]


def test_an_older_snapshot_answers_the_title_of_the_page_it_holds(golden: Path, serving: Callable[..., Client]) -> None:
    store = store_of(golden)
    html = "<html><head><title>Pinning  actions &amp; tags</title></head><body><p>A tag can move.</p></body></html>"
    store.put_page(PageRecord(url=ARTICLE, status=200, body=html, content_type="text/html"))
    store.put_extraction(ExtractionRecord(url=ARTICLE, text="A tag can move."))
    store.put_page(PageRecord(url=TAGS, status=200, body="A tag names a commit.", content_type="text/plain"))
    status, answer = serving(store).post("/extract", {"urls": [ARTICLE, TAGS]})
    assert status == 200
    assert answer["results"] == [
        {"url": ARTICLE, "title": "Pinning actions & tags", "raw_content": "A tag can move.", "images": []},
        {"url": TAGS, "title": None, "raw_content": "A tag names a commit.", "images": []}]


# --------------------------------------------------------------------------- Exa's contents

def test_exa_contents_are_read_by_exa_and_replayed_with_their_statuses(
        golden: Path, provider: Any, serving: Callable[..., Client]) -> None:
    exa, url = provider(exa_contents)
    store = store_of(golden)
    source = RecordingSource(store, live(url), NEW_EPISODES)
    asked = {"urls": [ARTICLE, GONE], "text": {"maxCharacters": 10000}}
    status, answer = serving(store, source).post("/contents", asked, {"x-api-key": "exa-replay"})
    [(path, body, headers)] = exa.asked
    assert path == "/contents" and headers["x-api-key"] == KEY and body == asked
    assert status == 200 and [r["url"] for r in answer["results"]] == [ARTICLE + "/"]
    assert answer["results"][0]["author"] == "Ann"
    assert answer["statuses"] == [{"id": ARTICLE, "status": "success", "source": "crawled"},
                                  {"id": GONE, "status": "error",
                                   "error": {"tag": "CRAWL_NOT_FOUND", "httpStatusCode": 404}}]
    assert sorted(kept(golden)) == [ARTICLE]
    assert [f.reason for f in finish(source, str(golden)).failed] == [
        "exa could not read it (tag CRAWL_NOT_FOUND, httpStatusCode 404)"]

    status, again = serving(store).post("/contents", {"urls": [ARTICLE], "text": {"maxCharacters": 10000}},
                                        {"x-api-key": "exa-replay"})
    assert again["results"] == answer["results"] and again["statuses"] == answer["statuses"][:1]
    status, other = serving(store).post("/contents", {"urls": [ARTICLE], "text": True}, {"x-api-key": "k"})
    assert other["results"] == [] and other["statuses"][0]["status"] == "error"  # another text option: a miss
