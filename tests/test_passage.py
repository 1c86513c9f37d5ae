"""Behaviour of gate.checks.passage: is a quoted passage really on the page (verbatim, after normalisation)?

The hand-made cases of what changes a quote's meaning and what does not are in
``tests/test_quote_cases.py`` (and docs/quotes.md); these are the matcher's own rules."""

from __future__ import annotations

import pytest

from gate.checks.closest import Closest
from gate.checks.passage import Match, PageIndex, find_passage, normalise, terms

# A page as fetched: HTML entities, typographic quotes and dashes, odd whitespace, a soft hyphen.
PAGE = (
    "<h1>History of Python</h1>\n"
    "Python was conceived in the late 1980s by Guido van Rossum at Centrum Wiskunde &amp; Informatica "
    "(CWI) in the Netherlands as a successor to the ABC programming language.\n\n"
    "Its implementation began in December\u00a01989. Van Rossum shouldered sole responsibility for the "
    "project, as the lead developer, until 12 July 2018, when he announced his \u201cpermanent "
    "vacation\u201d from his responsibilities as Python\u2019s \u201cbenevolent dictator for life\u201d.\n"
    "Python 2.0 was released on 16 October 2000 \u2014 with many major new features such as list "
    "comprehensions, cycle-detecting garbage collection, reference counting, and Unicode support.\n"
    "Python 3.0, released on 3 December 2008, was a major revision not completely backward-compatible "
    "with earlier versions. The name comes from the British comedy troupe Monty Python, whose "
    "members the language\u2019s creator enjoyed watching while develop\u00adingthe language.\n"
)

# --------------------------------------------------------------------------------------------------
# normalise()
# --------------------------------------------------------------------------------------------------

NORMALISE = [
    ("case is folded", "Hello World", "hello world"),
    ("whitespace runs become one space", "a \t\n\n  b\u00a0\u2003c", "a b c"),
    ("surrounding whitespace is stripped", "  a  ", "a"),
    ("HTML entities are unescaped", "R&amp;D &lt;tag&gt; caf&eacute; &#8217;", "r&d <tag> café '"),
    ("curly single quotes fold to '", "\u2018a\u2019 \u201ab\u201b", "'a' 'b'"),
    ("curly double quotes fold to \"", "\u201ca\u201d \u201eb\u201f", '"a" "b"'),
    ("guillemets fold to \"", "\u00abbonjour\u00bb", '"bonjour"'),
    ("primes fold to quotes", "5\u2032 11\u2033", "5' 11\""),
    ("all dashes fold to -", "a\u2010b\u2011c\u2012d\u2013e\u2014f\u2015g\u2212h", "a-b-c-d-e-f-g-h"),
    ("NFKC: ligatures and full-width letters", "\ufb01ne \uff21\uff22", "fine ab"),
    ("NFKC: the ellipsis character becomes ...", "wait\u2026 what", "wait... what"),
    ("soft hyphens and zero-width spaces vanish", "hy\u00adphen\u200bated", "hyphenated"),
    ("NFKC where safe: a superscript power keeps its caret", "10\u00b2\u2075 FLOP, x\u207b\u00b9", "10^25 flop, x^-1"),
    ("NFKC where safe: a fraction after a digit keeps a space", "1\u00bd cups, \u00bc", "1 1/2 cups, 1/4"),
    ("NFKC: subscripts are digits", "CO\u2082", "co2"),
    ("empty stays empty", "", ""),
]


@pytest.mark.parametrize(("rule", "raw", "expected"), NORMALISE, ids=[c[0] for c in NORMALISE])
def test_normalise(rule: str, raw: str, expected: str) -> None:
    assert normalise(raw) == expected


# --------------------------------------------------------------------------------------------------
# find_passage(): exact matches survive formatting differences
# --------------------------------------------------------------------------------------------------

EXACT = [
    ("verbatim", "Python was conceived in the late 1980s by Guido van Rossum"),
    ("different case", "PYTHON WAS CONCEIVED in the late 1980s"),
    ("different whitespace", "Its implementation\n began   in December 1989."),
    ("straight quotes for curly ones", 'his "permanent vacation" from his responsibilities'),
    ("straight apostrophe for a curly one", "as Python's \"benevolent dictator for life\""),
    ("hyphen for an em dash", "16 October 2000 - with many major new features"),
    ("en dash for an em dash", "16 October 2000 \u2013 with many major new features"),
    ("& for &amp; on the page", "Centrum Wiskunde & Informatica (CWI)"),
    ("entity in the passage", "Centrum Wiskunde &amp; Informatica"),
    ("surrounding straight quotes are stripped", '"a successor to the ABC programming language."'),
    ("surrounding curly quotes are stripped", "\u201ca successor to the ABC programming language.\u201d"),
    ("a soft hyphen on the page is invisible", "while developingthe language"),
]


@pytest.mark.parametrize(("rule", "passage"), EXACT, ids=[c[0] for c in EXACT])
def test_exact_match_after_normalisation(rule: str, passage: str) -> None:
    match = find_passage(passage, PAGE)
    assert match.found
    assert match.method == "exact"
    assert match.score == 100.0


def test_exact_match_offsets_point_into_the_normalised_page() -> None:
    index = PageIndex(PAGE)
    match = index.find("Guido van Rossum")
    assert match.start is not None and match.end is not None
    assert index.text[match.start : match.end] == "guido van rossum"


# --------------------------------------------------------------------------------------------------
# find_passage(): elided quotes are matched segment by segment, in order
# --------------------------------------------------------------------------------------------------

ELIDED = [
    ("three dots", "Python 2.0 was released on 16 October 2000 ... garbage collection, reference counting", True),
    ("the ellipsis character", "Python 2.0 was released\u2026 and Unicode support", True),
    ("bracketed [...]", "Python was conceived [...] in the Netherlands", True),
    ("spaced . . .", "Python 3.0, released on 3 December 2008 . . . The name comes from", True),
    ("several elisions", "Guido van Rossum ... the ABC programming language ... December 1989", True),
    ("a trailing ellipsis", "The name comes from the British comedy troupe Monty Python...", True),
    ("segments out of order", "The name comes from the British comedy troupe ... Python 2.0 was released", False),
    ("one segment absent", "Python 2.0 was released ... with a brand new compiler written in Rust", False),
]


@pytest.mark.parametrize(("rule", "passage", "found"), ELIDED, ids=[c[0] for c in ELIDED])
def test_elided_quote(rule: str, passage: str, found: bool) -> None:
    assert find_passage(passage, PAGE).found is found


def test_elided_quote_spans_from_first_segment_to_last() -> None:
    index = PageIndex(PAGE)
    match = index.find("Python 3.0, released on 3 December 2008 ... Monty Python")
    assert match.found and match.method == "exact"
    assert match.start is not None and match.end is not None
    span = index.text[match.start : match.end]
    assert span.startswith("python 3.0, released") and span.endswith("monty python")


def test_an_elided_quote_with_a_paraphrased_part_names_that_part() -> None:
    assert find_passage("Python 2.0 was released ... garbage collection, reference counting", PAGE).score == 100.0
    match = find_passage("Python 2.0 was released ... cycle detecting garbage collector, reference counts", PAGE)
    assert (match.found, match.method) == (False, "none")
    assert match.part == "cycle detecting garbage collector, reference counts"


# --------------------------------------------------------------------------------------------------
# find_passage(): a paraphrase is not a quote, however close; a rare typo is forgiven
# --------------------------------------------------------------------------------------------------

PARAPHRASES = [
    (
        "a few words changed",
        "Python was created in the late 1980s by Guido van Rossum at Centrum Wiskunde & Informatica "
        "in the Netherlands as the successor to the ABC language.",
    ),
    (
        "a word dropped and tense changed",
        "Van Rossum shouldered sole responsibility for the project as lead developer until July 2018, "
        "when he announced a permanent vacation from his responsibilities.",
    ),
    (
        "a typo and a synonym",
        "Python 3.0, released on 3 December 2008, was a major revison not entirely backward-compatible "
        "with earlier versions.",
    ),
]


@pytest.mark.parametrize(("rule", "passage"), PARAPHRASES, ids=[c[0] for c in PARAPHRASES])
def test_a_light_paraphrase_is_not_a_quote(rule: str, passage: str) -> None:
    match = find_passage(passage, PAGE)
    assert (match.found, match.method, match.start, match.end) == (False, "none", None, None)
    assert match.part == normalise(passage)


TYPO_PAGE = "The government announced that the programme would be extended to every region by the end of 2027."


@pytest.mark.parametrize(
    ("quote", "found", "typos"),
    [
        ("the goverment announced that the programme", True, 1),  # 42 characters: one typo
        ("The goverment announced that the prog", False, 0),  # 37 characters: none
        ("the goverment announced that the programe would be", False, 0),  # two typos in 50 characters
        ("the goverment announced that the programe would be extended to every region by the end", True, 2),  # 87
        ("the govermnet announced that the programme would be extended to every region", False, 0),  # two in one word
        ("the government announced thatthe programme would be extended", True, 1),  # a space dropped
        ("the government announced that the programme would be extended to every region by the end of 2028", False, 0),
        ("government announced that the programme would be extended to every regio", False, 0),  # ends inside a word
        ("overnment announced that the programme would be extended to every region", False, 0),  # starts inside one
        ("The Goverment announced that the programme would be extended", False, 0),  # a capitalised word is a name
    ],
)
def test_one_typo_per_40_characters_is_forgiven_outside_numbers_and_names(quote: str, found: bool, typos: int) -> None:
    match = find_passage(quote, TYPO_PAGE)
    assert (match.found, match.typos) == (found, typos)
    assert match.method == ("typo" if typos else "exact" if found else "none")


def test_a_typo_match_points_at_the_passage_it_stands_for() -> None:
    index = PageIndex(TYPO_PAGE)
    match = index.find("the goverment announced that the programme would be")
    assert match.start is not None and match.end is not None
    assert index.text[match.start:match.end] == "the government announced that the programme would be"
    assert 90.0 < match.score < 100.0


def test_a_quote_must_start_and_end_where_the_pages_words_do() -> None:
    page = "The regulator never approved the merger."
    assert not find_passage("ever approved the merger", page).found
    assert not find_passage("the regulator never approved the merge", page).found
    assert find_passage("never approved the merger", page).found
    assert find_passage("[n]ever approved the merger", page).found  # a glued bracket may cut into a word


ABSENT = [
    "The Eiffel Tower was completed in 1889 and remained the tallest structure in the world for decades.",
    "Regular exercise improves cardiovascular health and reduces the risk of chronic disease in adults.",
    "Rust guarantees memory safety without a garbage collector by enforcing ownership rules at compile time.",
]


@pytest.mark.parametrize("passage", ABSENT)
def test_absent_sentence_is_rejected(passage: str) -> None:
    match = find_passage(passage, PAGE)
    assert not match.found
    assert match.method == "none"
    assert match.score == 0.0
    assert match.start is None and match.end is None
    assert PageIndex(PAGE).closest(match.part or "") is None  # nothing on the page is even half alike


def test_a_miss_comes_with_the_pages_closest_passage() -> None:
    # Half the words changed: not the same claim, but close enough to show the reader what the page says.
    index = PageIndex(PAGE)
    quote = ("Python was invented in the early 1990s by Guido van Rossum at Centrum Wiskunde & Informatica "
             "in Amsterdam as a replacement for the ABC teaching language.")
    match = index.find(quote)
    assert not match.found and match.part == normalise(quote)
    closest = index.closest(match.part)
    assert isinstance(closest, Closest) and 60.0 <= closest.score < 80.0
    assert "in the late 1980s by guido van rossum" in index.text[closest.start:closest.end]


def test_the_closest_passage_is_not_looked_for_past_the_bounds() -> None:
    index = PageIndex(PAGE)
    assert index.closest("x" * 2_001) == "the quote has 2,001 characters, over the 2,000 of a fuzzy search"


EMPTY = ["", "   ", '""', "\u201c\u201d", "...", "\u2026"]


@pytest.mark.parametrize("passage", EMPTY)
def test_empty_passage_has_nothing_to_check(passage: str) -> None:
    assert find_passage(passage, PAGE) == Match(found=True, score=100.0, method="empty", start=None, end=None)


def test_nothing_is_found_on_an_empty_page() -> None:
    assert not find_passage("Python was conceived in the late 1980s", "").found


# A quote longer than the page (or than what is left of it after an earlier segment) cannot be on it
# whole: the page may hold only its first words, and the rest is the agent's own.
LONGER_THAN_THE_PAGE = [
    ("the page is the quote's first words", "Revenue rose 40%.",
     "Revenue rose 40% in 2025, driven by exports to China and a weaker krone."),
    ("the page is one word of the quote", "Revenue",
     "The company said revenue rose sharply in the second half of the year."),
    ("the last segment runs past the page's end", "Python 2.0 was released on 16 October 2000.",
     "Python 2.0 was released ... on 16 October 2000 with a brand new garbage collector"),
]


@pytest.mark.parametrize(("rule", "page", "passage"), LONGER_THAN_THE_PAGE, ids=[c[0] for c in LONGER_THAN_THE_PAGE])
def test_a_quote_longer_than_the_page_is_not_on_it(rule: str, page: str, passage: str) -> None:
    match = find_passage(passage, page)
    assert not match.found


def test_the_closest_passage_to_a_quote_longer_than_the_page_is_the_whole_page() -> None:
    index = PageIndex("Revenue rose 40% in 2025")
    match = index.find("Revenue rose by 40 % in 2025")
    assert not match.found
    closest = index.closest(match.part or "")
    assert isinstance(closest, Closest) and (closest.start, closest.end) == (0, len(index.text))


# --------------------------------------------------------------------------------------------------
# PageIndex and page_is_normalised give the same answers as find_passage
# --------------------------------------------------------------------------------------------------

ALL_PASSAGES = [c[1] for c in EXACT] + [c[1] for c in ELIDED] + [c[1] for c in PARAPHRASES] + ABSENT + EMPTY


@pytest.mark.parametrize("passage", ALL_PASSAGES)
def test_page_index_and_prenormalised_page_agree(passage: str) -> None:
    expected = find_passage(passage, PAGE)
    index = PageIndex(PAGE)
    assert index.find(passage) == expected
    assert find_passage(passage, index.text, page_is_normalised=True) == expected


def test_match_is_immutable() -> None:
    match = find_passage("Guido van Rossum", PAGE)
    with pytest.raises(AttributeError):
        match.found = False  # type: ignore[misc]


NUMBER_PAGE = (
    "Halvorsen reported revenue of $4.1bn for the year, up 12% on 2025, and 1,234 new employees "
    "joined the company across its three plants in Norway and Germany."
)


@pytest.mark.parametrize(
    ("quote", "found", "method"),
    [
        ("reported revenue of $4.1bn for the year, up 12% on 2025", True, "exact"),
        ("Halvorsen reported revenues of $4.1bn for the year, up 12 percent on 2025", False, "none"),
        ("Halvorsen reported revenue of $4.2bn for the year, up 12% on 2025", False, "none"),
        ("and 1,284 new employees joined the company across its three plants", False, "none"),
        ("up 12% on 2024, and 1,234 new employees joined the company", False, "none"),
        ("Halvorsen reported revenue of $4.1bn for the year, up 12% on 2025, and 1,234 new employees", True, "exact"),
    ],
)
def test_a_number_in_a_quote_must_be_on_the_page_as_quoted(quote: str, found: bool, method: str) -> None:
    match = find_passage(quote, NUMBER_PAGE)
    assert (match.found, match.method) == (found, method)


# --------------------------------------------------------------------------------------------------
# terms()
# --------------------------------------------------------------------------------------------------

def test_terms_are_the_distinct_content_words_and_numbers_without_thousands_separators() -> None:
    text = "The tower had 2,102,650 visitors; the TOWER had 2102650 visitors and 4.2 m, the end. ab"
    assert terms(text) == {"tower", "2102650", "visitors", "4.2", "end"}
    assert terms("the and with") == set() and terms("") == set()
    assert terms("1,000 and 1000 and 1,0,0,0") == {"1000"}
