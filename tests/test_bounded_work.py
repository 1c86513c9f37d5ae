"""Bounded work per input: no quote, page or answer in a trace can make a check run for long.

Nothing here times anything (speed is in ``tests/bench.py``): the inputs are the ones that kept an
unbounded matcher busy for minutes, so these tests finishing at all is the point; the assertions
say what the gate makes of them.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from gate.checks.passage import MAX_FUZZY_QUOTE_CHARS, MAX_FUZZY_SEGMENTS, MAX_PAGE_CHARS, PageIndex, WorkBudget
from gate.cli import main
from gate.urls import extract_urls
from gate.urls.anchors import extract_anchors
from tests.support.golden_factory import run_for, write_golden

WORDS = ("the", "of", "energy", "report", "market", "growth", "policy", "results", "announced", "between",
         "government", "researchers", "university", "inflation", "quarter", "according", "statement")
SENTENCE_WORDS = range(10, 21)


def prose(rng: random.Random, chars: int) -> str:
    """Plain sentences of 10 to 20 words from a small vocabulary: every word is common, as on a long
    real page. The words of a thousand sentences are drawn at once (megabytes of it are needed)."""
    out: list[str] = []
    n = 0
    while n < chars:
        sizes = rng.choices(SENTENCE_WORDS, k=1000)
        words = rng.choices(WORDS, k=sum(sizes))
        first = 0
        for size in sizes:
            s = " ".join(words[first:first + size]).capitalize() + f" {n % 997}."
            first += size
            out.append(s)
            n += len(s) + 1
            if n >= chars:
                break
    return " ".join(out)[:chars]


@pytest.fixture(scope="module")
def big_page() -> PageIndex:
    """Just under 2 MB of text, normalised once for the module."""
    return PageIndex(prose(random.Random(7), MAX_PAGE_CHARS - 10_000))


def test_a_100000_character_quote_not_on_a_2_mb_page_is_too_large_to_check(big_page: PageIndex) -> None:
    quote = prose(random.Random(8), 100_000)
    match = big_page.find(quote)
    assert (match.found, match.method) == (False, "too_large")
    assert match.too_large == (f"the quote has {len(quote):,} characters, over the "
                               f"{MAX_FUZZY_QUOTE_CHARS:,} of a fuzzy match")


def test_a_100000_character_quote_copied_from_the_page_is_found_exactly(big_page: PageIndex) -> None:
    quote = big_page.text[400_000:500_000].strip()
    start = big_page.text.find(quote)
    match = big_page.find(quote.upper())
    assert (match.found, match.method, match.start, match.end) == (True, "exact", start, start + len(quote))


def test_a_long_quote_with_elisions_is_found_exactly_part_by_part(big_page: PageIndex) -> None:
    text = big_page.text
    first, last = text[10_000:12_000].strip(), text[1_500_000:1_503_000].strip()
    quote = f"{first} ... {text[900_000:902_000]} [...] {last}"
    match = big_page.find(quote)
    assert (match.found, match.method) == (True, "exact")
    assert (match.start, match.end) == (text.find(first), text.find(last, 1_400_000) + len(last))


def test_a_paraphrased_2000_character_quote_is_aligned_on_a_2_mb_page(big_page: PageIndex) -> None:
    # Too costly to scan the whole page for: aligned around its anchors, still found where it is.
    original = big_page.text[1_200_000:1_202_000]
    match = big_page.find(original.replace(" the ", " a ", 6))
    assert match.found and match.method == "fuzzy"
    assert match.start is not None and abs(match.start - 1_200_000) < 50


def test_a_quote_elided_into_too_many_parts_must_be_exact(big_page: PageIndex) -> None:
    parts = [big_page.text[i * 50_000:i * 50_000 + 40] for i in range(MAX_FUZZY_SEGMENTS + 1)]
    assert big_page.find(" ... ".join(parts)).method == "exact"
    changed = " ... ".join([parts[0].replace(" ", "  x ", 1), *parts[1:]])
    match = big_page.find(changed)
    assert (match.found, match.method) == (False, "too_large")
    assert match.too_large is not None and f"{MAX_FUZZY_SEGMENTS + 1} parts" in match.too_large


def test_a_page_over_the_limit_is_searched_exactly_only() -> None:
    page = PageIndex(prose(random.Random(9), MAX_PAGE_CHARS + 1_000))
    sentence = page.text[2_000_000:2_000_300]
    assert page.find(sentence).method == "exact"
    match = page.find(sentence.replace(" the ", " a ", 2) + " (paraphrased)")
    assert (match.found, match.method) == (False, "too_large")
    assert match.too_large is not None and "the page has" in match.too_large


def test_the_quotes_of_one_run_share_one_bound_on_fuzzy_work(big_page: PageIndex) -> None:
    budget = WorkBudget()
    sentence = big_page.text[300_000:300_400].strip()
    paraphrase = sentence.replace(" the ", " a ", 2)
    assert big_page.find(paraphrase, budget=budget).method == "fuzzy"
    assert 0 < budget.left < WorkBudget().left
    spent = WorkBudget(0)
    match = big_page.find(paraphrase, budget=spent)
    assert (match.found, match.method) == (False, "too_large")
    assert match.too_large == "the run's quotes have used up the fuzzy-match work of one run"
    assert big_page.find(sentence, budget=spent).method == "exact"  # the exact search is never rationed


def test_a_hostile_answer_is_read_in_one_pass() -> None:
    url = "https://a.example/x"
    assert extract_urls(f"see {url}" + ")" * 200_000) == [url]
    assert extract_urls(f"see {url}" + ";" * 200_000) == [url]
    # Markers glued to a URL are read from its end, one at a time.
    assert extract_urls(f"see {url}" + "[1]" * 100_000 + "x") == [f"{url}" + "[1]" * 100_000 + "x"]
    assert extract_urls(f"see {url}" + "[1]" * 100_000) == [url]


@pytest.mark.parametrize("text", [
    "<a " * 300_000,                           # a megabyte of anchors that never close their tag
    '<a href="/x">' + "y" * 1_000_000,         # an anchor that never ends
    "<!-- <script> " * 70_000,                 # comments and scripts that never close
    "[x](" * 200_000 + "[y][" * 100_000,       # markdown links that never close
])
def test_a_hostile_page_s_links_are_read_in_one_pass(text: str) -> None:
    # the links of a page the agent read are looked at for every citation no search showed
    assert extract_anchors(text, "https://p.test/") == ()


def test_the_report_says_a_quote_was_too_large_to_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_golden(tmp_path / "set", ["ok", "adversarial"])
    trace = run_for("adversarial")
    quote = prose(random.Random(10), 100_000)
    trace["citations"] = [{"url": trace["pages"][0]["url"], "quote": quote}]  # type: ignore[index]
    trace["pages"][0]["text"] = prose(random.Random(11), MAX_PAGE_CHARS - 10_000)  # type: ignore[index]
    (root / "runs" / "adversarial.json").write_text(json.dumps(trace), encoding="utf-8")
    out = tmp_path / "report.json"
    assert main(["check", str(root), "--markdown", "-", "--json", str(out)]) == 1
    markdown = capsys.readouterr().out
    assert "too large to check fuzzily: the quote has 100,000 characters, over the 2,000 of a fuzzy match" in markdown
    report = json.loads(out.read_text(encoding="utf-8"))
    [failure] = [f for c in report["cases"] for f in c["hard_failures"]]
    assert failure["check"] == "passage_missing" and "too large to check fuzzily" in failure["message"]
