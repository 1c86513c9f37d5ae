"""What a run spent on search: each call priced from what the API billed in its reply (Exa), else from the
price table (``search_prices``: Tavily's credits for a basic and an advanced search and an extract, Brave's
and SerpApi's plans), else "no price", never $0. Recorded through the Recorder with the providers' real
responses (``tests/fixtures/search-apis/``, see its ATTRIBUTION.md), checked, and read back from the
JSON report's figures and the TOOL spans."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from gate.config import DEFAULT_SEARCH_PRICES, Config, SearchPrice, parse_config
from gate.deliver.spans import build_spans
from gate.deliver.spans.otel import encode_json_lines
from gate.errors import InputError
from gate.importers import convert
from gate.load.golden import parse_trace
from gate.model import Case, Page, Replay, Run, SearchCall
from gate.record import Recorder
from gate.score.evaluate import evaluate_run
from gate.store.serialise import case_from_dict, case_to_dict
from gate.usage.search import search_charges, total_cost
from gate.verdict.configdiff import config_changes
from gate.verdict.report import Report

APIS = Path(__file__).parent / "fixtures" / "search-apis"
START = datetime(2026, 10, 2, 9, 14, tzinfo=UTC)
EXA = {**json.loads((APIS / "exa-py-sdk-spec.example-0-search.json").read_text(encoding="utf-8")),
       "costDollars": {"total": 0.005}}  # what Exa's reply says it billed (the SDK spec's example has no bill)


def _response(name: str) -> Any:
    return json.loads((APIS / name).read_text(encoding="utf-8"))


def _record(searches: list[tuple[str, Any, dict[str, Any]]], *, extract: str | None = None) -> Run:
    """A run that sends each (provider, response, keyword arguments) search, then reads a page through
    Tavily's extract at ``extract`` depth, if given."""
    rec = Recorder("What changed?", case="q", clock=lambda: START, environ={})
    for i, (provider, response, kwargs) in enumerate(searches):
        @rec.search(provider=provider)
        def search(query: str, **_: Any) -> Any:
            return response  # noqa: B023 - called at once, in this turn of the loop

        search(f"query {i}", **kwargs)
    if extract is not None:
        @rec.read(provider="tavily")
        def tavily_extract(url: str, extract_depth: str = "basic") -> str:
            return "The page's text."

        tavily_extract("https://example.org/page", extract_depth=extract)
    rec.answer("Something changed.")
    return parse_trace(rec.trace(), "<recording>", "q")


def _checked(run: Run, config: Config | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The case's JSON and its spans by name (each search's TOOL span as web_search/N)."""
    result = evaluate_run(run, Case(id="q", question=run.question), config or Config())
    report = Report(verdict="pass", reasons=(), golden_name="costs", golden_version=1, cases=(result,))
    spans: dict[str, Any] = {}
    for s in build_spans(report, {"q": run}):
        name = s.name if s.name != "web_search" else f"web_search/{sum(k.startswith('web_search') for k in spans)}"
        spans[name] = s.attributes
    return case_to_dict(result), spans


def test_each_provider_s_search_costs_what_its_plan_charges_and_exa_what_it_billed() -> None:
    run = _record([("tavily", _response("tavily-search.response.cell19.3.json"), {}),
                   ("tavily", _response("tavily-search.response.cell19.3.json"), {"search_depth": "advanced"}),
                   ("brave", _response("go-brave-search.testdata.web_search_response.json"), {}),
                   ("serpapi", _response("serpapi-google.matcha.response.json"), {}),
                   ("exa", EXA, {})], extract="advanced")
    case, spans = _checked(run)
    costs = [(c["provider"], c["operation"], c["basis"], c["cost_usd"]) for c in case["search_charges"]]
    assert costs == [("tavily", "search", "price_table", pytest.approx(0.008)),
                     ("tavily", "advanced_search", "price_table", pytest.approx(0.016)),
                     ("brave", "search", "price_table", pytest.approx(0.005)),
                     ("serpapi", "search", "price_table", pytest.approx(0.015)),
                     ("exa", "search", "billed", 0.005),
                     ("tavily", "advanced_extract", "price_table", pytest.approx(0.0032))]
    assert case["figures"]["search_cost_usd"] == pytest.approx(0.008 + 0.016 + 0.005 + 0.015 + 0.005 + 0.0032)
    assert case["figures"]["unpriced_searches"] == 0
    tools = [spans[f"web_search/{i}"] for i in range(5)]
    assert [(t["sourcegate.search.provider"], t["sourcegate.cost_basis"]) for t in tools] == [
        ("tavily", "price_table"), ("tavily", "price_table"), ("brave", "price_table"), ("serpapi", "price_table"),
        ("exa", "billed")]
    assert tools[1]["sourcegate.cost_usd"] == pytest.approx(0.016) and tools[1]["sourcegate.search.credits"] == 2.0
    assert tools[1]["sourcegate.search.depth"] == "advanced"
    page = spans["fetch_page"]
    assert page["sourcegate.search.operation"] == "advanced_extract"
    assert page["sourcegate.cost_usd"] == pytest.approx(0.0032)
    root = spans["case q"]
    assert root["sourcegate.search.cost_usd"] == pytest.approx(case["figures"]["search_cost_usd"])
    assert root["sourcegate.search.unpriced"] == 0
    assert case_from_dict(case).search_charges == evaluate_run(run, Case(id="q", question=run.question),
                                                               Config()).search_charges


def test_a_provider_without_a_price_says_no_price_never_zero() -> None:
    run = _record([("serper", _response("serper-search.handmade.json"), {}),
                   ("tavily", _response("tavily-search.response.cell19.3.json"), {})])
    case, spans = _checked(run)
    serper = case["search_charges"][0]
    assert (serper["basis"], serper["cost_usd"]) == ("no_price", None)
    assert case["figures"]["search_cost_usd"] is None and case["figures"]["unpriced_searches"] == 1
    tool = spans["web_search/0"]
    assert tool["sourcegate.cost_basis"] == "no_price" and "sourcegate.cost_usd" not in tool
    assert "sourcegate.search.cost_usd" not in spans["case q"] and spans["case q"]["sourcegate.search.unpriced"] == 1


def test_a_search_whose_provider_was_not_recorded_has_no_price() -> None:
    run = Run(case="q", question="q", answer="a", queries=("one", "two"),
              searches=(SearchCall(0, cost_usd=0.004),))
    charges = search_charges(run, DEFAULT_SEARCH_PRICES)
    assert [(c.basis, c.cost_usd) for c in charges] == [("billed", 0.004), ("no_price", None)]
    assert total_cost(charges) == (None, 1)
    assert total_cost(search_charges(replace(run, queries=()), DEFAULT_SEARCH_PRICES)) == (0.0, 0)  # no search
    fetched = replace(run, queries=(), pages=(Page("https://example.org/", "text"),))
    assert search_charges(fetched, DEFAULT_SEARCH_PRICES) == ()  # a page the agent fetched itself


def test_a_price_table_the_user_writes_wins_and_prices_more_providers() -> None:
    config = parse_config("search_prices:\n"
                          "  tavily: {credit_usd: 0.005, credits: {search: 1, advanced_search: 2}}\n"
                          "  serper: {credit_usd: 0.001, credits: {search: 1}}\n", "sourcegate.yaml")
    assert config.search_prices["tavily"] == SearchPrice(0.005, {"search": 1.0, "advanced_search": 2.0})
    assert config.search_prices["brave"] == DEFAULT_SEARCH_PRICES["brave"]  # the others keep their defaults
    run = _record([("tavily", _response("tavily-search.response.cell19.3.json"), {}),
                   ("serper", _response("serper-search.handmade.json"), {})], extract="basic")
    case, _ = _checked(run, config)
    assert [(c["provider"], c["basis"], c["cost_usd"]) for c in case["search_charges"]] == [
        ("tavily", "price_table", pytest.approx(0.005)), ("serper", "price_table", pytest.approx(0.001)),
        ("tavily", "no_price", None)]  # the user's Tavily entry prices no extract: no price, not the default's


def test_a_price_for_a_kind_of_call_that_is_not_one_is_refused() -> None:
    with pytest.raises(InputError, match="search_prices"):
        parse_config("search_prices:\n  tavily: {credit_usd: 0.008, credits: {crawl: 1}}\n", "sourcegate.yaml")


def test_spans_imported_back_keep_the_provider_and_only_what_the_api_billed() -> None:
    run = _record([("tavily", _response("tavily-search.response.cell19.3.json"), {"search_depth": "advanced"}),
                   ("exa", EXA, {})], extract="basic")
    result = evaluate_run(run, Case(id="q", question=run.question), Config())
    report = Report(verdict="pass", reasons=(), golden_name="costs", golden_version=1, cases=(result,))
    back = convert("otlp", encode_json_lines(build_spans(report, {"q": run})), case="q")
    assert [{k: c.get(k) for k in ("provider", "depth", "cost_usd")} for c in back["searches"]] == [
        {"provider": "tavily", "depth": "advanced", "cost_usd": None},  # priced from the table: priced again
        {"provider": "exa", "depth": None, "cost_usd": 0.005}]  # billed in its reply: kept
    page = back["pages"][0]
    assert (page["provider"], page["depth"]) == ("tavily", "basic")


def test_a_run_the_replay_server_answered_spent_nothing_on_search() -> None:
    recorded = _record([("tavily", _response("tavily-search.response.cell19.3.json"), {"search_depth": "advanced"})],
                       extract="basic")
    rerun = replace(recorded, replay=Replay(command=("agent",)))  # as sourcegate run writes it
    case, spans = _checked(rerun)
    assert [(c["provider"], c["basis"], c["cost_usd"]) for c in case["search_charges"]] == [
        ("tavily", "replayed", 0.0), ("tavily", "replayed", 0.0)]
    assert case["figures"]["search_cost_usd"] == 0.0 and case["figures"]["unpriced_searches"] == 0
    assert spans["web_search/0"]["sourcegate.cost_basis"] == "replayed"


def test_a_pull_request_that_changes_a_search_price_says_so_and_moves_no_bar() -> None:
    pr = parse_config("search_prices:\n  brave: {credit_usd: 0.009, credits: {search: 1}}\n", "sourcegate.yaml")
    changes = [(c.setting, c.base, c.pr, c.effect) for c in config_changes(Config(), pr)]
    assert changes == [("search_prices.brave.credit_usd", 0.005, 0.009, "neutral")]
