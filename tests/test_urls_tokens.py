"""The fast reading of an answer's citations agrees with the plain one it replaced.

:func:`gate.urls.extract.tokens` tries TOKEN only where a token can begin, :func:`extract_urls` reads
a repeated token once, and sentences are cut by a pattern that starts at the full stop: each is held
here to the straightforward version on varied and random text.
"""

from __future__ import annotations

import random
import re

import pytest

import gate.urls.extract as extract
from gate.urls import canonical, extract_urls
from gate.urls.extract import TOKEN, build_labels, prepared, tokens, urls_of
from gate.urls.hosts import usv
from gate.urls.supported import _SENTENCE_END, cited_sentences

# The sentence end as it was, with the full stop looked behind for.
_SENTENCE_END_BEFORE = re.compile(
    r"(?<=[.!?。！？])(?:\s*(?:\[\^?\d+(?:\s*[-–,;]\s*\d+)*\]|【[^】\n]*】))*(?:\s+|$)")

PIECES = [*"[]()<>!:/ \t\n\nhtpsHTPSſ【】^1,-ax.\"'*_~;&#|`?。", "http://", "https://", "HTTPS://", "[1]",
          "[2, 3]", "](", "![", "\n   [", "\n[", "\n    [", "\t[", "【1】", "<https://a.example/b>",
          "[x](https://a.example/c)", "\n[1]: https://a.example/x \"t\"", "\n1. https://b.example/y",
          "https://c.example/p_(q)", "[^1]", "\n```\n", "| a | b |\n|---|---|\n", "[1][2]", "[x][1]", ". "]


def random_texts(seed: int, count: int, most: int = 60) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(PIECES) for _ in range(rng.randint(0, most))) for _ in range(count)]


def spans(matches: object) -> list[tuple[tuple[int, int], str | None, tuple[str | None, ...]]]:
    return [(m.span(), m.lastgroup, m.groups()) for m in matches]  # type: ignore[attr-defined]


def extract_before(answer: str) -> list[str]:
    """extract_urls as it was: every TOKEN match, found by finditer, read in full."""
    text = prepared(usv(answer))
    labels = build_labels(text)
    seen: set[str] = set()
    found: list[str] = []
    for m in TOKEN.finditer(text):
        for url in urls_of(m, labels):
            if canonical(url) not in seen:
                seen.add(canonical(url))
                found.append(url)
    return found


VARIED = [
    "", "plain prose without a link.", "see https://a.example/x.", "see HTTPS://A.example/x and httpſ://b.example/",
    "  [1]: https://a.example/one\n[1] and [2]\n\n2. https://b.example/two", "    [1]: https://a.example/code",
    "![img](https://a.example/i.png) [t](https://a.example/t \"title\")", "【1†source】\n【1】 https://x.example/",
    "[a [nested] b](https://a.example/n)", "[x](\n  https://a.example/multi\n  'title'\n)", "[" * 50 + "]" * 3,
    "a[1][2] https://a.example/x[1][2] <https://b.example/auto>", "x:" * 20 + "//https://c.example/", "!" * 5 + "[a]",
]


@pytest.mark.parametrize("text", VARIED)
def test_tokens_are_the_matches_finditer_gives(text: str) -> None:
    assert spans(tokens(text)) == spans(TOKEN.finditer(text))


def test_tokens_agree_with_finditer_on_random_text() -> None:
    for text in random_texts(1, 6_000):
        assert spans(tokens(text)) == spans(TOKEN.finditer(text)), text


def test_extract_urls_agrees_with_the_plain_reading_on_random_text() -> None:
    for text in [*VARIED, *random_texts(2, 1_500, most=120)]:
        assert extract_urls(text) == extract_before(text), text


def test_sentences_are_cut_where_they_were() -> None:
    rng = random.Random(3)
    pieces = [*".!?。！？ \t", "[1]", "[2, 3]", " [4]", "【1】", "a", "word", "x."]
    for _ in range(8_000):
        line = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 30)))
        assert ([m.end() for m in _SENTENCE_END.finditer(line)]
                == [m.end() for m in _SENTENCE_END_BEFORE.finditer(line)]), line


def test_a_repeated_marker_cites_in_every_sentence_it_is_in() -> None:
    answer = "One claim [1]. Two claims [1]. Three [2].\n\n1. https://a.example/1\n2. https://b.example/2\n"
    assert [(s.text, s.urls) for s in cited_sentences(answer)] == [
        ("One claim.", ("https://a.example/1",)), ("Two claims.", ("https://a.example/1",)),
        ("Three.", ("https://b.example/2",))]


def test_a_long_answer_is_tried_only_where_tokens_can_be(monkeypatch: pytest.MonkeyPatch) -> None:
    # Work, not time: in prose the places TOKEN is tried are its brackets and URL schemes, not every character.
    words = "The report said: growth was slow in the quarter, according to the ministry [statement"
    answer = " ".join(f"{words} [{k % 3 + 1}]." for k in range(2_000)) + "\n\n1. https://a.example/1\n"
    tried: list[int] = []

    class Counting:
        def match(self, text: str, pos: int) -> re.Match[str] | None:
            tried.append(pos)
            return TOKEN.match(text, pos)

    monkeypatch.setattr(extract, "TOKEN", Counting())
    assert len(list(tokens(answer))) == 2_000 + 1  # the markers and the source; "[statement [1]" is no token
    # One try per "[" and one for the "https://" (five characters back, where it matches); the ":" of
    # "said:" is not a scheme's, and the ~180,000 other characters are never tried.
    assert len(tried) == 2_000 * 2 + 1
