"""Record mode's live web: searches forwarded with the key kept out of every record and message,
pages fetched only from addresses that are allowed, checked after resolution at every hop.

Everything runs on loopback: a stand-in search API and stand-in web pages on 127.0.0.1, allowed
through ``record.allow`` port by port, and an injected resolver for names (no DNS is asked).
"""

from __future__ import annotations

import json
import socket
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

import gate.live as live
from gate.config import RecordConfig, SearchProviderConfig, load_config
from gate.errors import (
    BodyTooLarge,
    FetchRefused,
    FetchTimeout,
    InputError,
    LiveWebError,
    SearchFailed,
)
from gate.live import AllowList, LiveWeb, address_allowed, parse_allow, redact, redact_headers
from gate.snapshot.contents import Unread
from gate.snapshot.records import ContentsRecord, page_entry, search_entry
from gate.snapshot.store import SnapshotStore

KEY = "sk-live-0123456789abcdef"
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
BRAVE = {"type": "search", "query": {"original": "pin actions"},
         "web": {"type": "search", "results": [
             {"title": "Security hardening for GitHub Actions", "url": "https://docs.github.com/en/actions/security",
              "description": "Pin actions to a full-length commit SHA.", "page_age": "2025-06-30T05:41:00"}]}}


# --------------------------------------------------------------------------- loopback stand-ins

Route = Callable[["_Handler"], None]


class Site(ThreadingHTTPServer):
    """A web server on 127.0.0.1 answering by path; it notes every request it gets."""

    daemon_threads = True

    def __init__(self, routes: dict[str, Route]) -> None:
        self.routes = routes
        self.seen: list[tuple[str, str, dict[str, str], bytes]] = []
        super().__init__(("127.0.0.1", 0), _Handler)

    @property
    def port(self) -> int:
        return int(self.server_address[1])

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


class _Handler(BaseHTTPRequestHandler):
    server: Site
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go in two writes: each reply would wait on a delayed ACK

    def do_GET(self) -> None:  # noqa: N802
        self._answer("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._answer("POST")

    def _answer(self, method: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        self.server.seen.append((method, self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        route = self.server.routes.get(urlsplit(self.path).path)
        if route is None:
            self.send(404, b"not here", "text/plain")
        else:
            route(self)

    def send(self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def send_json(self, status: int, data: Any) -> None:
        self.send(status, json.dumps(data).encode(), "application/json")

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@pytest.fixture
def sites() -> Iterator[Callable[[dict[str, Route]], Site]]:
    started: list[tuple[Site, threading.Thread]] = []

    def start(routes: dict[str, Route]) -> Site:
        site = Site(routes)
        thread = threading.Thread(target=site.serve_forever, args=(0.05,), daemon=True)
        thread.start()
        started.append((site, thread))
        return site

    yield start
    for site, thread in started:
        site.shutdown()
        site.server_close()
        thread.join(timeout=5)


def resolver(names: dict[str, str]) -> Callable[[str, int], list[tuple[Any, ...]]]:
    """getaddrinfo for a fixed table of names (and IP literals as themselves); never asks DNS."""
    def resolve(host: str, port: int) -> list[tuple[Any, ...]]:
        ip = names.get(host, host)
        family = socket.AF_INET6 if ":" in ip else socket.AF_INET
        sockaddr: tuple[Any, ...] = (ip, port, 0, 0) if family == socket.AF_INET6 else (ip, port)
        return [(family, socket.SOCK_STREAM, 6, "", sockaddr)]
    return resolve


def web(*allow: str, resolve: Callable[[str, int], list[tuple[Any, ...]]] | None = None,
        search: dict[str, SearchProviderConfig] | None = None, environ: dict[str, str] | None = None,
        **limits: Any) -> LiveWeb:
    settings = RecordConfig(search=search or {}, allow=allow, **limits)
    return LiveWeb(settings, environ=environ or {}, resolve=resolve or resolver({}), clock=lambda: NOW)


def page(text: str, content_type: str = "text/html; charset=utf-8") -> Route:
    return lambda h: h.send(200, text.encode("utf-8"), content_type)


def redirect(location: str, status: int = 302) -> Route:
    return lambda h: h.send(status, b"", "text/plain", {"Location": location})


# --------------------------------------------------------------------------- the address policy

@pytest.mark.parametrize(("ip", "reason"), [
    ("127.0.0.1", "127.0.0.1 is a loopback address"),
    ("127.9.9.9", "127.9.9.9 is a loopback address"),
    ("::1", "::1 is a loopback address"),
    ("0.0.0.0", "0.0.0.0 is an unspecified address"),
    ("10.1.2.3", "10.1.2.3 is a private address"),
    ("172.16.0.1", "172.16.0.1 is a private address"),
    ("192.168.1.10", "192.168.1.10 is a private address"),
    ("fd12:3456::1", "fd12:3456::1 is a private address"),
    ("169.254.1.1", "169.254.1.1 is a link-local address"),
    ("fe80::1", "fe80::1 is a link-local address"),
    ("224.0.0.251", "224.0.0.251 is a multicast address"),
    ("ff02::1", "ff02::1 is a multicast address"),
    ("240.0.0.1", "240.0.0.1 is a reserved address"),
    ("100.64.0.1", "100.64.0.1 is not a public address"),
    ("169.254.169.254", "169.254.169.254 is a cloud metadata address (never allowed)"),
    ("fd00:ec2::254", "fd00:ec2::254 is a cloud metadata address (never allowed)"),
    ("100.100.100.200", "100.100.100.200 is a cloud metadata address (never allowed)"),
    ("::ffff:127.0.0.1", "::ffff:127.0.0.1 is a loopback address"),
    ("::ffff:169.254.169.254", "::ffff:169.254.169.254 is a cloud metadata address (never allowed)"),
    ("64:ff9b::a9fe:a9fe", "64:ff9b::a9fe:a9fe is a cloud metadata address (never allowed)"),
    ("93.184.215.14", None),
    ("2606:4700:4700::1111", None),
])
def test_address_allowed_names_why_an_address_is_refused(ip: str, reason: str | None) -> None:
    assert address_allowed(ip, AllowList()) == reason


def test_the_allow_list_lets_listed_hosts_ports_and_networks_through_and_never_metadata() -> None:
    allow = parse_allow(["127.0.0.1:8080", "10.20.0.0/16", "wiki.corp.example", "[::1]:9000", "169.254.0.0/16"])
    assert address_allowed("127.0.0.1", allow, port=8080) is None
    assert address_allowed("127.0.0.1", allow, port=8081) == "127.0.0.1 is a loopback address"
    assert address_allowed("10.20.3.4", allow, port=443) is None
    assert address_allowed("10.21.3.4", allow, port=443) == "10.21.3.4 is a private address"
    assert address_allowed("10.99.0.1", allow, host="WIKI.corp.example.", port=443) is None
    assert address_allowed("::1", allow, port=9000) is None
    assert address_allowed("169.254.1.1", allow) is None
    assert address_allowed("169.254.169.254", allow) == "169.254.169.254 is a cloud metadata address (never allowed)"


@pytest.mark.parametrize("entry", ["127.0.0.1:0", "10.0.0.0/33", "not a host", "[::1]x", "host:port"])
def test_a_malformed_allow_entry_is_an_input_error_with_its_path(entry: str) -> None:
    with pytest.raises(InputError) as caught:
        parse_allow(["localhost", entry], file="sourcegate.yaml")
    assert "sourcegate.yaml at $.record.allow[1]" in str(caught.value)


# --------------------------------------------------------------------------- redaction

def test_redact_removes_secrets_from_urls_messages_and_headers() -> None:
    url = f"https://user:pw@api.test/s?q=pin+actions&api_key={KEY}&Token=t0k&page_token=next&key=k1"
    assert redact(url) == ("https://user:REDACTED@api.test/s?q=pin+actions&api_key=REDACTED&Token=REDACTED"
                           "&page_token=next&key=REDACTED")
    assert redact(f"failed for {KEY}", [KEY]) == "failed for REDACTED"
    assert redact("sent q=x&k=ab%2Bc%2F%3D and ab+c/=", ["ab+c/="]) == "sent q=x&k=REDACTED and REDACTED"
    headers = {"Authorization": f"Bearer {KEY}", "X-Subscription-Token": KEY, "X-Api-Key": KEY,
               "Accept": "application/json", "Referer": f"https://a.test/?access_token={KEY}"}
    assert redact_headers(headers) == {"Authorization": "REDACTED", "X-Subscription-Token": "REDACTED",
                                       "X-Api-Key": "REDACTED", "Accept": "application/json",
                                       "Referer": "https://a.test/?access_token=REDACTED"}


# --------------------------------------------------------------------------- fetch

def test_a_fetch_records_status_final_url_type_time_and_text(sites: Any) -> None:
    site = sites({"/start": redirect("/page"), "/page": page("<p>Café</p>")})
    record = web(f"127.0.0.1:{site.port}").fetch(site.url("/start"))
    assert record.url == site.url("/start")
    assert (record.status, record.final_url, record.body) == (200, site.url("/page"), "<p>Café</p>")
    assert (record.content_type, record.fetched_at, record.truncated) == ("text/html; charset=utf-8", NOW, False)
    assert site.seen[0][2]["user-agent"].startswith("sourcegate/")


def test_a_404_is_an_answer_and_a_legacy_charset_is_decoded(sites: Any) -> None:
    site = sites({"/latin": lambda h: h.send(200, "Ça va".encode("latin-1"), "text/plain; charset=ISO-8859-1")})
    record = web(f"127.0.0.1:{site.port}").fetch(site.url("/latin"))
    assert record.body == "Ça va"
    missing = web(f"127.0.0.1:{site.port}").fetch(site.url("/nothing"))
    assert (missing.status, missing.body) == (404, "not here")


def test_loopback_is_refused_unless_allowed(sites: Any) -> None:
    site = sites({"/page": page("hi")})
    with pytest.raises(FetchRefused) as caught:
        web().fetch(site.url("/page"))
    assert str(caught.value) == f"refused: 127.0.0.1 is a loopback address ({site.url('/page')})"
    tls = site.url("/page").replace("http:", "https:")
    with pytest.raises(FetchRefused, match=r"refused: 127\.0\.0\.1 is a loopback address \(https://"):
        web().fetch(tls)  # the TLS connection opens its socket through the same guard
    with pytest.raises(FetchRefused, match=r"refused: ::1 is a loopback address"):
        web().fetch(f"http://[::1]:{site.port}/page")
    assert site.seen == []


def test_a_redirect_to_another_loopback_port_is_refused_at_its_hop(sites: Any) -> None:
    inside = sites({"/admin": page("secret admin page")})
    outside = sites({"/a": redirect("/b"), "/b": redirect(inside.url("/admin"), 307)})
    with pytest.raises(FetchRefused) as caught:
        web(f"127.0.0.1:{outside.port}").fetch(outside.url("/a"))
    assert str(caught.value) == (f"refused: 127.0.0.1 is a loopback address (redirect hop 2 to "
                                 f"{inside.url('/admin')} from {outside.url('/a')})")
    assert inside.seen == []


def test_a_name_resolving_to_the_metadata_address_is_refused_without_connecting() -> None:
    resolve = resolver({"innocent.test": "169.254.169.254"})
    with pytest.raises(FetchRefused) as caught:
        web("169.254.0.0/16", resolve=resolve).fetch("http://innocent.test/latest/meta-data/")
    assert str(caught.value) == ("refused: innocent.test resolves to 169.254.169.254, a cloud metadata address "
                                 "(never allowed) (http://innocent.test/latest/meta-data/)")
    with pytest.raises(FetchRefused, match="metadata.google.internal is a cloud metadata name"):
        web().fetch("http://metadata.google.internal/computeMetadata/v1/")


def test_a_public_name_resolving_to_loopback_is_refused(sites: Any) -> None:
    site = sites({"/page": page("hi")})
    with pytest.raises(FetchRefused, match=r"refused: news\.test resolves to 127\.0\.0\.1, a loopback address"):
        web(resolve=resolver({"news.test": "127.0.0.1"})).fetch(f"http://news.test:{site.port}/page")
    assert site.seen == []


def test_the_connection_goes_to_the_address_that_was_checked(sites: Any) -> None:
    # news.test exists only in the injected resolver: the fetch succeeds only if the socket is opened
    # to the address that was checked, never to a second resolution of the name.
    site = sites({"/page": page("from the checked address")})
    calls: list[str] = []
    table = resolver({"news.test": "127.0.0.1"})

    def resolve(host: str, port: int) -> list[tuple[Any, ...]]:
        calls.append(host)
        return table(host, port)

    record = web(f"127.0.0.1:{site.port}", resolve=resolve).fetch(f"http://news.test:{site.port}/page")
    assert record.body == "from the checked address"
    assert calls == ["news.test"]
    assert site.seen[0][2]["host"] == f"news.test:{site.port}"


def test_proxy_settings_in_the_environment_are_ignored(sites: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    site = sites({"/page": page("direct")})
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    monkeypatch.setenv("http_proxy", "http://127.0.0.1:9")
    assert web(f"127.0.0.1:{site.port}").fetch(site.url("/page")).body == "direct"


@pytest.mark.parametrize("route", ["/declared", "/streamed"])
def test_a_body_over_the_cap_is_a_named_error(sites: Any, route: str) -> None:
    def streamed(h: _Handler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/plain")
        h.send_header("Connection", "close")
        h.end_headers()
        for _ in range(50):
            h.wfile.write(b"x" * 100)

    site = sites({"/declared": page("x" * 5000), "/streamed": streamed})
    with pytest.raises(BodyTooLarge, match="over the cap of 1000"):
        web(f"127.0.0.1:{site.port}", max_bytes=1000).fetch(site.url(route))


@pytest.mark.parametrize("length", [None, "100"])
def test_a_trickling_body_stops_at_the_deadline_of_the_whole_fetch(sites: Any, length: str | None) -> None:
    def trickle(h: _Handler) -> None:
        h.send_response(200)
        h.send_header("Content-Type", "text/plain")
        h.send_header("Connection", "close")
        if length is not None:
            h.send_header("Content-Length", length)
        h.end_headers()
        try:
            for _ in range(100):  # a byte each 20 ms: every single read is quick, the whole is not
                h.wfile.write(b".")
                h.wfile.flush()
                time.sleep(0.02)
        except OSError:
            pass  # the client hung up

    site = sites({"/slow": trickle})
    with pytest.raises(FetchTimeout) as caught:
        web(f"127.0.0.1:{site.port}", deadline_seconds=0.2).fetch(site.url("/slow"))
    assert "no complete answer within 0.2 s" in str(caught.value)


def test_too_many_redirects_and_other_schemes_are_errors(sites: Any) -> None:
    site = sites({"/loop": redirect("/loop"), "/file": redirect("file:///etc/passwd")})
    with pytest.raises(LiveWebError, match="more than 2 redirects"):
        web(f"127.0.0.1:{site.port}", max_redirects=2).fetch(site.url("/loop"))
    with pytest.raises(FetchRefused, match="only http and https are fetched, not file"):
        web(f"127.0.0.1:{site.port}").fetch(site.url("/file"))


def test_a_url_carrying_a_secret_is_never_fetched_nor_echoed() -> None:
    with pytest.raises(FetchRefused) as caught:
        web().fetch(f"https://files.test/report.pdf?X-Amz-Signature={KEY}")
    assert KEY not in str(caught.value)
    assert "X-Amz-Signature" in str(caught.value)


def test_nothing_listening_is_a_live_web_error(sites: Any) -> None:
    site = sites({})
    port = site.port
    site.shutdown()
    site.server_close()
    with pytest.raises(LiveWebError, match="could not connect"):
        web(f"127.0.0.1:{port}").fetch(f"http://127.0.0.1:{port}/")


# --------------------------------------------------------------------------- search

def brave_api(h: _Handler) -> None:
    if h.headers.get("X-Subscription-Token") != KEY:
        h.send_json(401, {"type": "ErrorResponse", "error": {"code": "SUBSCRIPTION_TOKEN_INVALID"}})
        return
    query = parse_qs(urlsplit(h.path).query)["q"][0]
    h.send_json(200, {**BRAVE, "query": {"original": query}})


def serpapi_api(h: _Handler) -> None:
    # SerpApi-like: the key in the query string, and the answer echoing the request URL.
    params = parse_qs(urlsplit(h.path).query)
    if params.get("api_key") != [KEY]:
        h.send_json(401, {"error": "Invalid API key."})
        return
    h.send_json(200, {"search_metadata": {"status": "Success", "json_endpoint": f"http://api.test{h.path}"},
                      "search_parameters": {"engine": params["engine"][0], "q": params["q"][0]},
                      "organic_results": [{"position": 1, "title": "A", "link": "https://a.test/"}]})


def test_a_search_forwards_to_the_provider_with_the_key_from_the_environment(sites: Any, tmp_path: Path) -> None:
    api = sites({"/res/v1/web/search": brave_api})
    brave = SearchProviderConfig(endpoint=api.url("/res/v1/web/search"))
    live_web = web(f"127.0.0.1:{api.port}", search={"brave": brave}, environ={"BRAVE_API_KEY": KEY})
    record = live_web.search("brave", "pin  actions")
    assert (record.provider, record.query, record.recorded_at) == ("brave", "pin  actions", NOW)
    assert record.response == {**BRAVE, "query": {"original": "pin  actions"}}
    assert api.seen[0][2]["x-subscription-token"] == KEY
    store = SnapshotStore(str(tmp_path / "snapshot"))
    assert store.put_search(record)
    assert store.search("brave", "pin actions").response == record.response


def test_the_key_is_scrubbed_from_what_a_provider_echoes(sites: Any, tmp_path: Path) -> None:
    api = sites({"/search.json": serpapi_api})
    serpapi = SearchProviderConfig(endpoint=api.url("/search.json"), key_env="MY_SERPAPI_KEY")
    record = web(f"127.0.0.1:{api.port}", search={"serpapi": serpapi},
                 environ={"MY_SERPAPI_KEY": KEY}).search("serpapi", "matcha")
    assert parse_qs(urlsplit(api.seen[0][1]).query)["api_key"] == [KEY]
    assert record.response["search_parameters"] == {"engine": "google", "q": "matcha"}
    assert "api_key=REDACTED" in record.response["search_metadata"]["json_endpoint"]
    store = SnapshotStore(str(tmp_path / "snapshot"))
    store.put_search(record)
    stored = "".join(p.read_text() for p in (tmp_path / "snapshot").rglob("*.json"))
    assert "matcha" in stored and KEY not in stored and KEY not in json.dumps(search_entry(record))


def test_a_provider_error_names_the_status_without_the_key(sites: Any) -> None:
    def failing(h: _Handler) -> None:
        h.send_json(500, {"error": f"backend down for {h.path}"})

    api = sites({"/search.json": failing})
    serpapi = SearchProviderConfig(endpoint=api.url("/search.json"))
    with pytest.raises(SearchFailed) as caught:
        web(f"127.0.0.1:{api.port}", search={"serpapi": serpapi},
            environ={"SERPAPI_API_KEY": KEY}).search("serpapi", "matcha")
    message = "".join(traceback.format_exception(caught.value))
    assert "HTTP 500" in message and "api_key=REDACTED" in message and KEY not in message


def test_a_provider_reads_pages_at_the_sibling_of_its_search_endpoint_with_the_agents_parameters(
        sites: Any) -> None:
    def extract(h: _Handler) -> None:
        urls = json.loads(h.server.seen[-1][3])["urls"]
        h.send_json(200, {"results": [{"url": u, "title": "T", "raw_content": f"read with {KEY}"} for u in urls[:1]],
                          "failed_results": [{"url": u, "error": "Failed to fetch url"} for u in urls[1:]],
                          "request_id": "r"})

    api = sites({"/v1/extract": extract})
    tavily = SearchProviderConfig(endpoint=api.url("/v1/search?region=eu"), params={"search_depth": "advanced"})
    read = web(f"127.0.0.1:{api.port}", search={"tavily": tavily}, environ={"TAVILY_API_KEY": KEY}).contents(
        "tavily", ["https://a.test/", "https://b.test/", "https://a.test/"], {"format": "text", "api_key": "x"})
    [(method, path, headers, body)] = api.seen
    assert (method, path, headers["authorization"]) == ("POST", "/v1/extract?region=eu", f"Bearer {KEY}")
    # the agent's own parameters (not the search's, nor a key), each URL once
    assert json.loads(body) == {"format": "text", "urls": ["https://a.test/", "https://b.test/"]}
    assert list(read) == ["https://a.test/", "https://b.test/"]
    record = read["https://a.test/"]
    assert isinstance(record, ContentsRecord) and record.recorded_at == NOW and record.params == {"format": "text"}
    assert record.response == {"results": [{"url": "https://a.test/", "title": "T",
                                            "raw_content": "read with REDACTED"}]}
    assert isinstance(read["https://b.test/"], Unread)


def test_a_provider_that_reads_no_pages_and_a_url_no_fetch_would_take_are_said(sites: Any) -> None:
    api = sites({})
    live_web = web(f"127.0.0.1:{api.port}", search={"brave": SearchProviderConfig(endpoint=api.url("/s")),
                                                    "exa": SearchProviderConfig(endpoint=api.url("/s"))},
                   environ={"BRAVE_API_KEY": KEY, "EXA_API_KEY": KEY})
    with pytest.raises(SearchFailed, match="'brave' reads no pages for sourcegate"):
        live_web.contents("brave", ["https://a.test/"])
    read = live_web.contents("exa", ["ftp://a.test/x", "https://user:pw@a.test/", "https://a.test/?token=t0k3n"])
    assert all(isinstance(r, Unread) for r in read.values()) and api.seen == []  # nothing was sent
    assert "only http and https are read" in read["ftp://a.test/x"].reason
    assert "t0k3n" not in read["https://a.test/?token=t0k3n"].reason


@pytest.mark.parametrize("depth", [150, 100_000])
def test_an_answer_nested_too_deeply_is_not_recorded_and_not_a_traceback(depth: int, sites: Any) -> None:
    # The snapshot could not read it back (it is held to the nesting limit): refused when it arrives.
    def deep(h: _Handler) -> None:
        h.send(200, b'{"organic_results": ' + b"[" * depth + b"]" * depth + b"}", "application/json")

    api = sites({"/search.json": deep})
    serpapi = SearchProviderConfig(endpoint=api.url("/search.json"))
    with pytest.raises(SearchFailed) as caught:
        web(f"127.0.0.1:{api.port}", search={"serpapi": serpapi},
            environ={"SERPAPI_API_KEY": KEY}).search("serpapi", "matcha")
    assert "not recorded" in str(caught.value) and "nested" in str(caught.value)
    where = "at $.organic_results[0][0]" if depth == 150 else "at line 1, column 120"
    assert where in str(caught.value) and KEY not in str(caught.value)


@pytest.mark.parametrize("endpoint", ["https://[", "https://search.test:99999/api"])
def test_a_provider_endpoint_that_is_no_url_is_an_input_error(endpoint: str) -> None:
    with pytest.raises(InputError, match="is not an http"):
        web(search={"mine": SearchProviderConfig(endpoint=endpoint)})


def test_a_failed_search_in_a_200_is_not_returned_as_an_answer(sites: Any) -> None:
    api = sites({"/res/v1/web/search": brave_api})
    brave = SearchProviderConfig(endpoint=api.url("/res/v1/web/search"), key_env="BRAVE_API_KEY")
    with pytest.raises(SearchFailed, match="HTTP 401"):
        web(f"127.0.0.1:{api.port}", search={"brave": brave}, environ={"BRAVE_API_KEY": "wrong"}).search("brave", "q")


def test_a_network_error_keeps_its_cause_without_the_key(sites: Any) -> None:
    site = sites({})
    port = site.port
    site.shutdown()
    site.server_close()
    serpapi = SearchProviderConfig(endpoint=f"http://127.0.0.1:{port}/search.json")
    with pytest.raises(LiveWebError) as caught:
        web(f"127.0.0.1:{port}", search={"serpapi": serpapi},
            environ={"SERPAPI_API_KEY": KEY}).search("serpapi", "matcha")
    assert caught.value.__cause__ is not None
    printed = "".join(traceback.format_exception(caught.value))
    assert "could not connect" in printed and "api_key=REDACTED" in printed and KEY not in printed


def test_a_secret_in_the_provider_url_is_refused_in_the_config_and_redacted_from_the_environment(
        sites: Any) -> None:
    with pytest.raises(InputError) as caught:
        web(search={"mine": SearchProviderConfig(endpoint=f"https://search.test/api?token={KEY}")})
    assert "$.record.search.mine.endpoint" in str(caught.value)
    assert "'token'" in str(caught.value) and KEY not in str(caught.value)

    def echo(h: _Handler) -> None:
        h.send_json(200, {"results": [{"url": "https://a.test/"}], "request": f"http://search.test{h.path}"})

    api = sites({"/api": echo})
    mine = SearchProviderConfig(endpoint_env="MINE_URL")
    live_web = web(f"127.0.0.1:{api.port}", search={"mine": mine},
                   environ={"MINE_URL": api.url(f"/api?token={KEY}")})
    record = live_web.search("mine", "pin actions")
    assert "token=" in api.seen[0][1] and KEY in api.seen[0][1]
    assert KEY not in json.dumps(search_entry(record))


def test_a_key_written_into_the_params_is_refused() -> None:
    with pytest.raises(InputError, match=r"\$\.record\.search\.serpapi\.params\.api_key: the parameter 'api_key'"):
        web(search={"serpapi": SearchProviderConfig(params={"api_key": KEY})})


def test_a_secret_parameter_whose_name_holds_a_line_break_is_quoted() -> None:
    with pytest.raises(InputError) as e:
        web(search={"serpapi": SearchProviderConfig(params={"\r\napi_key\n": KEY})})
    said = str(e.value)
    assert "$.record.search.serpapi.params['\\r\\napi_key\\n']: the parameter '\\r\\napi_key\\n'" in said
    assert "\n" not in said and "\r" not in said and "key_in: query:NAME" in said


def test_an_http_endpoint_that_is_not_allowed_would_send_the_key_in_clear() -> None:
    with pytest.raises(InputError, match="would send the key in clear"):
        web(search={"mine": SearchProviderConfig(endpoint="http://search.test/api")})


def test_an_unknown_provider_and_a_missing_key_are_named() -> None:
    live_web = web(search={"brave": SearchProviderConfig()})
    with pytest.raises(SearchFailed, match=r"no search provider 'exa' is configured .*has: brave"):
        live_web.search("exa", "q")
    with pytest.raises(SearchFailed, match=r"BRAVE_API_KEY is not set.*record\.search\.brave\.key_env"):
        live_web.search("brave", "q")
    with pytest.raises(InputError, match=r"'mine' is not a known provider"):
        web(search={"mine": SearchProviderConfig()})


def test_a_page_record_holds_no_secret_from_a_redirect(sites: Any) -> None:
    site = sites({"/dl": redirect(f"/file?X-Amz-Signature={KEY}"), "/file": page("data")})
    record = web(f"127.0.0.1:{site.port}").fetch(site.url("/dl"))
    assert record.final_url == site.url("/file?X-Amz-Signature=REDACTED")
    assert KEY not in json.dumps(page_entry(record), default=str)


# --------------------------------------------------------------------------- configuration

def test_the_record_section_of_the_config(tmp_path: Path) -> None:
    cfg = tmp_path / "sourcegate.yaml"
    cfg.write_text("record:\n  allow: ['10.0.0.0/8', 'localhost:8080']\n  max_bytes: 1000\n"
                   "  search:\n    brave: {key_env: MY_BRAVE_KEY, params: {count: 5}}\n", encoding="utf-8")
    config = load_config(str(cfg))
    assert config.record.allow == ("10.0.0.0/8", "localhost:8080")
    assert config.record.max_bytes == 1000 and config.record.deadline_seconds == 30
    provider = LiveWeb.from_config(config, environ={}).providers["brave"]
    assert (provider.key_env, dict(provider.params), provider.key_in) == (
        "MY_BRAVE_KEY", {"count": 5}, "header:X-Subscription-Token")


@pytest.mark.parametrize(("text", "path"), [
    ("record:\n  proxy: x\n", "$.record"),
    ("record:\n  search:\n    brave: {api_key: abc}\n", "$.record.search.brave"),
    ("record:\n  search:\n    trace: {endpoint: 'https://a.test/'}\n", "$.record.search"),
    ("record:\n  search:\n    brave: {key_env: 'sk-123 abc'}\n", "$.record.search.brave.key_env"),
])
def test_unknown_or_wrong_record_settings_are_rejected(tmp_path: Path, text: str, path: str) -> None:
    cfg = tmp_path / "sourcegate.yaml"
    cfg.write_text(text, encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_config(str(cfg))
    assert path in str(caught.value)


def test_the_package_exports_exactly_its_documented_names() -> None:
    public = {n for n, v in vars(live).items() if not n.startswith("_") and n != "annotations"
              and not isinstance(v, type(live))}
    assert set(live.__all__) == public
    for name in live.__all__:
        value = getattr(live, name)
        if isinstance(value, type) or callable(value):
            assert (value.__doc__ or "").strip(), name


def test_the_documented_record_settings_load(tmp_path: Path) -> None:
    docs = (Path(__file__).resolve().parent.parent / "docs" / "snapshots.md").read_text(encoding="utf-8")
    section = docs.split("## Record mode's live web", 1)[1]
    example = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    cfg = tmp_path / "sourcegate.yaml"
    cfg.write_text(example, encoding="utf-8")
    live_web = LiveWeb.from_config(load_config(str(cfg)), environ={})
    assert sorted(live_web.providers) == ["brave", "mine", "serpapi"]
    assert live_web.providers["serpapi"].endpoint == "https://serpapi.com/search.json"
    assert dict(live_web.providers["serpapi"].params) == {"engine": "google", "num": 10}
