"""Every hard check, shown by example runs: each file under fixtures/runs/<check>/fails must fail
that check, each file under fixtures/runs/<check>/passes must not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gate.checks import CHECKS
from gate.config import Config
from gate.load.golden import load_trace
from gate.model import Case
from gate.score.evaluate import evaluate_run

RUNS = Path(__file__).parent / "fixtures" / "runs"


def examples(kind: str) -> list[Any]:
    out = []
    for file in sorted(RUNS.glob(f"*/{kind}/*.json")):
        if file.name.endswith(".case.json"):
            continue
        out.append(pytest.param(file.parent.parent.name, file, id=f"{file.parent.parent.name}/{file.stem}"))
    return out


def judge(file: Path) -> tuple[set[str], dict[str, str]]:
    run = load_trace(str(file))
    sidecar = file.with_name(file.stem + ".case.json")
    extra = json.loads(sidecar.read_text()) if sidecar.exists() else {}
    case = Case(
        id=run.case, question=run.question, cls=extra.get("class"), freshness=extra.get("freshness"),
        about_domains=tuple(extra.get("about_domains", ())),
    )
    result = evaluate_run(run, case, Config())
    # A soft check (paraphrase_drift by default) fails a run with warnings named for it.
    warned = {w.kind for w in result.warnings if w.kind in CHECKS}
    return {f.check for f in result.hard_failures} | warned, {s.check: s.status for s in result.checks}


@pytest.mark.parametrize(("check", "file"), examples("fails"))
def test_run_fails_its_check(check: str, file: Path) -> None:
    failed, statuses = judge(file)
    assert check in failed
    assert statuses[check] in ("fail", "warn")


@pytest.mark.parametrize(("check", "file"), examples("passes"))
def test_run_passes_its_check(check: str, file: Path) -> None:
    failed, statuses = judge(file)
    assert check not in failed
    assert statuses[check] in ("pass", "not_checked")


def test_every_check_has_a_failing_and_a_passing_example() -> None:
    for check in CHECKS:
        assert list(RUNS.glob(f"{check}/fails/*.json")), check
        assert list(RUNS.glob(f"{check}/passes/*.json")), check


def test_fabricated_and_unread_never_name_the_same_url() -> None:
    for check, file in [(p.values[0], p.values[1]) for p in examples("fails") + examples("passes")]:
        run = load_trace(str(file))
        result = evaluate_run(run, Case(id=run.case, question=run.question), Config())
        fab = {f.url for f in result.hard_failures if f.check == "fabricated_url"}
        unread = {f.url for f in result.hard_failures if f.check == "unread_citation"}
        assert not fab & unread, (check, file)


@pytest.mark.parametrize(("file", "expected"), [
    # fetched by a URL no search showed, and it answered: grounded in what it read
    ("fabricated_url/passes/fetches-its-own-url-and-it-answered.json", []),
    # fetched by a URL no search showed, and it did not answer: unresolved, not made up
    ("url_unresolved/fails/fetched-its-own-url-and-it-did-not-answer.json",
     [("url_unresolved", "https://nasa.example.gov/jupiter-moons-2026")]),
    # a markdown link (relative) and an HTML link on the page it read: seen there, cited unread
    ("fabricated_url/passes/cites-links-on-a-page-it-read.json",
     [("unread_citation", "https://science.example.gov/mpc/moons"),
      ("unread_citation", "https://moons.example.org/jupiter?dir=asc&sort=year")]),
    # a link on an error page was not seen: the page never answered
    ("fabricated_url/fails/cites-a-link-on-a-page-that-did-not-answer.json",
     [("fabricated_url", "https://science.example.gov/moon-list-2026")]),
    # the explicit list names the good page; the answer also links an invented one
    ("fabricated_url/fails/links-an-invented-url-beside-its-citations-list.json",
     [("fabricated_url", "https://who.int/invented-page-2026")]),
])
def test_what_the_agent_saw_is_not_fabricated(file: str, expected: list[tuple[str, str]]) -> None:
    run = load_trace(str(RUNS / file))
    result = evaluate_run(run, Case(id=run.case, question=run.question), Config())
    assert [(f.check, f.url) for f in result.hard_failures] == expected


def test_no_citations_leaves_cap_and_floor_unreported() -> None:
    run = load_trace(str(RUNS / "no_citations" / "fails" / "answered-from-memory.json"))
    result = evaluate_run(run, Case(id=run.case, question=run.question, cls="synthesis"), Config())
    assert {f.check for f in result.hard_failures} == {"no_citations"}
    statuses = {s.check: s.status for s in result.checks}
    assert statuses["domain_cap"] == statuses["domain_floor"] == "not_checked"


def test_a_url_cited_again_with_another_quote_has_each_quote_checked_once() -> None:
    # A citations list may repeat a URL: each different quote is checked, a repeated one is one failure.
    from dataclasses import replace

    from gate.model import Citation

    run = load_trace(str(RUNS / "passage_missing" / "fails" / "quote-not-on-page.json"))
    jupiter = "https://science.example.gov/jupiter"
    run = replace(run, citations=(
        Citation(jupiter, "Jupiter has 102 confirmed moons as of 2026"),
        Citation(jupiter + "/", "Jupiter has 95 known moons"),
        Citation(jupiter, "  Jupiter has 102 confirmed moons as of 2026 "),
    ))
    result = evaluate_run(run, Case(id=run.case, question=run.question), Config())
    [failure] = [f for f in result.hard_failures if f.check == "passage_missing"]
    assert "102 confirmed moons" in failure.message
    # jupiter once, however often it is listed, and astro-news.com: the answer links it, and an
    # explicit list does not hide the answer's own links
    assert result.counts.citations == 2


def test_retrieval_succeeds_only_with_enough_pages_really_read() -> None:
    # "At least 3 results and 1 page read": a fetch that failed read nothing, and a page read twice
    # is one page.
    from dataclasses import replace

    run = load_trace(str(RUNS / "url_unresolved" / "fails" / "cited-page-returned-404.json"))
    failed, ok = run.pages
    case = Case(id=run.case, question=run.question)
    one_page = Config(min_pages=1)
    two_pages = Config(min_pages=2)
    assert evaluate_run(run, case, one_page).counts.retrieval_succeeded
    assert not evaluate_run(run, case, two_pages).counts.retrieval_succeeded
    assert not evaluate_run(replace(run, pages=(failed,)), case, one_page).counts.retrieval_succeeded
    assert not evaluate_run(replace(run, pages=(ok, ok)), case, two_pages).counts.retrieval_succeeded
