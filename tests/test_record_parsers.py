"""Search results out of real search API responses: each provider's parser, detection by shape, errors.

The responses are in ``tests/fixtures/search-apis/`` (see its ATTRIBUTION.md); the Anthropic blocks
come from a recorded Messages API response in ``tests/fixtures/import/anthropic/``.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from gate.errors import InputError, RecordError
from gate.record import PARSERS, detect, parse_results

FIXTURES = Path(__file__).parent / "fixtures"
APIS = FIXTURES / "search-apis"


def _load(name: str) -> Any:
    return json.loads((APIS / name).read_text(encoding="utf-8"))


def _anthropic_blocks() -> list[dict[str, Any]]:
    message = json.loads((FIXTURES / "import" / "anthropic" / "vercel-ai.anthropic-web-search-tool.1.json")
                         .read_text(encoding="utf-8"))
    return [b for b in message["content"] if b["type"] == "web_search_tool_result"]


# provider, file, number of results, (position, url, title prefix) of the first result
CASES = [
    ("serpapi", "serpapi-google_light_fast.coffee.response.json", 10,
     (1, "https://en.wikipedia.org/wiki/Coffee", "Coffee - Wikipedia")),
    ("serpapi", "serpapi-google.matcha.response.json", 9,
     (1, "https://en.wikipedia.org/wiki/Matcha", "Matcha")),
    ("brave", "go-brave-search.testdata.web_search_response.json", 3,
     (1, "https://go.dev/", "The Go Programming Language")),
    ("bing", "bing-web-search-v7.example-response.from-quickstart-nodejs.json", 1,
     (1, "https://www.microsoft.com/cognitive-services", "Microsoft Cognitive Services")),
    ("tavily", "tavily-search.response.cell19.3.json", 10,
     (1, "https://www.linkedin.com/jobs/view/software-engineer-32949-at-stealth-startup-4378192559", "")),
    ("exa", "exa-py-sdk-spec.example-0-search.json", 2,
     (1, "https://www.adept.ai/", "Adept: Useful General Intelligence")),
    ("serply", "serply-search.handmade.json", 2,
     (1, "https://www.ecb.europa.eu/press/pr/date/2023/html/ecb.pr230101.en.html", "Croatia joins")),
    ("serper", "serper-search.handmade.json", 2,
     (1, "https://www.ecb.europa.eu/press/pr/date/2023/html/ecb.pr230101.en.html", "Croatia joins")),
]


@pytest.mark.parametrize(("provider", "file", "count", "first"), CASES, ids=[c[1] for c in CASES])
def test_each_provider_parses_its_real_response(provider: str, file: str, count: int,
                                                first: tuple[int, str, str]) -> None:
    results = parse_results(_load(file), provider)
    assert len(results) == count
    position, url, title = first
    assert (results[0].position, results[0].url) == (position, url)
    assert results[0].title.startswith(title)
    assert [r.position for r in results] == list(range(1, count + 1))
    assert all(r.query is None and r.url.startswith("http") for r in results)


@pytest.mark.parametrize(("provider", "file"), [(c[0], c[1]) for c in CASES], ids=[c[1] for c in CASES])
def test_the_shape_tells_the_provider(provider: str, file: str) -> None:
    assert detect(_load(file)) == provider
    assert parse_results(_load(file)) == parse_results(_load(file), provider)


def test_snippets_and_calendar_dates_are_kept() -> None:
    matcha = parse_results(_load("serpapi-google.matcha.response.json"), "serpapi")
    assert [r.published for r in matcha if r.published] == [date(2024, 6, 6)]  # "Jun 6, 2024"
    exa = parse_results(_load("exa-py-sdk-spec.example-0-search.json"), "exa")
    assert [r.published for r in exa] == [date(2000, 1, 1), date(2019, 9, 10)]
    serper = parse_results(_load("serper-search.handmade.json"), "serper")
    assert [r.published for r in serper] == [date(2023, 1, 1), None]  # "Jan 1, 2023"
    bing = parse_results(_load("bing-web-search-v7.example-response.from-quickstart-nodejs.json"), "bing")
    assert bing[0].snippet.startswith("Knock down barriers between you and your ideas.")
    tavily = parse_results(_load("tavily-search.response.cell19.3.json"), "tavily")
    assert all(r.snippet for r in tavily)


def test_anthropic_web_search_result_blocks() -> None:
    full, empty = _anthropic_blocks()
    results = parse_results(full, "anthropic")
    assert len(results) == 10
    assert results[0].url == "https://developer.apple.com/news/"
    assert results[0].title == "Latest News - Apple Developer"
    assert parse_results(full["content"], "anthropic") == results  # the block's content list alone
    assert detect(full) == "anthropic"
    assert parse_results(empty, "anthropic") == ()  # a search that found nothing, said by the API


def test_the_neutral_trace_shape_the_replay_server_serves() -> None:
    data = {"results": [{"position": 1, "title": "T", "url": "https://a.example/x", "snippet": "s",
                         "published": "2026-01-02"}]}
    assert detect(data) == "trace"
    [r] = parse_results(data)
    assert (r.url, r.published) == ("https://a.example/x", date(2026, 1, 2))


@pytest.mark.parametrize("file", [c[1] for c in CASES if c[0] != "bing"])
def test_an_answer_with_no_results_is_still_told_apart(file: str) -> None:
    data = _load(file)
    for holder in (data, data.get("web", {})):
        for key in ("results", "organic_results", "organic"):
            if key in holder:
                holder[key] = []
    provider = detect(data)
    assert provider == next(c[0] for c in CASES if c[1] == file)
    assert parse_results(data) == ()


def test_a_registry_of_small_parsers() -> None:
    assert set(PARSERS) >= {"serpapi", "brave", "bing", "tavily", "exa", "serply", "serper", "anthropic", "trace"}
    assert all(p.id == name for name, p in PARSERS.items())


def test_an_unknown_shape_names_the_provider_and_the_json_path() -> None:
    brave = _load("go-brave-search.testdata.web_search_response.json")
    with pytest.raises(RecordError) as err:
        parse_results(brave, "serpapi")  # not a SerpApi response: no list where SerpApi keeps it
    assert str(err.value) == "serpapi response at $: missing key 'organic_results'"
    assert (err.value.file, err.value.path) == ("serpapi response", "$")
    broken = _load("go-brave-search.testdata.web_search_response.json")
    del broken["web"]["results"][1]["url"]
    with pytest.raises(RecordError) as err:
        parse_results(broken, "brave")
    assert str(err.value) == "brave response at $.web.results[1]: missing key 'url'"
    with pytest.raises(RecordError, match=r"bing response at \$: missing key 'webPages'"):
        parse_results({"_type": "SearchResponse"}, "bing")
    assert isinstance(err.value, InputError)


def test_a_shape_no_provider_has_is_an_error_not_empty_results() -> None:
    with pytest.raises(RecordError, match="not the response shape of any known search API"):
        detect({"items": []})
    with pytest.raises(RecordError, match="not the response shape of any known search API"):
        parse_results({"hits": [{"href": "https://a.example/"}]})
    with pytest.raises(RecordError, match="unknown search provider 'google'"):
        parse_results({}, "google")
