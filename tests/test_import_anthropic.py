"""The ``anthropic`` importer: what it reads from a Messages response and its stream, and what it refuses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gate.errors import InputError
from gate.files.where import publication_date
from gate.importers import convert
from gate.importers.base import strip_elision

FIXTURES = Path(__file__).parent / "fixtures" / "import" / "anthropic"
SEARCH = FIXTURES / "vercel-ai.anthropic-web-search-tool.1.json"
STREAM = FIXTURES / "vercel-ai.anthropic-web-search-tool.1.chunks.txt"
FETCH = FIXTURES / "vercel-ai.anthropic-web-fetch-tool.1.json"


def response(path: Path = SEARCH) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def test_queries_results_and_dates_come_from_the_server_tools() -> None:
    trace = convert("anthropic", SEARCH.read_text(encoding="utf-8"))
    assert trace["queries"] == ["tech news today September 26 2024", '"September 26 2024" tech news breaking']
    assert len(trace["results"]) == 10 and {r["query"] for r in trace["results"]} == {0}
    assert [r["position"] for r in trace["results"]] == list(range(1, 11))
    dated = {r["url"]: r.get("published") for r in trace["results"]}
    assert dated["https://www.cnbc.com/technology/"] == "2015-12-21"
    assert dated["https://www.sciencedaily.com/news/matter_energy/technology/"] is None  # "2 days ago"
    assert trace["pages"] == []  # encrypted_content is not page text: a search reads no page
    assert trace["agent"] == {"model": "claude-sonnet-4-20250514"}


def test_the_answer_joins_text_blocks_and_keeps_quotes_without_the_cut_marker() -> None:
    trace = convert("anthropic", response())
    assert trace["answer"].startswith("Let me search for more specific tech news from today "
                                      "(September 26, 2024).\n\nBased on the search results")
    assert "Caroline Ellison, Sam Bankman-Fried's right-hand woman" in trace["answer"]
    first = trace["citations"][0]
    assert first["url"] == "https://acecomments.mu.nu/?post=411647"
    assert first["quote"].endswith("has been sentenced to")
    cited = [c["url"] for c in trace["citations"]]
    assert cited.count("https://www.crescendo.ai/news/latest-ai-news-and-updates") == 2


def test_the_stream_is_reassembled_from_its_deltas() -> None:
    raw = STREAM.read_text(encoding="utf-8")
    trace = convert("anthropic", raw)
    events = [json.loads(line) for line in raw.splitlines() if line.strip()]
    deltas = [e["delta"] for e in events if e["type"] == "content_block_delta"]
    assert trace["queries"] == ["tech news today September 26 2025"]  # from five input_json_delta pieces
    streamed = {(d["citation"]["url"], d["citation"]["cited_text"])
                for d in deltas if d["type"] == "citations_delta"}
    assert len(trace["citations"]) == len(streamed) == 12  # 14 deltas, two repeats of the same passage
    assert trace["answer"] == "".join(d["text"] for d in deltas if d["type"] == "text_delta").strip()


def test_a_raw_server_sent_events_capture_reads_the_same() -> None:
    lines = [line for line in STREAM.read_text(encoding="utf-8").splitlines() if line.strip()]
    sse = "".join(f"event: {json.loads(line)['type']}\ndata: {line}\n\n" for line in lines)
    assert convert("anthropic", sse) == convert("anthropic", "\n".join(lines))


def test_a_failed_fetch_reads_no_page() -> None:
    trace = convert("anthropic", (FIXTURES / "vercel-ai.anthropic-web-fetch-tool.error.json").read_text())
    assert trace["pages"] == [] and trace["citations"] == []


def test_a_pdf_fetch_is_a_page_read_whose_text_was_not_recorded() -> None:
    data = response(FETCH)
    data["content"][2]["content"]["content"]["source"] = {"type": "base64", "media_type": "application/pdf",
                                                          "data": "JVBERi0x"}
    [page] = convert("anthropic", data)["pages"]
    assert page["text"] == "" and page["truncated"] is True


def test_question_and_case_come_from_the_caller() -> None:
    trace = convert("anthropic", response(), case="tech-news", question="What is in tech news today?")
    assert trace["case"] == "tech-news" and trace["question"] == "What is in tech news today?"
    assert convert("anthropic", response())["question"] == ""


@pytest.mark.parametrize(("value", "expected"), [
    ("December 31, 2024", "2024-12-31"), ("Jan 5, 2025", "2025-01-05"), ("2025-06-30T05:41:00", "2025-06-30"),
    ("2 days ago", None), ("", None), (None, None), ("2025-13-45", None),
])
def test_page_age_is_a_date_only_when_it_says_one(value: str | None, expected: str | None) -> None:
    assert publication_date(value) == expected


@pytest.mark.parametrize(("quote", "expected"), [
    ("sentenced to ...", "sentenced to"), ("a cut\u2026", "a cut"), ("whole sentence.", "whole sentence."),
    ("...", None), ("a ... b", "a ... b"),
])
def test_only_a_trailing_cut_marker_is_dropped(quote: str, expected: str | None) -> None:
    assert strip_elision(quote) == expected


def _broken(mutate: Any) -> dict[str, Any]:
    data = response()
    mutate(data)
    return data


MALFORMED: dict[str, tuple[Any, str]] = {
    "not a message": ({"type": "completion"}, "at $.type: expected 'message'"),
    "an API error body": ({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
                          "an API error (overloaded_error: Overloaded)"),
    "content not a list": (_broken(lambda d: d.update(content={})), "at $.content: expected an array"),
    "query missing": (_broken(lambda d: d["content"][0]["input"].pop("query")),
                      "at $.content[0].input: missing key 'query'"),
    "result url not a string": (_broken(lambda d: d["content"][1]["content"][3].update(url=7)),
                                "at $.content[1].content[3].url: expected a string, got an integer"),
    "result for an unknown call": (_broken(lambda d: d["content"][1].update(tool_use_id="srvtoolu_x")),
                                   "no web_search server_tool_use with id 'srvtoolu_x'"),
    "document citation": (_broken(lambda d: d["content"][6]["citations"][0].update(type="char_location")),
                          "at $.content[6].citations[0].type: citation type 'char_location' is not "
                          "supported"),
    "bad retrieved_at": (_broken(lambda d: d.update(content=[dict(response(FETCH)["content"][2],
                                                              content={**response(FETCH)["content"][2]["content"],
                                                                       "retrieved_at": "yesterday"})])),
                         "at $.content[0].content.retrieved_at: 'yesterday' is not an ISO 8601"),
}


@pytest.mark.parametrize("name", MALFORMED)
def test_a_wrong_shape_names_the_json_path(name: str) -> None:
    data, message = MALFORMED[name]
    with pytest.raises(InputError) as err:
        convert("anthropic", data, source="runs/q.json")
    assert str(err.value).startswith("runs/q.json")
    assert message in str(err.value)


def test_truncated_json_names_the_value_it_broke_in() -> None:
    cut = FETCH.read_text(encoding="utf-8")[:3000]
    with pytest.raises(InputError, match=r"^runs/q\.json at \$\.content\[2\]\.content\.content\.source"
                                         r"\.data: malformed JSON: Unterminated string"):
        convert("anthropic", cut, source="runs/q.json")


def test_a_stream_cut_short_is_refused_with_its_line() -> None:
    lines = STREAM.read_text(encoding="utf-8").splitlines()
    with pytest.raises(InputError, match=r"at line 40, \$: the stream ends before message_stop"):
        convert("anthropic", "\n".join(lines[:40]), source="s.chunks.txt")
    with pytest.raises(InputError, match=r"at line 3, \$\.delta\.type: malformed JSON"):
        convert("anthropic", "\n".join([*lines[:2], lines[2][:60], *lines[3:]]), source="s.chunks.txt")


def test_a_stream_that_ends_in_an_api_error_is_refused() -> None:
    lines = STREAM.read_text(encoding="utf-8").splitlines()[:5]
    lines.append('{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}')
    with pytest.raises(InputError, match=r"line 6, \$: the stream ended with an API error "
                                         r"\(overloaded_error"):
        convert("anthropic", "\n".join(lines), source="s.chunks.txt")
