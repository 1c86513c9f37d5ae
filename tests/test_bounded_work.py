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

from gate.checks.closest import Closest
from gate.checks.passage import (
    MAX_FUZZY_QUOTE_CHARS,
    MAX_FUZZY_SEGMENTS,
    MAX_PAGE_CHARS,
    PageIndex,
    WorkBudget,
    normalise,
)
from gate.checks.verbatim import MAX_PLACEMENTS
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


def _words_of(text: str, start: int, chars: int) -> str:
    """Whole words of ``text`` from ``start`` on, about ``chars`` long: a quote starts and ends on word edges."""
    a = text.index(" ", start) + 1
    return text[a:text.rindex(" ", a, a + chars)]


def test_a_100000_character_quote_not_on_a_2_mb_page_gets_no_closest_passage(big_page: PageIndex) -> None:
    quote = prose(random.Random(8), 100_000)
    match = big_page.find(quote)
    assert (match.found, match.method) == (False, "none")
    assert big_page.closest(match.part or "") == (f"the quote has {len(normalise(quote)):,} characters, over the "
                                                  f"{MAX_FUZZY_QUOTE_CHARS:,} of a fuzzy search")


def test_a_100000_character_quote_copied_from_the_page_is_found_exactly(big_page: PageIndex) -> None:
    quote = _words_of(big_page.text, 400_000, 100_000)
    start = big_page.text.find(quote)
    match = big_page.find(quote.upper())
    assert (match.found, match.method, match.start, match.end) == (True, "exact", start, start + len(quote))


def test_a_long_quote_with_elisions_is_found_exactly_part_by_part(big_page: PageIndex) -> None:
    text = big_page.text
    first, last = _words_of(text, 10_000, 2_000), _words_of(text, 1_500_000, 3_000)
    quote = f"{first} ... {_words_of(text, 900_000, 2_000)} [...] {last}"
    match = big_page.find(quote)
    assert (match.found, match.method) == (True, "exact")
    assert (match.start, match.end) == (text.find(first), text.find(last, 1_400_000) + len(last))


def test_a_2000_character_quote_with_typos_is_found_on_a_2_mb_page(big_page: PageIndex) -> None:
    original = _words_of(big_page.text, 1_200_000, 1_950)
    # A letter doubled in ten words (one per 200 characters, well within one per 40), no number touched.
    words = original.split(" ")
    changed = [k for k in range(3, len(words), len(words) // 10) if words[k].isalpha()]
    for k in changed:
        words[k] = words[k][0] + words[k]
    match = big_page.find(" ".join(words))
    assert (match.found, match.method, match.typos) == (True, "typo", len(changed))
    assert (match.start, match.end) == (big_page.text.find(original), big_page.text.find(original) + len(original))


def test_a_paraphrased_2000_character_quote_is_not_on_a_2_mb_page_but_its_closest_passage_is(
        big_page: PageIndex) -> None:
    # Too costly to scan the whole page for: aligned around its anchors, still found where it is.
    original = big_page.text[1_200_000:1_202_000]
    match = big_page.find(original.replace(" the ", " a ", 6))
    assert (match.found, match.method) == (False, "none")
    closest = big_page.closest(match.part or "")
    assert isinstance(closest, Closest) and abs(closest.start - 1_200_000) < 50


def test_a_quote_elided_into_too_many_parts_must_be_verbatim(big_page: PageIndex) -> None:
    parts = [_words_of(big_page.text, i * 50_000, 40) for i in range(MAX_FUZZY_SEGMENTS + 1)]
    assert big_page.find(" ... ".join(parts)).method == "exact"
    # A letter doubled in one word of a long part would be one forgiven typo, but not in so many parts.
    long = [_words_of(big_page.text, i * 50_000, 90) for i in range(MAX_FUZZY_SEGMENTS + 1)]
    typed = " ... ".join([long[0].replace(" ", " x", 1), *long[1:]])
    assert big_page.find(" ... ".join(long)).found and not big_page.find(typed).found
    assert big_page.find(" ... ".join([long[0].replace(" ", " x", 1), *long[1:MAX_FUZZY_SEGMENTS]])).method == "typo"


def test_a_page_over_the_limit_is_searched_verbatim_only() -> None:
    page = PageIndex(prose(random.Random(9), MAX_PAGE_CHARS + 1_000))
    sentence = _words_of(page.text, 2_000_000, 300)
    assert page.find(sentence).method == "exact"
    match = page.find(sentence.replace(" ", " x", 1))
    assert (match.found, match.method) == (False, "none")
    closest = page.closest(match.part or "")
    assert isinstance(closest, str) and "the page has" in closest


def test_the_quotes_of_one_run_share_one_bound_on_fuzzy_work(big_page: PageIndex) -> None:
    budget = WorkBudget()
    sentence = _words_of(big_page.text, 300_000, 400)
    typed = sentence.replace(" ", " x", 1)
    assert big_page.find(typed, budget=budget).method == "typo"
    assert 0 < budget.left < WorkBudget().left
    spent = WorkBudget(0)
    assert big_page.find(typed, budget=spent).method == "none"  # no typo forgiven once the work is spent
    assert big_page.closest(typed, spent) == "the run's quotes have used up the fuzzy-search work of one run"
    assert big_page.find(sentence, budget=spent).method == "exact"  # the verbatim search is never rationed


def test_bracketed_insertions_between_common_words_stop_at_a_bound(big_page: PageIndex) -> None:
    match = big_page.find(" [x] ".join(["the", "of"] * 8))
    assert (match.found, match.reason) == (False, f"its parts were tried at over {MAX_PLACEMENTS:,} places of the page")


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


def test_the_report_says_why_no_closest_passage_was_shown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_golden(tmp_path / "set", ["ok", "adversarial"])
    trace = run_for("adversarial")
    quote = prose(random.Random(10), 100_000)
    trace["citations"] = [{"url": trace["pages"][0]["url"], "quote": quote}]  # type: ignore[index]
    trace["pages"][0]["text"] = prose(random.Random(11), MAX_PAGE_CHARS - 10_000)  # type: ignore[index]
    (root / "runs" / "adversarial.json").write_text(json.dumps(trace), encoding="utf-8")
    out = tmp_path / "report.json"
    assert main(["check", str(root), "--markdown", "-", "--json", str(out)]) == 1
    markdown = capsys.readouterr().out
    bound = "the quote has 100,000 characters, over the 2,000 of a fuzzy search"
    assert f"no closest passage looked for: {bound}" in markdown
    report = json.loads(out.read_text(encoding="utf-8"))
    [failure] = [f for c in report["cases"] for f in c["hard_failures"]]
    assert failure["check"] == "passage_missing" and "no closest passage looked for" in failure["message"]
