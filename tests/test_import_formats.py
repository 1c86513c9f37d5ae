"""The ``openai-responses``, ``perplexity``, ``langfuse`` and ``tavily-agent-log`` importers, one by one."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from gate.errors import InputError
from gate.importers import convert

FIXTURES = Path(__file__).parent / "fixtures" / "import"
OPENAI = FIXTURES / "openai" / "vercel-ai.openai-web-search-tool.1.json"
OPENAI_STREAM = FIXTURES / "openai" / "vercel-ai.openai-web-search-tool.1.chunks.txt"
PERPLEXITY = FIXTURES / "perplexity" / "vercel-ai.perplexity-citations.json"
LANGFUSE = FIXTURES / "langfuse" / "agno-2025-06-11.json"
IPHONE = FIXTURES / "tavily" / "run-iphone-models.cell15.stdout.txt"
LINKEDIN = FIXTURES / "tavily" / "run-linkedin-jobs.cell19.stdout.txt"
VERGE = "https://www.theverge.com/podcast/838932/openai-chatgpt-code-red-vergecast"


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def refused(fmt: str, data: Any) -> str:
    with pytest.raises(InputError) as err:
        convert(fmt, data, source="in.json")
    assert str(err.value).startswith("in.json")
    return str(err.value)


# --- openai-responses ------------------------------------------------------------------------

def test_openai_sources_are_results_and_opened_pages_are_reads_without_text() -> None:
    trace = convert("openai-responses", load(OPENAI))
    assert trace["queries"] == ["tech news today December 5 2025"]
    assert len(trace["results"]) == 16 and trace["results"][0]["url"] == VERGE
    # open_page then find_in_page on the same page: one read, honest about its missing text
    assert trace["pages"] == [{"url": VERGE, "final_url": None, "status": None, "text": "",
                               "truncated": True, "fetched_at": None}]
    assert all(c["quote"] is None for c in trace["citations"])  # the indexes mark the answer, not the page
    assert trace["started_at"] == "2025-12-05T19:20:01Z"
    assert trace["agent"] == {"model": "gpt-5-mini-2025-08-07"}


def test_openai_created_at_may_be_a_float_as_the_sdk_dumps_it() -> None:
    # The SDK's Response.created_at is a float: response.model_dump_json() writes 1764962401.0.
    data = load(OPENAI)
    seconds = data["created_at"]
    data["created_at"] = float(seconds)
    assert convert("openai-responses", data)["started_at"] == "2025-12-05T19:20:01Z"


@pytest.mark.parametrize("created", [1764962401000, 10**20, -(10**20)])  # milliseconds, then nonsense
def test_an_impossible_unix_time_is_refused_with_its_path(created: int) -> None:
    data = load(OPENAI)
    data["created_at"] = created
    assert "at $.created_at: Unix time" in refused("openai-responses", data)


def test_openai_stream_reads_the_completed_response() -> None:
    raw = OPENAI_STREAM.read_text(encoding="utf-8")
    final = json.loads(raw.strip().splitlines()[-1])["response"]
    assert convert("openai-responses", raw) == convert("openai-responses", final)
    cut = "\n".join(raw.splitlines()[:-1])
    assert "no response.completed or response.incomplete event" in refused("openai-responses", cut)


def test_openai_search_without_recorded_sources_is_refused() -> None:
    data = load(OPENAI)
    del data["output"][1]["action"]["sources"]
    message = refused("openai-responses", data)
    assert "at $.output[1].action: a search without 'sources'" in message
    assert "web_search_call.action.sources" in message


def test_openai_unknown_action_and_wrong_object_are_refused() -> None:
    data = load(OPENAI)
    data["output"][3]["action"]["type"] = "screenshot"
    assert "at $.output[3].action.type: unknown web_search_call action 'screenshot'" in refused(
        "openai-responses", data)
    assert "at $.object: expected 'response'" in refused("openai-responses", load(PERPLEXITY))


# --- perplexity --------------------------------------------------------------------------------

def test_perplexity_citations_are_the_results_and_markers_the_citations() -> None:
    trace = convert("perplexity", load(PERPLEXITY), question="What is the population of San Francisco?")
    urls = load(PERPLEXITY)["citations"]
    assert [r["url"] for r in trace["results"]] == urls and trace["queries"] == [] and trace["pages"] == []
    # first-use order of [2][3][5][7] ... [6] ... [1]; [4] is never used
    assert [c["url"] for c in trace["citations"]] == [urls[i - 1] for i in (2, 3, 5, 7, 6, 1)]
    assert trace["question"] == "What is the population of San Francisco?"


def test_perplexity_marker_past_the_list_is_refused() -> None:
    data = load(PERPLEXITY)
    data["citations"] = data["citations"][:3]
    assert ("at $.choices[0].message.content: marker [5] at character" in refused("perplexity", data))


# --- langfuse ----------------------------------------------------------------------------------

def test_langfuse_question_answer_and_search_span() -> None:
    trace = convert("langfuse", load(LANGFUSE))
    assert trace["question"] == "What is currently trending on Twitter?"
    assert trace["queries"] == ["currently trending on Twitter"]
    assert [r["url"] for r in trace["results"]][:2] == ["https://twitter.com/explore/tabs/trending/",
                                                        "https://trends24.in/united-states/"]
    assert trace["results"][0]["snippet"] == ("Explore trending topics, hashtags, and conversations "
                                              "on Twitter.")
    assert trace["answer"].startswith("To find out what's currently trending on Twitter")
    assert "citations" not in trace  # the gate extracts the answer's links itself
    assert trace["started_at"] == "2025-06-11T14:01:32.598000Z" and trace["agent"] == {"model": "gpt-4o-mini"}


def _langfuse(mutate: Any) -> dict[str, Any]:
    data = copy.deepcopy(load(LANGFUSE))
    mutate(data)
    return data


def test_langfuse_wrong_shapes_name_their_path() -> None:
    search = next(i for i, o in enumerate(load(LANGFUSE)["observations"]) if o["name"] == "duckduckgo_search")
    assert "at $.trace.input: no question found" in refused(
        "langfuse", _langfuse(lambda d: d["trace"].update(input=None)))
    asked = convert("langfuse", _langfuse(lambda d: d["trace"].update(input=None)), question="q")
    assert asked["question"] == "q"
    assert f"at $.observations[{search}].output: expected an array, got a string" in refused(
        "langfuse", _langfuse(lambda d: d["observations"][search].update(output="5 results")))
    assert f"at $.observations[{search}].output[1]: a search result without a URL" in refused(
        "langfuse", _langfuse(lambda d: d["observations"][search]["output"][1].pop("href")))
    assert "at $.trace: missing key 'observations'" not in refused("langfuse", {"trace": {}})
    assert "at $: missing key 'observations'" in refused("langfuse", {"trace": {}})


# --- tavily-agent-log --------------------------------------------------------------------------

def test_tavily_log_reads_search_extract_and_answer() -> None:
    trace = convert("tavily-agent-log", IPHONE.read_text(encoding="utf-8"))
    assert trace["question"] == "find all the iphone models currently available on apple.com and their prices"
    assert trace["queries"] == ["current iPhone models and prices on apple.com"]
    assert len(trace["results"]) == 10
    assert [p["url"] for p in trace["pages"]] == [
        "https://www.apple.com/shop/buy-iphone/iphone-16", "https://www.apple.com/shop/buy-iphone/iphone-17",
        "https://www.apple.com/shop/buy-iphone/iphone-17-pro"]
    assert [len(p["text"]) for p in trace["pages"]] == [29721, 46254, 39156]
    assert trace["answer"].startswith("Here are all currently available iPhone models on Apple.com (U.S.)")
    assert trace["answer"].endswith("All details are current and verified from Apple.com as of March 2026.")


def test_tavily_log_keeps_the_query_the_agent_sent_not_the_echo() -> None:
    trace = convert("tavily-agent-log", LINKEDIN.read_text(encoding="utf-8"))
    assert trace["queries"] == ["software engineer job postings Bay Area site:linkedin.com"]


def test_tavily_log_cut_inside_a_tool_output_names_line_and_path() -> None:
    lines = IPHONE.read_text(encoding="utf-8").split("\n")
    lines[27] = lines[27][:5000]
    message = refused("tavily-agent-log", "\n".join(lines))
    assert message.startswith("in.json at line 28, $.results[0].raw_content: malformed JSON")


def test_tavily_log_without_a_final_answer_or_banners_is_refused() -> None:
    lines = IPHONE.read_text(encoding="utf-8").split("\n")
    cut = "\n".join(lines[:28])
    assert "at line 28, $: the log ends with a Tool Message" in refused("tavily-agent-log", cut)
    assert "at line 1, $: expected a LangChain message banner" in refused("tavily-agent-log", "hello\n")
    assert "expected the printed log as text" in refused("tavily-agent-log", {"messages": []})
