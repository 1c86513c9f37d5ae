"""The ``langfuse`` importer on the shapes other frameworks record: LangGraph's message state and its
LangChain tool spans, BeeAI's event spans, and Python literals printed where JSON belongs."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gate.errors import InputError
from gate.importers import convert
from gate.importers.embedded import python_literal

FIXTURES = Path(__file__).parent / "fixtures" / "import" / "langfuse"
LANGGRAPH = FIXTURES / "langgraph-2025-08-22.json"
BEEAI = FIXTURES / "beeai-2025-08-01.json"


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _named(data: dict[str, Any], name: str) -> dict[str, Any]:
    [span] = [o for o in data["observations"] if o["name"] == name]
    return span


# --- LangGraph -------------------------------------------------------------------------------

def test_langgraph_question_and_answer_are_the_last_human_and_ai_messages_of_its_state() -> None:
    trace = convert("langfuse", load(LANGGRAPH))
    assert trace["question"] == "Search the web for 'example' and summarize."
    assert trace["answer"].startswith('The search for "example" primarily leads to the website [example.com]')
    assert trace["agent"] == {"model": "gpt-4o-2024-08-06"}


def test_langgraph_s_tool_span_is_a_search_with_its_results() -> None:
    # No OpenInference kind: the span returned a LangChain ToolMessage; its input is a printed
    # Python dict ("{'query': 'example'}"), its results the message's content.
    trace = convert("langfuse", load(LANGGRAPH))
    assert trace["queries"] == ["example"]
    assert trace["results"] == [{"query": 0, "position": 1, "url": "https://example.com",
                                 "title": "Example Result"}]


def test_a_tool_message_that_says_the_tool_failed_shows_no_results() -> None:
    data = load(LANGGRAPH)
    _named(data, "Web-Search")["output"].update(status="error", content="Error: rate limited")
    trace = convert("langfuse", data)
    assert trace["queries"] == ["example"] and trace["results"] == []


def test_a_messages_state_with_no_human_turn_has_no_question() -> None:
    data = load(LANGGRAPH)
    data["trace"]["input"] = json.dumps({"messages": [{"type": "system", "content": "Be helpful"}]})
    with pytest.raises(InputError, match=r"at \$\.trace\.input: no question found .* messages with a human one"):
        convert("langfuse", data, source="in.json")


# --- BeeAI -------------------------------------------------------------------------------------

def test_beeai_s_event_spans_are_one_search_query_from_the_start_results_from_the_success() -> None:
    trace = convert("langfuse", load(BEEAI))
    assert trace["question"].startswith("I'm planning a trip to Barcelona, Spain.")
    # the answer is a printed Python dict {'role': 'assistant', 'text': "..."}: its text
    assert trace["answer"].startswith("Barcelona is a vibrant city") and "\n\n1. **Sagrada" in trace["answer"]
    assert trace["queries"] == ["Tourism in Barcelona"]
    assert [r["url"] for r in trace["results"]] == ["https://en.wikipedia.org/wiki/Barcelona"]
    assert trace["results"][0]["title"] == "Barcelona"


def test_a_beeai_search_that_ended_in_error_keeps_its_query_and_shows_nothing() -> None:
    data = load(BEEAI)
    success = _named(data, "tool.search.wikipedia.success-12")
    success["name"] = "tool.search.wikipedia.error-12"
    trace = convert("langfuse", data)
    assert trace["queries"] == ["Tourism in Barcelona"] and trace["results"] == []


def test_a_beeai_result_event_without_its_start_is_refused_saying_what_is_missing() -> None:
    data = load(BEEAI)
    data["observations"] = [o for o in data["observations"] if o["name"] != "tool.search.wikipedia.start-12"]
    with pytest.raises(InputError, match="a tool.search.wikipedia success event with no start event beside it"):
        convert("langfuse", data, source="in.json")


def test_a_start_event_without_a_query_is_refused_naming_its_input() -> None:
    data = load(BEEAI)
    index = next(i for i, o in enumerate(data["observations"]) if o["name"] == "tool.search.wikipedia.start-12")
    del data["observations"][index]["metadata"]["attributes"]["tool.parameters"]
    with pytest.raises(InputError, match=rf"at \$\.observations\[{index}\]\.input: a web-search tool span "
                                         "without a query"):
        convert("langfuse", copy.deepcopy(data), source="in.json")


# --- Python literals -----------------------------------------------------------------------------

@pytest.mark.parametrize(("text", "expected"), [
    ("{'query': 'x', 'n': None, 'ok': True}", {"query": "x", "n": None, "ok": True}),
    ("[{'url': 'https://a.test/'}]", [{"url": "https://a.test/"}]),
    ("5 results", "kept"),                        # not a literal: stays text
    ("{'a': __import__('os').getcwd()}", "kept"),  # a call is code, not a literal: never run
    ("[" * 150 + "]" * 150, "kept"),              # nested past the depth limit (100)
    ("[" * 5000 + "]" * 5000, "kept"),            # past what the parser takes
])
def test_a_printed_python_literal_is_read_as_data_and_nothing_else(text: str, expected: Any) -> None:
    assert python_literal(text, "kept") == expected
