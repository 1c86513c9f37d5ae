"""The replay server speaks each provider's API: its method, path, parameters, body and error shape.

Recorded provider JSON (real responses, ``tests/fixtures/search-apis/``) is served byte for byte at
the provider's own route; a query recorded only in the neutral shape of ``snapshot build`` is
rendered in the provider's documented shape, which the recorder's parser for that provider reads
back. What the snapshot cannot answer is a miss in the provider's error shape; so is a parameter
that changes the answer and differs from the recording's, a count larger than recorded, and a
route the server does not implement. Nothing is ever answered with an HTML page.
"""

from __future__ import annotations

import http.client
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gate.replay.serve import ReplayServer
from gate.snapshot.parsers import parse_results
from gate.snapshot.records import ExtractionRecord, PageRecord, SearchRecord
from gate.snapshot.store import SnapshotStore
from tests.support.loopback import ServerThread

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "search-apis"
QUERY = "euro adoption after 2010"
NEUTRAL = {"results": [
    {"position": 1, "title": "Enlargement of the eurozone", "url": "https://en.wikipedia.org/wiki/Euro",
     "snippet": "Seven states joined", "published": "2024-06-06"},
    {"position": 2, "title": "Croatia joins", "url": "https://ecb.example/croatia", "snippet": "Croatia",
     "published": None},
    {"position": 3, "title": "Not read", "url": "https://gone.example/x", "snippet": "never fetched",
     "published": None},
]}


def _fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text(encoding="utf-8"))


RECORDED = {
    "tavily": ("tavily-search.response.cell19.3.json", "software engineer job postings Bay Area"),
    "serpapi": ("serpapi-google.matcha.response.json", "matcha"),
    "brave": ("go-brave-search.testdata.web_search_response.json", "go programming"),
    "bing": ("bing-web-search-v7.example-response.from-quickstart-nodejs.json", "Microsoft Cognitive Services"),
    "exa": ("exa-py-sdk-spec.example-0-search.json", "hottest AI startups"),
    "serper": ("serper-search.handmade.json", "euro adoption after 2010 serper"),
}


@dataclass
class Client:
    server: ReplayServer
    log: io.StringIO

    def call(self, method: str, path: str, body: Any = None,
             headers: dict[str, str] | None = None) -> tuple[int, Any, dict[str, str]]:
        host, port = self.server.server_address[:2]
        conn = http.client.HTTPConnection(str(host), port, timeout=5)
        try:
            data = None if body is None else body if isinstance(body, bytes) else json.dumps(body).encode()
            conn.request(method, path, body=data, headers=headers or {})
            response = conn.getresponse()
            raw = response.read()
            kept = {k.lower(): v for k, v in response.getheaders()}
            try:
                return response.status, json.loads(raw) if raw else None, {**kept, "raw": raw.decode()}
            except ValueError:
                return response.status, raw.decode(), kept
        finally:
            conn.close()


@pytest.fixture
def client(tmp_path: Path) -> Iterator[Client]:
    store = SnapshotStore(str(tmp_path / "snapshot"))
    store.put_search(SearchRecord("trace", QUERY, NEUTRAL))
    for provider, (name, query) in RECORDED.items():
        store.put_search(SearchRecord(provider, query, _fixture(name)))
    store.put_page(PageRecord(url="https://en.wikipedia.org/wiki/Euro", status=200, body="<p>Euro page</p>",
                              content_type="text/html; charset=ISO-8859-1", truncated=True))
    store.put_extraction(ExtractionRecord(url="https://en.wikipedia.org/wiki/Euro", text="Euro page text"))
    store.put_page(PageRecord(url="https://ecb.example/croatia", status=404, body="Not found"))
    log = io.StringIO()
    server = ReplayServer(store, port=0, log=log)
    with ServerThread(server, "replay"):
        yield Client(server, log)


def test_recorded_provider_json_is_served_byte_for_byte_at_the_provider_s_own_route(client: Client) -> None:
    calls = {
        "tavily": ("POST", "/search", {"query": "software engineer job postings Bay Area"},
                   {"Authorization": "Bearer k"}),
        "exa": ("POST", "/search", {"query": "hottest AI startups", "contents": {"text": True}}, {"x-api-key": "k"}),
        "serper": ("POST", "/search", {"q": "euro adoption after 2010 serper"}, {"X-API-KEY": "k"}),
        "serpapi": ("GET", "/search?engine=google&q=matcha&location=Vancouver%2C+British+Columbia%2C+Canada&gl=ca"
                    "&api_key=k", None, {}),
        "brave": ("GET", "/res/v1/web/search?q=go+programming&country=JP", None, {"X-Subscription-Token": "k"}),
        "bing": ("GET", "/v7.0/search?q=Microsoft+Cognitive+Services", None, {"Ocp-Apim-Subscription-Key": "k"}),
    }
    for provider, (method, path, body, headers) in calls.items():
        status, _, got = client.call(method, path, body, headers)
        expected = json.dumps(_fixture(RECORDED[provider][0]), ensure_ascii=False)
        assert (provider, status, got["raw"]) == (provider, 200, expected)


def test_a_neutral_recording_is_rendered_in_each_provider_s_shape(client: Client) -> None:
    calls = {
        "tavily": ("POST", "/search", {"query": QUERY, "include_raw_content": True}),
        "exa": ("POST", "/search", {"query": QUERY, "numResults": 3, "contents": {"text": {"maxCharacters": 4}}}),
        "serper": ("POST", "/search", {"q": QUERY, "gl": "us"}),
        "serpapi": ("GET", f"/search?engine=google&q={QUERY.replace(' ', '+')}", None),
        "brave": ("GET", f"/res/v1/web/search?q={QUERY.replace(' ', '+')}", None),
        "bing": ("GET", f"/v7.0/search?q={QUERY.replace(' ', '+')}&count=10", None),
        "serply": ("GET", f"/v1/search/q={QUERY.replace(' ', '+')}&num=10&gl=us&lr=lang_en&hl=lang_en", None),
    }
    for provider, (method, path, body) in calls.items():
        status, reply, _ = client.call(method, path, body, {"x-api-key": "k"} if provider == "exa" else {})
        assert status == 200, (provider, reply)
        results = parse_results(reply, provider)  # the recorder's own parser reads it back
        assert [r.url for r in results] == [r["url"] for r in NEUTRAL["results"]], provider
        assert results[0].title == "Enlargement of the eurozone", provider
        assert (results[0].published is None) == (provider == "serply"), provider  # Serply gives no dates
    _, tavily, _ = client.call("POST", "/search", {"query": QUERY, "include_raw_content": True})
    assert [r["raw_content"] for r in tavily["results"]] == ["Euro page text", "Not found", None]
    _, exa, _ = client.call("POST", "/search", {"query": QUERY, "contents": {"text": {"maxCharacters": 4}}},
                            {"x-api-key": "k"})
    assert [r["text"] for r in exa["results"]] == ["Euro", "Not ", "neve"]  # the page, else the snippet


def test_a_count_cuts_the_results_and_more_than_recorded_is_a_miss(client: Client) -> None:
    status, reply, _ = client.call("POST", "/search", {"query": QUERY, "max_results": 2})
    assert status == 200 and len(reply["results"]) == 2
    status, reply, _ = client.call("POST", "/search", {"query": "software engineer job postings Bay Area",
                                                       "max_results": 3})
    assert status == 200 and len(reply["results"]) == 3  # the recorded JSON, its list cut
    status, reply, _ = client.call("POST", "/search", {"query": QUERY, "max_results": 20})
    assert status == 400 and reply == {"detail": {"error": "asks for 20 results, the recording has 3: record it "
                                                           "again with the larger count"}}
    status, _, _ = client.call("POST", "/search", {"query": QUERY, "max_results": 5})  # the client's default
    assert status == 200


@pytest.mark.parametrize(("method", "path", "body", "error"), [
    ("POST", "/search", {"query": QUERY, "include_domains": ["Wikipedia.org"]},
     {"detail": {"error": "include_domains ['wikipedia.org'] differs from the recording's (none: the provider's "
                          "default) (recorded by 'trace')"}}),
    ("POST", "/search", {"query": QUERY, "time_range": "week", "timeout": 60, "include_answer": True},
     {"detail": {"error": "time_range 'week' differs from the recording's (none: the provider's default) "
                          "(recorded by 'trace')"}}),
    ("GET", "/search?engine=google&q=matcha&api_key=k", None,  # the recording asked from Vancouver
     {"error": "gl (none: the provider's default) differs from the recording's 'ca' (recorded by 'serpapi')"}),
])
def test_a_parameter_that_changes_the_answer_is_a_miss(client: Client, method: str, path: str, body: Any,
                                                       error: Any) -> None:
    status, reply, _ = client.call(method, path, body)
    assert (status, reply) == (404 if method == "GET" else 400, error)
    assert "MISS" in client.log.getvalue()


def test_a_miss_is_in_the_provider_s_error_shape(client: Client) -> None:
    status, reply, _ = client.call("POST", "/search", {"query": "never asked"}, {"x-api-key": "k"})
    assert status == 404 and set(reply) == {"requestId", "error", "tag"} and reply["tag"] == "NOT_FOUND"
    status, reply, _ = client.call("GET", "/res/v1/web/search?q=never+asked")
    assert status == 404 and reply["type"] == "ErrorResponse" and reply["error"]["code"] == "RESOURCE_NOT_FOUND"
    status, reply, _ = client.call("GET", "/v7.0/search?q=never+asked")
    assert status == 404 and reply["_type"] == "ErrorResponse" and reply["errors"][0]["code"] == "InvalidRequest"
    status, reply, _ = client.call("POST", "/search", {"q": "never asked"})
    assert status == 400 and set(reply) == {"message", "statusCode"}
    status, reply, _ = client.call("GET", "/v1/search/q=never+asked")
    assert status == 404 and reply["error"]["code"] == "not_found"


def test_extract_and_contents_answer_each_url_and_say_which_they_lack(client: Client) -> None:
    urls = ["https://en.wikipedia.org/wiki/Euro", "https://ecb.example/croatia", "https://never.example/"]
    status, reply, _ = client.call("POST", "/extract", {"urls": urls, "extract_depth": "advanced", "timeout": 30})
    assert status == 200
    assert reply["results"] == [{"url": urls[0], "title": None, "raw_content": "Euro page text", "images": []}]
    assert [f["url"] for f in reply["failed_results"]] == urls[1:]
    status, reply, _ = client.call("POST", "/contents", {"urls": urls, "text": {"maxCharacters": 4}},
                                   {"x-api-key": "k"})
    assert status == 200 and [r["text"] for r in reply["results"]] == ["Euro"]
    assert [(s["id"], s["status"]) for s in reply["statuses"]] == [
        (urls[0], "success"), (urls[1], "error"), (urls[2], "error")]
    status, reply, _ = client.call("POST", "/extract", {"urls": urls[0], "query": "croatia"})
    assert status == 400 and "query reranks the page into chunks" in reply["detail"]["error"]


def test_a_plain_page_fetch_answers_the_page_as_the_web_did(client: Client) -> None:
    status, body, headers = client.call("GET", "/page?url=https%3A%2F%2Fwww.en.wikipedia.org%2Fwiki%2FEuro")
    assert (status, body, headers["content-type"]) == (200, "<p>Euro page</p>", "text/html; charset=utf-8")
    status, body, _ = client.call("GET", "/page?url=https%3A%2F%2Fecb.example%2Fcroatia")
    assert (status, body) == (404, "Not found")  # the page's own 404 is the data
    status, body, headers = client.call("GET", "/page?url=https%3A%2F%2Fnever.example%2F")
    assert status == 404 and headers["x-sourcegate-miss"] == "1" and body["miss"] is True


def test_a_route_no_api_implements_is_a_miss_naming_its_provider(client: Client) -> None:
    status, reply, _ = client.call("POST", "/crawl", {"url": "https://a.example/"})
    assert status == 400 and "does not implement POST /crawl of tavily's API" in reply["detail"]["error"]
    status, reply, _ = client.call("POST", "/findSimilar", {"url": "https://a.example/"}, {"x-api-key": "k"})
    assert status == 404 and "of exa's API" in reply["error"]
    status, reply, _ = client.call("GET", "/res/v1/news/search?q=x")
    assert status == 404 and "of brave's API" in reply["error"]["detail"]
    status, reply, _ = client.call("DELETE", "/anything")
    assert status == 404 and reply["layer"] == "route" and "any API it speaks" in reply["error"]
    assert "MISS no known API DELETE /anything" in client.log.getvalue()


def test_a_provider_prefix_sends_the_request_to_that_provider_alone(client: Client) -> None:
    # an Exa body without Exa's header would be Tavily's; /exa/... says whose it is
    status, reply, _ = client.call("POST", "/exa/search", {"query": QUERY})
    assert status == 200 and parse_results(reply, "exa")
    status, reply, _ = client.call("POST", "/search", {"query": QUERY})
    assert status == 200 and "request_id" in reply  # Tavily's


def test_nothing_is_answered_with_an_html_page(client: Client) -> None:
    for method in ("PUT", "PATCH", "OPTIONS"):
        status, reply, headers = client.call(method, "/search", {"query": QUERY})
        assert headers["content-type"].startswith("application/json") and isinstance(reply, dict), method
    status, reply, _ = client.call("POST", "/search", b"not json", {"Content-Type": "application/json"})
    assert (status, reply) == (400, {"detail": {"error": "expected a JSON object as the request body"}})
    status, reply, headers = client.call("POST", "/search", b'{"query": "x"}', {"Transfer-Encoding": "chunked"})
    assert status == 411 and headers["content-type"].startswith("application/json")


def test_a_head_is_a_get_without_its_body(client: Client) -> None:
    status, body, headers = client.call("HEAD", "/fetch?url=https%3A%2F%2Fen.wikipedia.org%2Fwiki%2FEuro")
    assert status == 200 and body is None and int(headers["content-length"]) > 0
