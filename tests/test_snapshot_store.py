"""The snapshot store: each layer round-trips, a miss is said out loud, a damaged entry names its file."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from gate.errors import InputError, SnapshotMiss
from gate.snapshot.records import (
    CONTENTS,
    EXTRACTIONS,
    PAGES,
    SEARCH,
    Anchor,
    ContentsRecord,
    ExtractionRecord,
    PageRecord,
    SearchRecord,
    contents_key,
    search_key,
    url_key,
)
from gate.snapshot.store import SnapshotStore

WHEN = datetime(2026, 10, 15, 9, 0, 0, tzinfo=UTC)
SERPAPI = {"search_metadata": {"status": "Success"}, "organic_results": [{"position": 1, "link": "https://a.test/"}]}


@pytest.fixture
def store(tmp_path: Path) -> SnapshotStore:
    return SnapshotStore(str(tmp_path / "snapshot"))


def test_search_round_trips_the_provider_json_as_is(store: SnapshotStore) -> None:
    assert store.put_search(SearchRecord("serpapi", "ECB  deposit rate\n", SERPAPI, recorded_at=WHEN))
    got = store.search("serpapi", " ECB deposit rate")
    assert got == SearchRecord("serpapi", "ECB deposit rate", SERPAPI, recorded_at=WHEN)
    # The file keeps the provider's key order and says when it was recorded, in UTC.
    entry = json.loads(Path(store.path(SEARCH, search_key("serpapi", "ECB deposit rate"))).read_text())
    assert entry["recorded_at"] == "2026-10-15T09:00:00Z"
    assert list(entry["response"]) == ["search_metadata", "organic_results"]


def test_search_keys_keep_case_and_provider(store: SnapshotStore) -> None:
    store.put_search(SearchRecord("serpapi", "US rates", SERPAPI, recorded_at=WHEN))
    with pytest.raises(SnapshotMiss):
        store.search("serpapi", "us rates")  # case matters to search engines
    with pytest.raises(SnapshotMiss):
        store.search("brave", "US rates")  # another provider is another answer


def test_a_list_response_is_an_answer(store: SnapshotStore) -> None:
    blocks = [{"type": "web_search_result", "url": "https://a.test/", "title": "A"}]
    store.put_search(SearchRecord("anthropic", "a", blocks))
    assert store.search("anthropic", "a").response == blocks


def test_page_round_trips_and_equivalent_urls_hit(store: SnapshotStore) -> None:
    page = PageRecord(url="http://www.example.com/a/?utm_source=x", status=200, body="<p>hi</p>",
                      final_url="https://example.com/a", content_type="text/html", fetched_at=WHEN)
    store.put_page(page)
    assert store.page("https://example.com/a#top") == page


def test_a_404_is_a_recording(store: SnapshotStore) -> None:
    store.put_page(PageRecord(url="https://example.com/gone", status=404, body="Not found"))
    assert store.page("https://example.com/gone").status == 404


def test_extraction_round_trips(store: SnapshotStore) -> None:
    record = ExtractionRecord(url="https://example.com/a", text="Hello", published=date(2026, 9, 1),
                              anchors=(Anchor("https://example.com/b", "B"),))
    store.put_extraction(record)
    assert store.extraction("https://example.com/a/") == record


def test_a_provider_reading_round_trips_beside_the_page_the_site_answered(store: SnapshotStore) -> None:
    item = {"url": "https://news.example/a", "title": "A", "raw_content": "# A", "images": []}
    record = ContentsRecord("tavily", "https://news.example/a", {"results": [item]}, recorded_at=WHEN,
                            params={"extract_depth": "advanced"})
    assert store.put_contents(record) and not store.put_contents(record)
    store.put_page(PageRecord(url="https://news.example/a", status=403, body="Access denied"))
    assert store.contents("tavily", ["http://www.news.example/a/", "https://news.example/b"]) == {
        "http://www.news.example/a/": record}  # any spelling of the URL; a URL never read is left out
    assert store.contents("exa", ["https://news.example/a"]) == {}  # each provider's reading is its own
    assert store.page("https://news.example/a").status == 403
    entry = json.loads(Path(store.path(CONTENTS, contents_key("tavily", "https://news.example/a"))).read_text())
    assert entry["format"] == "sourcegate-contents/1" and entry["response"] == {"results": [item]}


@pytest.mark.parametrize("response", [
    {"failed_results": [{"url": "https://news.example/a", "error": "Failed to fetch url"}]},
    {"results": []},
])
def test_a_reading_the_provider_failed_is_never_recorded(store: SnapshotStore,
                                                         response: dict[str, list[object]]) -> None:
    with pytest.raises(InputError, match="errors are never cached"):
        store.put_contents(ContentsRecord("tavily", "https://news.example/a", response))


def test_a_miss_names_the_layer_the_key_and_the_folder(store: SnapshotStore) -> None:
    with pytest.raises(SnapshotMiss) as e:
        store.page("https://example.com/never")
    message = str(e.value)
    assert "page layer" in message
    assert url_key("https://example.com/never") in message
    assert str(Path(store.root) / "pages") in message
    assert "never goes to the network" in message
    expected = r"search layer: nothing recorded for provider 'brave', query 'x y' "
    with pytest.raises(SnapshotMiss, match=expected):
        store.search("brave", "x   y")
    with pytest.raises(SnapshotMiss, match="extraction layer"):
        store.extraction("https://example.com/never")


@pytest.mark.parametrize("response", [
    {"error": "Invalid API key."},
    {"search_metadata": {"status": "Error"}, "error": "We couldn't get valid results for this search."},
    {"_type": "ErrorResponse", "errors": [{"code": "InvalidAuthorization"}]},
    {"type": "ErrorResponse", "error": {"code": "RATE_LIMITED"}},
    {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"},
    {"detail": {"error": "Unauthorized: missing or invalid API key."}},
])
def test_a_failed_search_is_never_recorded(store: SnapshotStore, response: object) -> None:
    with pytest.raises(InputError, match="errors are never cached"):
        store.put_search(SearchRecord("serpapi", "q", response))
    assert list(store.files(SEARCH)) == []


def test_serpapi_no_results_is_an_answer(store: SnapshotStore) -> None:
    # SerpApi reports "no results" with a top-level error but a Success status: that is data.
    empty = {"search_metadata": {"status": "Success"},
             "error": "Google hasn't returned any results for this query."}
    store.put_search(SearchRecord("serpapi", "zxqv", empty))
    assert store.search("serpapi", "zxqv").response == empty


@pytest.mark.parametrize("status", [408, 429, 500, 503])
def test_a_transient_failure_is_never_recorded(store: SnapshotStore, status: int) -> None:
    with pytest.raises(InputError, match=f"HTTP {status} is a transient failure"):
        store.put_page(PageRecord(url="https://example.com/", status=status, body=""))
    assert list(store.files(PAGES)) == []


def test_a_bad_provider_name_is_refused(store: SnapshotStore) -> None:
    with pytest.raises(InputError, match="provider name 'Serp API'"):
        store.put_search(SearchRecord("Serp API", "q", {}))


def test_writing_the_same_record_again_changes_nothing(store: SnapshotStore) -> None:
    record = PageRecord(url="https://example.com/", status=200, body="x")
    assert store.put_page(record) is True
    assert store.put_page(record) is False
    assert store.put_page(PageRecord(url="https://example.com/", status=200, body="y")) is True


def _entry(store: SnapshotStore, **changes: object) -> Path:
    store.put_page(PageRecord(url="https://example.com/", status=200, body="x"))
    file = Path(store.path(PAGES, url_key("https://example.com/")))
    data = json.loads(file.read_text())
    data.update(changes)
    file.write_text(json.dumps(data))
    return file


def test_a_schema_violation_names_the_file_and_the_json_path(store: SnapshotStore) -> None:
    file = _entry(store, status="200")
    with pytest.raises(InputError) as e:
        store.page("https://example.com/")
    assert e.value.file == str(file)
    assert e.value.path == "$.status"


def test_an_unknown_field_is_refused(store: SnapshotStore) -> None:
    _entry(store, cookies="x")
    with pytest.raises(InputError, match=r"at \$\.cookies: unknown key 'cookies' \(known: format, key, url"):
        store.page("https://example.com/")


def test_a_duplicate_key_names_the_file(store: SnapshotStore) -> None:
    file = _entry(store)
    file.write_text(file.read_text().replace('"status": 200', '"status": 200, "status": 404'))
    with pytest.raises(InputError, match="duplicate key 'status'") as e:
        store.page("https://example.com/")
    assert (e.value.file, e.value.path) == (str(file), "$.status")


def test_a_duplicate_key_deep_in_a_provider_response_is_found(store: SnapshotStore) -> None:
    store.put_search(SearchRecord("serpapi", "q", {"organic_results": [{"link": "https://a.test/"}]}))
    file = Path(store.path(SEARCH, search_key("serpapi", "q")))
    file.write_text(file.read_text().replace('"link": "https://a.test/"', '"link": "a", "link": "b"'))
    with pytest.raises(InputError, match="duplicate key 'link'") as e:
        store.search("serpapi", "q")
    assert e.value.path == "$.response.organic_results[0].link"


def test_an_entry_edited_to_another_url_does_not_match_its_name(store: SnapshotStore) -> None:
    _entry(store, url="https://example.com/other")
    with pytest.raises(InputError, match="edited by hand") as e:
        store.page("https://example.com/")
    assert e.value.path == "$.key"


def test_a_time_without_a_zone_is_refused(store: SnapshotStore) -> None:
    _entry(store, fetched_at="2026-10-15T09:00:00")
    with pytest.raises(InputError, match="time zone") as e:
        store.page("https://example.com/")
    assert e.value.path == "$.fetched_at"


def test_the_neutral_trace_shape_is_checked(store: SnapshotStore) -> None:
    store.put_search(SearchRecord("trace", "q", {"results": []}))
    file = Path(store.path(SEARCH, search_key("trace", "q")))
    file.write_text(file.read_text().replace('"results": []', '"results": [{"url": "https://a.test/"}]'))
    with pytest.raises(InputError) as e:
        store.search("trace", "q")
    assert e.value.path == "$.response.results[0]"


def test_index_lists_what_is_held_and_checks_every_entry(store: SnapshotStore) -> None:
    store.put_search(SearchRecord("serpapi", "a  b", SERPAPI))
    store.put_page(PageRecord(url="https://example.com/", status=200, body="x"))
    store.put_extraction(ExtractionRecord(url="https://example.com/", text="x"))
    index = store.index()
    assert index.has_query("a b") and index.has_query("a b", "serpapi")
    assert not index.has_query("a b", "brave")
    assert index.has_page("http://www.example.com")
    assert index.extractions == {url_key("https://example.com/")}
    Path(store.path(EXTRACTIONS, url_key("https://example.com/"))).write_text("{")
    with pytest.raises(InputError, match="malformed JSON"):
        store.index()


def test_an_entry_read_once_is_read_afresh_when_its_file_changes(store: SnapshotStore) -> None:
    """Lookups are cached by the file's identity: a rewrite, damage or removal is seen at once."""
    store.put_search(SearchRecord("serpapi", "q", SERPAPI, recorded_at=WHEN))
    assert store.search("serpapi", "q").response == SERPAPI
    assert store.search("serpapi", "q") is store.search("serpapi", "q")  # read and checked once
    other = {**SERPAPI, "organic_results": []}
    assert store.put_search(SearchRecord("serpapi", "q", other, recorded_at=WHEN))
    assert store.search("serpapi", "q").response == other
    file = Path(store.path(SEARCH, search_key("serpapi", "q")))
    file.write_text(file.read_text(encoding="utf-8").replace('"provider"', '"provider_"'), encoding="utf-8")
    with pytest.raises(InputError):
        store.search("serpapi", "q")
    with pytest.raises(InputError):  # a failure is never kept: it is read and refused again
        store.search("serpapi", "q")
    file.unlink()
    with pytest.raises(SnapshotMiss):
        store.search("serpapi", "q")


def test_the_read_cache_keeps_the_most_recently_used_within_its_budget() -> None:
    from gate.snapshot.store import _ReadCache

    cache = _ReadCache(budget=10)
    cache.put("a", (1,), 4, "A")
    cache.put("b", (1,), 4, "B")
    assert cache.get("a", (1,)) == "A"  # now the most recently used
    cache.put("c", (1,), 4, "C")  # over budget: b goes
    assert (cache.get("a", (1,)), cache.get("b", (1,)), cache.get("c", (1,))) == ("A", None, "C")
    assert cache.get("a", (2,)) is None  # another file now
    cache.put("huge", (1,), 11, "H")  # never fits
    assert cache.get("huge", (1,)) is None and cache.get("c", (1,)) == "C"
