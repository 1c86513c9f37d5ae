"""One reading of a URL decides the host for the checks and for the fetch.

``http://127.0.0.1:9000\\@127.0.0.1:9001/x`` is a request to :9000 for every browser (a backslash
ends the authority, as a slash does). If the checks read it as :9001, a trace can be judged by one
site and its page fetched from another: ``https://attacker.example\\@www.nature.com/x`` counted as
nature.com and recorded from attacker.example. Here two real loopback servers stand on two
addresses (127.0.0.1 and 127.0.0.2, both loopback) and ports: for each tricky spelling, record
mode's request reaches exactly the server whose host :func:`gate.urls.host` names, or it is refused
before anything is sent. The replay server answers from the entry of that host, and the checks
(:func:`gate.record.guard`, the source rules) judge that host too.
"""

from __future__ import annotations

import io
import socket
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from gate.checks.source_rules import rule_source_type
from gate.config import Config, RecordConfig
from gate.errors import FetchRefused
from gate.live import LiveWeb
from gate.model import Citation
from gate.record import Recorder
from gate.replay.recording import NEW_EPISODES, RecordingSource, finish
from gate.replay.serve import ReplayServer
from gate.snapshot.extract import extract_page
from gate.snapshot.records import PageRecord
from gate.snapshot.store import SnapshotStore
from gate.urls import canonical, host
from tests.support.loopback import ServerThread, get_json

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


@dataclass
class Site:
    """A web server on one loopback address; it notes every request line it gets."""

    address: str
    seen: list[str] = field(default_factory=list)
    port: int = 0


def _handler(site: Site) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go in two writes: each reply would wait on a delayed ACK

        def do_GET(self) -> None:  # noqa: N802 - the http.server convention
            site.seen.append(self.path)
            if self.path.startswith("/hop"):
                self._send(302, b"", {"Location": self.path.partition("?to=")[2].replace("%5C", "\\")})
            else:
                self._send(200, f"page of {site.address}:{site.port}{self.path}".encode(), {})

        def _send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
            pass

    return Handler


@pytest.fixture
def two_sites() -> Iterator[tuple[Site, Site]]:
    a, b = Site("127.0.0.1"), Site("127.0.0.2")
    running = []
    for site in (a, b):
        server = ThreadingHTTPServer((site.address, 0), _handler(site))
        site.port = int(server.server_address[1])
        running.append(ServerThread(server, f"site-{site.address}").start())
    yield a, b
    for thread in running:
        thread.stop()


def _names(a: Site, b: Site) -> dict[str, str]:
    return {"attacker.example": a.address, "www.nature.com": b.address, "nature.com": b.address}


def _resolver(names: dict[str, str]) -> Callable[[str, int], list[tuple[Any, ...]]]:
    """getaddrinfo for a fixed table of names (IP literals as themselves); never asks DNS."""
    def resolve(name: str, port: int) -> list[tuple[Any, ...]]:
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (names.get(name, name), port))]
    return resolve


def _web(a: Site, b: Site) -> LiveWeb:
    settings = RecordConfig(allow=(f"{a.address}:{a.port}", f"{b.address}:{b.port}"))
    return LiveWeb(settings, environ={}, resolve=_resolver(_names(a, b)), clock=lambda: NOW)


REFUSED = "refused"


def _tricks(a: Site, b: Site) -> list[tuple[str, str]]:
    """Spellings that two URL parsers can read as two hosts, each with where a browser goes."""
    pa, pb = f"{a.address}:{a.port}", f"{b.address}:{b.port}"
    return [
        (f"http://{pa}\\@{pb}/x", a.address),                    # the backslash ends the authority
        (f"http://{pb}\\@{pa}/x", b.address),
        (f"http://attacker.example:{a.port}\\@www.nature.com:{b.port}/x", a.address),
        (f"http:\\\\{pa}\\@{pb}/x", a.address),                 # backslashes for the slashes too
        (f"HTTP://{pa}\\\\@{pb}\\x", a.address),
        (f"http://{pa}#@{pb}/x", a.address),                       # a fragment, then what looks like userinfo
        (f"http://{pa}?@{pb}/x", a.address),                       # a query, the same
        (f"http://{pa}/\\@{pb}/x", a.address),
        (f"http://127.0.0.\t1:{a.port}/x", a.address),             # a tab is dropped inside a URL
        (f" \x01http://{pa}/x\n", a.address),                      # so are C0 controls and spaces around it
        (f"http://0x7f.1:{a.port}/x", a.address),                  # a host ending in a number is an IPv4 address
        (f"http://2130706433:{a.port}/x", a.address),
        (f"http://%31%32%37.0.0.1:{a.port}/x", a.address),          # a host is percent-decoded
        (f"http://{pa}:{b.port}/x", REFUSED),                      # two ports: no browser fetches it
        (f"http://[{a.address}]:{a.port}/x", REFUSED),             # not an IPv6 literal
        (f"http://user:pw@{pb}/x", REFUSED),                       # userinfo: never sent as credentials
        (f"http://{pb}@{pa}/x", REFUSED),
        (f"http://{pa}\\@{pb}@{pb}/x", a.address),                 # the first backslash decides
    ]


def _reached(a: Site, b: Site) -> list[tuple[str, str]]:
    return [(site.address, path) for site in (a, b) for path in site.seen]


@pytest.mark.parametrize("index", range(18))
def test_each_spelling_reaches_the_host_the_checks_name_or_nothing(index: int, two_sites: tuple[Site, Site]) -> None:
    a, b = two_sites
    url, expected = _tricks(a, b)[index]
    try:
        record = _web(a, b).fetch(url)
    except FetchRefused as e:
        assert expected == REFUSED, f"{url!r} was refused: {e}"
        assert _reached(a, b) == []  # refused before anything was sent
        return
    named = host(url)
    [(reached, _)] = _reached(a, b)
    assert reached == expected == _names(a, b).get(named, named), f"{url!r}: judged as {named}, fetched from {reached}"
    # the port too: the key the snapshot files the page under names the server that answered
    site = a if reached == a.address else b
    assert canonical(url).startswith(f"https://{named}:{site.port}/")
    assert record.body.startswith(f"page of {site.address}:{site.port}/")
    assert host(record.final_url or "") == named


def test_the_list_of_spellings_is_tried_whole(two_sites: tuple[Site, Site]) -> None:
    assert len(_tricks(*two_sites)) == 18


def test_the_attack_in_the_issue_is_fetched_from_the_host_it_is_judged_by(two_sites: tuple[Site, Site]) -> None:
    a, b = two_sites
    url = f"http://attacker.example:{a.port}\\@www.nature.com:{b.port}/x"
    record = _web(a, b).fetch(url)
    assert host(url) == "attacker.example"
    assert (a.seen, b.seen) == ([f"/@www.nature.com:{b.port}/x"], [])
    assert record.body.startswith(f"page of {a.address}:{a.port}/")


def test_a_redirect_is_resolved_as_browsers_resolve_it(two_sites: tuple[Site, Site]) -> None:
    # "\\host/path" in a Location is "//host/path": another host, as a browser would go there
    a, b = two_sites
    record = _web(a, b).fetch(f"http://{a.address}:{a.port}/hop?to=%5C%5C{b.address}:{b.port}/there")
    assert b.seen == ["/there"]
    assert host(record.final_url or "") == b.address
    assert record.final_url == f"http://{b.address}:{b.port}/there"


def test_userinfo_is_refused_with_a_reason_and_nothing_is_sent(two_sites: tuple[Site, Site]) -> None:
    a, b = two_sites
    with pytest.raises(FetchRefused) as caught:
        _web(a, b).fetch(f"http://user:secret@{a.address}:{a.port}/x")
    assert "userinfo" in str(caught.value) and "secret" not in str(caught.value)
    assert _reached(a, b) == []


# --------------------------------------------------------------------------- through the replay server

def test_record_mode_stores_the_page_of_the_host_the_checks_name_and_lists_a_refusal(
        tmp_path: Path, two_sites: tuple[Site, Site]) -> None:
    a, b = two_sites
    root = tmp_path / "set"
    root.mkdir()
    (root / "golden.yaml").write_text("format: sourcegate-golden/1\nversion: 1\nname: s\ncases: []\n")
    store = SnapshotStore(str(root / "snapshot"))
    source = RecordingSource(store, _web(a, b), NEW_EPISODES)
    server = ReplayServer(store, log=io.StringIO(), source=source)
    url = f"http://{a.address}:{a.port}\\@{b.address}:{b.port}/x"
    with ServerThread(server, "record"):
        status, page = get_json(server, "/fetch", url=url)
        assert status == 200 and page["body"].startswith(f"page of {a.address}:{a.port}/")
        status, refusal = get_json(server, "/fetch", url=f"http://me:pw@{b.address}:{b.port}/x")
        assert status == 403 and refusal["live"] is True and "userinfo" in refusal["error"]
    assert b.seen == []
    session = finish(source, str(root))
    assert [r.url for r in session.recorded if r.layer == "page"] == [url]
    assert [f.layer for f in session.failed] == ["page"] and "userinfo" in session.failed[0].reason
    # replayed, offline: the same answer, from the entry of the host the checks name
    with ServerThread(ReplayServer(store, log=io.StringIO()), "replay") as replay:
        status, again = get_json(replay.server, "/fetch", url=url)
    assert status == 200 and again["body"] == page["body"]


def test_replay_answers_a_backslash_url_with_the_page_of_the_host_it_names(tmp_path: Path) -> None:
    store = SnapshotStore(str(tmp_path / "snapshot"))
    store.put_page(PageRecord(url="https://attacker.example/@www.nature.com/x", status=200, body="attacker's",
                              fetched_at=NOW))
    store.put_page(PageRecord(url="https://www.nature.com/x", status=200, body="nature's", fetched_at=NOW))
    with ServerThread(ReplayServer(store, log=io.StringIO()), "replay") as replay:
        status, page = get_json(replay.server, "/fetch",
                            url="https://attacker.example\\@www.nature.com/x")
    assert status == 200 and page["body"] == "attacker's"


# --------------------------------------------------------------------------- the checks judge that host

TRICK = "https://attacker.example\\@www.nature.com/x"


def test_the_source_rules_judge_the_host_the_page_comes_from() -> None:
    # nature.com is the case's own site: a URL that reaches attacker.example is not a primary source
    assert rule_source_type("https://www.nature.com/x", ["nature.com"]) is not None
    assert rule_source_type(TRICK, ["nature.com"]) is None
    assert host(TRICK) == "attacker.example"


def test_guard_counts_a_backslash_url_on_the_host_it_reaches() -> None:
    # nature.com is exempt from the cap as the case's own site; attacker.example is not
    rec = Recorder("q", about_domains=["nature.com"], config=Config(domain_cap=1), clock=lambda: NOW)
    read = rec.read(lambda url: "Some text on the page.")
    links = [TRICK, "https://attacker.example\\@www.nature.com/y"]
    for link in links:
        read(link)
    findings = rec.guard("An answer.", [Citation(url=u) for u in links])
    capped = [f for f in findings if f.check == "domain_cap"]
    assert len(capped) == 1 and "attacker.example" in capped[0].message


def test_a_link_on_a_page_is_resolved_as_browsers_resolve_it() -> None:
    # the agent follows the links an extraction lists: "\\host/y" on a page is another host
    page = PageRecord(url="https://www.nature.com/x", status=200, content_type="text/html",
                      body='<p><a href="\\\\other.example/y">a</a> <a href="/z">b</a></p>', fetched_at=NOW)
    assert [a.href for a in extract_page(page).anchors] == ["https://other.example/y", "https://www.nature.com/z"]
