"""A provider's answer to reading pages, cut into one part per URL and put back together. Pure."""

from __future__ import annotations

from datetime import UTC, datetime

from gate.snapshot.contents import CONTENTS_APIS, Unread, joined, part_text, split_answer
from gate.snapshot.records import ContentsRecord

TAVILY, EXA = CONTENTS_APIS["tavily"], CONTENTS_APIS["exa"]
WHEN = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def test_each_url_gets_its_own_items_as_they_came_matched_by_its_canonical_form() -> None:
    answer = {"results": [{"url": "https://news.example/a/", "title": "A", "raw_content": "# A"},
                          {"url": "https://news.example/b", "title": "B", "raw_content": "# B"}],
              "failed_results": [{"url": "https://news.example/c", "error": "Failed to fetch url"}],
              "response_time": 0.4, "request_id": "r-1"}
    parts = split_answer(TAVILY, answer, ["http://www.news.example/a", "https://news.example/b",
                                          "https://news.example/c"], WHEN, {"extract_depth": "advanced"})
    assert parts["http://www.news.example/a"] == ContentsRecord(
        "tavily", "http://www.news.example/a", {"results": [answer["results"][0]]}, WHEN, {"extract_depth": "advanced"})
    assert parts["https://news.example/c"] == Unread("https://news.example/c",
                                                     "tavily could not read it (Failed to fetch url)",
                                                     {"failed_results": answer["failed_results"]})
    together = joined(TAVILY, [p.response for p in parts.values()])
    assert together == {"results": answer["results"], "failed_results": answer["failed_results"]}
    assert part_text(TAVILY, {"results": [answer["results"][1]]}) == "# B"


def test_the_answer_to_one_url_is_that_urls_whatever_its_items_name() -> None:
    answer = {"results": [{"id": "x-1", "url": "https://news.example/moved", "text": "moved here"}],
              "statuses": [{"id": "x-1", "status": "success"}]}
    [part] = split_answer(EXA, answer, ["https://news.example/old"], None, None).values()
    assert isinstance(part, ContentsRecord) and part_text(EXA, part.response) == "moved here"


def test_an_exa_error_status_or_a_missing_result_is_no_reading() -> None:
    answer = {"results": [], "statuses": [{"id": "https://a.test/", "status": "error",
                                           "error": {"tag": "CRAWL_TIMEOUT", "httpStatusCode": 408}}]}
    parts = split_answer(EXA, answer, ["https://a.test/", "https://b.test/"], None, None)
    assert parts["https://a.test/"] == Unread("https://a.test/", "exa could not read it (tag CRAWL_TIMEOUT, "
                                              "httpStatusCode 408)", {"statuses": answer["statuses"]})
    assert parts["https://b.test/"] == Unread("https://b.test/", "exa's answer has no result for it", {})
