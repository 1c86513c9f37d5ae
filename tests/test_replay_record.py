"""Record mode: the server answers what the snapshot holds, fetches what it lacks from the live web,
stores it (search JSON, page, extraction), lists it, bumps the golden set's version, and keeps every
failure and every key out of the snapshot.

The live web is a loopback stand-in: a search API and web pages on 127.0.0.1, allowed through
``record.allow`` by port; other addresses and names come from an injected resolver (no DNS).
"""

from __future__ import annotations

import io
import json
import os
import socket
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from gate.cli import main
from gate.config import RecordConfig, SearchProviderConfig
from gate.errors import InputError
from gate.live import LiveWeb
from gate.load.golden import load_golden
from gate.replay.recording import NEW_EPISODES, RECORD, RecordingSource, finish
from gate.replay.serve import ReplayServer
from gate.snapshot.extract import extract_page
from gate.snapshot.records import PAGES, Anchor, PageRecord, SearchRecord, search_key, url_key
from gate.snapshot.store import SnapshotStore, snapshot_dir
from gate.snapshot.version import NOTE, bump_version, bumped_text
from gate.term.progress import PlainProgress
from tests.support.loopback import ServerThread, get_json

KEY = "sk-live-0123456789abcdef"
ENDPOINT_SECRET = "tok-9876543210fedcba"
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
GOLDEN = """\
# A small golden set: the comments and the layout are the author's, and stay.
format: sourcegate-golden/1
version: 3
name: recorded
cases:
- id: pin-actions
  question: Why pin GitHub Actions to a commit SHA?   # version: 9 in a comment is not the version
"""
ARTICLE = """<!doctype html>
<html><head><title>Pinning actions</title><meta property="article:published_time" content="2025-06-30T05:41:00Z">
<script>var version = "ignore me";</script><style>p {color: red}</style></head>
<body><nav><a href="/">Home</a></nav>
<h1>Pin actions to a full-length commit SHA</h1>
<p>A tag can move; a <a href="https://docs.github.com/en/actions/security">commit SHA</a> cannot.</p>
<p>Published <time datetime="2024-01-01">long ago</time>.</p></body></html>
"""


# --------------------------------------------------------------------------- the loopback live web

@dataclass
class Web:
    """The stand-in: a search API that echoes the key it got (as some providers do), and pages."""

    server: ThreadingHTTPServer
    seen: list[str] = field(default_factory=list)

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


def _handler(web: Callable[[], Web], routes: dict[str, Callable[[BaseHTTPRequestHandler], None]]) -> type:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go in two writes: each reply would wait on a delayed ACK

        def do_GET(self) -> None:  # noqa: N802
            web().seen.append(self.path)
            route = routes.get(urlsplit(self.path).path)
            if route is None:
                send(self, 404, b"not here", "text/plain")
            else:
                route(self)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass
    return Handler


def send(h: BaseHTTPRequestHandler, status: int, body: bytes, content_type: str,
         headers: dict[str, str] | None = None) -> None:
    h.send_response(status)
    h.send_header("Content-Type", content_type)
    h.send_header("Content-Length", str(len(body)))
    for name, value in (headers or {}).items():
        h.send_header(name, value)
    h.end_headers()
    h.wfile.write(body)


def search_api(h: BaseHTTPRequestHandler) -> None:
    query = parse_qs(urlsplit(h.path).query)["q"][0]
    if query == "make it fail":
        body = {"error": f"invalid key {h.headers.get('X-Api-Key')}"}
    else:
        body = {"query": query, "echo": {"key": h.headers.get("X-Api-Key")},
                "results": [{"url": "https://docs.github.com/en/actions/security", "title": "Security hardening"}]}
    send(h, 200, json.dumps(body).encode(), "application/json")


@pytest.fixture
def live_web() -> Iterator[Callable[..., Web]]:
    running: list[ServerThread] = []

    def start(**extra: Callable[[BaseHTTPRequestHandler], None]) -> Web:
        holder: list[Web] = []
        routes = {"/api/search": search_api,
                  "/a": lambda h: send(h, 200, ARTICLE.encode(), "text/html; charset=utf-8"),
                  "/notes.md": lambda h: send(h, 200, b"See [the docs](/docs) for more.", "text/markdown"),
                  "/big": lambda h: send(h, 200, b"x" * 5000, "text/plain"),
                  "/flaky": lambda h: send(h, 503, b"try later", "text/plain"),
                  **extra}
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(lambda: holder[0], routes))
        holder.append(Web(server))
        running.append(ServerThread(server, "live-web").start())
        return holder[0]

    yield start
    for thread in running:
        thread.stop()


def resolver(names: dict[str, str]) -> Callable[[str, int], list[tuple[Any, ...]]]:
    """getaddrinfo for a fixed table of names (IP literals as themselves); never asks DNS."""
    def resolve(host: str, port: int) -> list[tuple[Any, ...]]:
        ip = names.get(host, host)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, port))]
    return resolve


def live(web: Web, *, environ: dict[str, str] | None = None, names: dict[str, str] | None = None,
         **provider: Any) -> LiveWeb:
    search = {"mine": SearchProviderConfig(**{"endpoint": web.url("/api/search"), "key_env": "MINE_KEY",
                                              **provider})}
    settings = RecordConfig(search=search, allow=(f"127.0.0.1:{web.port}",), max_bytes=4000)
    env = {"MINE_KEY": KEY} if environ is None else environ
    return LiveWeb(settings, environ=env, resolve=resolver(names or {}), clock=lambda: NOW)


# --------------------------------------------------------------------------- the server under test

@dataclass
class Client:
    server: ReplayServer
    log: io.StringIO

    def get(self, path: str, **params: str) -> tuple[int, Any]:
        return get_json(self.server, path, **params)


@pytest.fixture
def golden(tmp_path: Path) -> Path:
    root = tmp_path / "recorded"
    root.mkdir()
    (root / "golden.yaml").write_text(GOLDEN, encoding="utf-8")
    return root


@pytest.fixture
def serving() -> Iterator[Callable[..., Client]]:
    running: list[ServerThread] = []

    def start(store: SnapshotStore, source: RecordingSource | None = None) -> Client:
        log = io.StringIO()
        server = ReplayServer(store, log=log, source=source, secrets=() if source is None else source.secrets)
        running.append(ServerThread(server, "record").start())
        return Client(server, log)

    yield start
    for thread in running:
        thread.stop()


def store_of(golden: Path) -> SnapshotStore:
    return SnapshotStore(snapshot_dir(str(golden)))


def everything_written(golden: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(golden.rglob("*")) if p.is_file())


# --------------------------------------------------------------------------- recording, then replay

def test_new_episodes_records_search_page_and_extraction_then_replay_serves_them_offline(
        golden: Path, live_web: Callable[..., Web], serving: Callable[..., Client]) -> None:
    web = live_web()
    store = store_of(golden)
    source = RecordingSource(store, live(web), NEW_EPISODES)
    client = serving(store, source)

    status, answer = client.get("/search", provider="mine", q="pin  actions")
    assert status == 200
    assert answer["results"][0]["url"] == "https://docs.github.com/en/actions/security"
    assert answer["echo"] == {"key": "REDACTED"}  # the provider echoed the key: scrubbed before anyone sees it
    status, page = client.get("/fetch", url=web.url("/a"))
    assert (status, page["status"], page["final_url"]) == (200, 200, web.url("/a"))
    status, extraction = client.get("/extract", url=web.url("/a"))
    assert status == 200
    assert extraction["published"] == "2025-06-30"
    assert "Pin actions to a full-length commit SHA" in extraction["text"] and "ignore me" not in extraction["text"]
    assert {"href": "https://docs.github.com/en/actions/security", "text": "commit SHA"} in extraction["anchors"]
    assert len(web.seen) == 2  # the extraction came from the page just recorded, not a second fetch

    session = finish(source, str(golden))
    assert [(r.layer, r.change) for r in session.recorded] == [
        ("extraction", "added"), ("page", "added"), ("search", "added")]
    document = json.loads((golden / "snapshot" / "RECORDED.json").read_text(encoding="utf-8"))
    assert document["format"] == "sourcegate-recorded/2" and document["mode"] == "new-episodes"
    assert document["version"] == {"from": 3, "to": 4}
    search_entry = next(e for e in document["entries"] if e["layer"] == "search")
    assert search_entry == {"layer": "search", "key": search_key("mine", "pin actions"), "change": "added",
                            "file": f"snapshot/search/{search_key('mine', 'pin actions')}.json",
                            "provider": "mine", "query": "pin  actions"}
    assert "added search mine: 'pin  actions'" in session.summary()
    assert "version 3 -> 4" in session.summary()
    assert load_golden(str(golden)).version == 4

    # Replay: the live web is gone, and the same requests get the same answers from the snapshot.
    seen = len(web.seen)
    replay = serving(store)
    assert replay.get("/search", provider="mine", q="pin actions") == (200, answer)
    assert replay.get("/fetch", url=web.url("/a")) == (200, page)
    assert replay.get("/extract", url=web.url("/a")) == (200, extraction)
    assert len(web.seen) == seen
    assert KEY not in everything_written(golden) + client.log.getvalue() + session.summary()


def test_new_episodes_records_only_what_the_snapshot_lacks(
        golden: Path, live_web: Callable[..., Web], serving: Callable[..., Client]) -> None:
    web = live_web()
    store = store_of(golden)
    store.put_search(SearchRecord("mine", "pinned", {"results": [{"url": "https://old.test/"}]}))
    store.put_page(PageRecord(url=web.url("/a"), status=200, body="as recorded last year"))
    before = {p: p.read_text(encoding="utf-8") for p in (golden / "snapshot").rglob("*.json")}
    source = RecordingSource(store, live(web), NEW_EPISODES)
    client = serving(store, source)

    assert client.get("/search", provider="mine", q="pinned")[1] == {"results": [{"url": "https://old.test/"}]}
    assert client.get("/fetch", url=web.url("/a"))[1]["body"] == "as recorded last year"
    # The page is held without its extraction: derived from the stored page, not fetched again.
    assert client.get("/extract", url=web.url("/a"))[1]["text"] == "as recorded last year"
    assert client.get("/fetch", url=web.url("/notes.md"))[0] == 200
    assert web.seen == ["/notes.md"]

    recorded = finish(source, str(golden)).recorded
    assert [(r.layer, r.url) for r in recorded] == [
        ("extraction", web.url("/a")), ("extraction", web.url("/notes.md")), ("page", web.url("/notes.md"))]
    assert all(p.read_text(encoding="utf-8") == text for p, text in before.items())  # kept as recorded
    notes = store.extraction(web.url("/notes.md"))
    assert notes.anchors == (Anchor(web.url("/docs"), "the docs"),)  # markdown links, as the build finds them


def test_each_entry_recorded_is_reported_as_progress(
        golden: Path, live_web: Callable[..., Web], serving: Callable[..., Client]) -> None:
    web = live_web()
    store = store_of(golden)
    out = io.StringIO()
    progress = PlainProgress(out, every=0, clock=lambda: 0.0)
    progress.start(None, "recording")
    client = serving(store, RecordingSource(store, live(web), NEW_EPISODES, progress))
    assert client.get("/fetch", url=web.url("/a"))[0] == 200  # the page and its extraction
    assert client.get("/fetch", url=web.url("/a"))[0] == 200  # held now: nothing new
    progress.close()
    assert out.getvalue().splitlines() == ["sourcegate: recording: 1, 0 s", "sourcegate: recording: 2, 0 s",
                                           "sourcegate: recording done: 2, 0 s"]


def test_record_fetches_each_request_anew_once_per_session(
        golden: Path, live_web: Callable[..., Web], serving: Callable[..., Client]) -> None:
    web = live_web()
    store = store_of(golden)
    store.put_search(SearchRecord("mine", "pin actions", {"results": []}))
    source = RecordingSource(store, live(web), RECORD)
    client = serving(store, source)

    first = client.get("/search", provider="mine", q="pin actions")
    assert first[1]["results"] != []  # re-recorded from the live web
    assert client.get("/search", provider="mine", q="pin actions") == first  # and then served as recorded
    assert client.get("/fetch", url=web.url("/a"))[0] == 200
    assert client.get("/fetch", url=web.url("/a"))[0] == 200
    assert len(web.seen) == 2

    session = finish(source, str(golden))
    assert [(r.layer, r.change) for r in session.recorded] == [
        ("extraction", "added"), ("page", "added"), ("search", "updated")]
    assert store.search("mine", "pin actions").response == first[1]


def test_a_session_that_records_nothing_changes_nothing(
        golden: Path, live_web: Callable[..., Web], serving: Callable[..., Client]) -> None:
    web = live_web()
    store = store_of(golden)
    source = RecordingSource(store, live(web), NEW_EPISODES)
    client = serving(store, source)
    assert client.get("/fetch", url=web.url("/flaky"))[0] == 502
    session = finish(source, str(golden))
    assert session.recorded == () and session.bump is None
    assert "nothing new recorded" in session.summary() and "HTTP 503" in session.summary()
    assert (golden / "golden.yaml").read_text(encoding="utf-8") == GOLDEN
    assert not (golden / "snapshot").exists()


# --------------------------------------------------------------------------- refusals, end to end

def test_a_redirect_to_a_loopback_port_not_allowed_is_refused_and_not_stored(
        golden: Path, live_web: Callable[..., Web], serving: Callable[..., Client]) -> None:
    inside = live_web()
    web = live_web(**{"/go": lambda h: send(h, 302, b"", "text/plain", {"Location": inside.url("/a")})})
    store = store_of(golden)
    source = RecordingSource(store, live(web), NEW_EPISODES)
    client = serving(store, source)

    status, body = client.get("/fetch", url=web.url("/go"))
    assert status == 403
    assert body == {"error": f"refused: 127.0.0.1 is a loopback address (redirect hop 1 to {inside.url('/a')} "
                             f"from {web.url('/go')})",
                    "layer": "page", "key": url_key(web.url("/go")), "live": True}
    assert inside.seen == []
    assert not os.path.exists(store.path(PAGES, url_key(web.url("/go"))))
    assert "sourcegate snapshot: NOT RECORDED refused: 127.0.0.1 is a loopback address" in client.log.getvalue()
    assert finish(source, str(golden)).recorded == ()


def test_a_name_resolving_to_the_metadata_address_is_refused(
        golden: Path, live_web: Callable[..., Web], serving: Callable[..., Client]) -> None:
    web = live_web()
    store = store_of(golden)
    source = RecordingSource(store, live(web, names={"innocent.test": "169.254.169.254"}), NEW_EPISODES)
    client = serving(store, source)
    status, body = client.get("/extract", url="http://innocent.test/latest/meta-data/")
    assert status == 403
    assert body["error"] == ("refused: innocent.test resolves to 169.254.169.254, a cloud metadata address "
                             "(never allowed) (http://innocent.test/latest/meta-data/)")
    assert body["layer"] == "extraction"
    assert not (golden / "snapshot").exists()


def test_a_body_over_the_cap_and_a_transient_status_are_answered_as_errors_never_stored(
        golden: Path, live_web: Callable[..., Web], serving: Callable[..., Client]) -> None:
    web = live_web()
    store = store_of(golden)
    source = RecordingSource(store, live(web), NEW_EPISODES)
    client = serving(store, source)
    status, body = client.get("/fetch", url=web.url("/big"))
    assert status == 502 and "over the cap of 4000 (record.max_bytes)" in body["error"]
    status, body = client.get("/fetch", url=web.url("/flaky"))
    assert status == 502 and "HTTP 503 is a transient failure" in body["error"]
    # Failures are never cached: the next request tries the live web again.
    assert client.get("/fetch", url=web.url("/flaky"))[0] == 502
    assert web.seen == ["/big", "/flaky", "/flaky"]
    assert not (golden / "snapshot").exists()
    assert [f.what for f in source.failed()] == [web.url("/big"), web.url("/flaky"), web.url("/flaky")]


def test_a_secret_in_the_provider_url_never_reaches_the_snapshot_the_log_or_the_answer(
        golden: Path, live_web: Callable[..., Web], serving: Callable[..., Client]) -> None:
    web = live_web()
    store = store_of(golden)
    endpoint = web.url(f"/api/search?api_key={ENDPOINT_SECRET}")
    recorder = live(web, environ={"MINE_KEY": KEY, "MINE_ENDPOINT": endpoint}, endpoint=None,
                    endpoint_env="MINE_ENDPOINT")
    source = RecordingSource(store, recorder, NEW_EPISODES)
    client = serving(store, source)

    assert client.get("/search", provider="mine", q="pin actions")[0] == 200
    status, body = client.get("/search", provider="mine", q="make it fail")  # the provider echoes the key
    assert status == 502 and "not recorded" in body["error"] and "REDACTED" in body["error"]
    status, body = client.get("/fetch", url=web.url(f"/a?token={ENDPOINT_SECRET}"))
    assert status == 403 and "carries a secret in its query parameter 'token'" in body["error"]
    session = finish(source, str(golden))
    shown = json.dumps(body) + client.log.getvalue() + session.summary() + everything_written(golden)
    assert KEY not in shown and ENDPOINT_SECRET not in shown
    assert [r.layer for r in session.recorded] == ["search"]


def test_a_secret_written_in_the_configured_endpoint_is_an_input_error_without_the_secret(
        live_web: Callable[..., Web]) -> None:
    web = live_web()
    with pytest.raises(InputError) as caught:
        live(web, endpoint=web.url(f"/api/search?key={ENDPOINT_SECRET}"))
    assert "carries a secret in its query parameter 'key'" in str(caught.value)
    assert ENDPOINT_SECRET not in str(caught.value)


# --------------------------------------------------------------------------- the version bump

def test_the_bump_changes_only_the_version_line_and_keeps_an_authors_comment(golden: Path) -> None:
    bump = bump_version(str(golden))
    assert bump is not None and (bump.old, bump.new) == (3, 4)
    assert (golden / "golden.yaml").read_text(encoding="utf-8") == GOLDEN.replace(
        "version: 3\n", f"version: 4  {NOTE}\n")
    bump_version(str(golden))  # the note is not repeated
    assert f"version: 5  {NOTE}\n" in (golden / "golden.yaml").read_text(encoding="utf-8")
    text, old, new = bumped_text("version: 7   # pinned by the team\nname: x\ncases: []\n", "g.yaml")
    assert (text, old, new) == ("version: 8  # pinned by the team\nname: x\ncases: []\n", 7, 8)


@pytest.mark.parametrize("text", [
    "{version: 3, name: x, cases: []}\n",
    "version: '3'\nname: x\ncases: []\n",
    "version: 3\nname: x\nversion: 4\ncases: []\n",
    'description: "a\nversion: 3\nb"\nname: x\ncases: []\n',  # the line is inside a quoted string
])
def test_a_version_the_bump_cannot_edit_safely_is_an_input_error(text: str) -> None:
    with pytest.raises(InputError, match=r"g\.yaml at \$\.version: cannot bump the version"):
        bumped_text(text, "g.yaml")


def test_a_golden_yaml_the_bump_cannot_edit_still_gets_the_recorded_list(
        golden: Path, live_web: Callable[..., Web], serving: Callable[..., Client]) -> None:
    (golden / "golden.yaml").write_text(GOLDEN.replace("version: 3", "version: '3'"), encoding="utf-8")
    web = live_web()
    store = store_of(golden)
    source = RecordingSource(store, live(web), NEW_EPISODES)
    serving(store, source).get("/fetch", url=web.url("/a"))
    session = finish(source, str(golden))
    assert session.bump is None and "raise the version by hand" in session.summary()
    assert json.loads((golden / "snapshot" / "RECORDED.json").read_text(encoding="utf-8"))["version"] is None


# --------------------------------------------------------------------------- extraction of a live page

def test_an_html_page_gives_its_visible_text_links_and_date() -> None:
    page = PageRecord(url="https://news.test/a", status=200, body=ARTICLE, final_url="https://news.test/b/",
                      content_type="text/html")
    extraction = extract_page(page)
    assert extraction.text == ("Home\nPin actions to a full-length commit SHA\n"
                               "A tag can move; a commit SHA cannot.\nPublished long ago.")
    assert extraction.anchors == (Anchor("https://news.test/", "Home"),
                                  Anchor("https://docs.github.com/en/actions/security", "commit SHA"))
    assert extraction.published == date(2025, 6, 30)  # the page's meta wins over a <time> in its text
    plain = extract_page(PageRecord(url="https://a.test/t", status=200, body="<b>not html</b>",
                                    content_type="text/plain"))
    assert (plain.text, plain.anchors, plain.published) == ("<b>not html</b>", (), None)


# --------------------------------------------------------------------------- the command line

def test_snapshot_record_through_the_cli_lists_what_it_recorded(
        golden: Path, live_web: Callable[..., Web], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    web = live_web()
    (golden / "sourcegate.yaml").write_text(
        f"record:\n  search:\n    mine: {{endpoint: '{web.url('/api/search')}', key_env: MINE_KEY}}\n"
        f"  allow: ['127.0.0.1:{web.port}']\n", encoding="utf-8")
    monkeypatch.setenv("MINE_KEY", KEY)

    def one_request_then_ctrl_c(self: ReplayServer, poll_interval: float = 0.5) -> None:
        self.source.search("mine", "pin actions")
        raise KeyboardInterrupt

    monkeypatch.setattr(ReplayServer, "serve_forever", one_request_then_ctrl_c)
    assert main(["snapshot", "record", str(golden), "--port", "0"]) == 0
    err = capsys.readouterr().err
    assert "new-episodes: serving" in err and "1 entry recorded" in err and "added search mine" in err
    assert "version 3 -> 4" in err and KEY not in err
    assert store_of(golden).search("mine", "pin actions").response["echo"] == {"key": "REDACTED"}


def test_serve_mode_record_without_a_configured_provider_answers_each_search_with_an_error(
        golden: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def ask(self: ReplayServer, poll_interval: float = 0.5) -> None:
        try:
            self.source.search("serpapi", "pin actions")
        except Exception as e:  # what the handler turns into a 502
            print(f"answered: {e}")
        raise KeyboardInterrupt

    monkeypatch.setattr(ReplayServer, "serve_forever", ask)
    assert main(["snapshot", "serve", str(golden), "--port", "0", "--mode", "record"]) == 0
    captured = capsys.readouterr()
    assert "no search provider 'serpapi' is configured for recording" in captured.out
    assert "nothing new recorded" in captured.err


def test_a_secret_in_the_configured_endpoint_is_exit_2_without_the_secret(
        golden: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (golden / "sourcegate.yaml").write_text(
        f"record:\n  search:\n    mine: {{endpoint: 'https://search.test/api?api_key={ENDPOINT_SECRET}'}}\n",
        encoding="utf-8")
    assert main(["snapshot", "record", str(golden), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "record.search.mine.endpoint" in err and ENDPOINT_SECRET not in err


def test_concurrent_requests_for_one_missing_search_ask_the_provider_once(
        golden: Path, live_web: Callable[..., Web], serving: Callable[..., Client]) -> None:
    web = live_web()
    store = store_of(golden)
    client = serving(store, RecordingSource(store, live(web), NEW_EPISODES))
    with ThreadPoolExecutor(max_workers=6) as pool:
        answers = list(pool.map(lambda _: client.get("/search", provider="mine", q="pin actions"), range(6)))
    assert len({json.dumps(a) for a in answers}) == 1 and answers[0][0] == 200
    assert len(web.seen) == 1


def test_recording_again_keeps_the_fetched_at_of_an_unchanged_page_and_bumps_only_for_a_change(
        golden: Path, live_web: Callable[..., Web], serving: Callable[..., Client]) -> None:
    web = live_web()
    store = store_of(golden)
    first = RecordingSource(store, live(web), RECORD)
    serving(store, first).get("/fetch", url=web.url("/a"))
    assert finish(first, str(golden)).bump is not None
    before = everything_written(golden)
    later = datetime(2027, 3, 1, tzinfo=UTC)
    again = RecordingSource(store, LiveWeb(live(web).settings, environ={"MINE_KEY": KEY}, resolve=resolver({}),
                                           clock=lambda: later), RECORD)
    assert serving(store, again).get("/fetch", url=web.url("/a"))[0] == 200
    session = finish(again, str(golden))
    assert len(web.seen) == 2  # fetched again, the same page
    assert session.recorded == () and session.bump is None
    assert everything_written(golden) == before
    assert store.page(web.url("/a")).fetched_at == NOW
