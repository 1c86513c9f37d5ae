"""Tests of gate.text.escape.html_text: untrusted text in the HTML report is the same characters, inert.

Each hostile string is put where the HTML reporter puts untrusted text (an element's text, a quoted
attribute) and read back by a real HTML parser (the standard library's, which follows the HTML
tokenizer's rules for these states): one text node or one attribute value, equal to the text with
its invisible characters removed, and no element, comment or entity of its own.
"""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser

import pytest

from gate.text.escape import html_text

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    "before <!-- hidden --> after",
    "</details></div></main> breaks out",
    "\" onmouseover=\"alert(1)",
    "' onfocus='alert(1)' autofocus '",
    "a\"b'c`d",
    "&lt;b&gt; already an entity &amp; &#x3c; &#60; &nbsp",
    "<![CDATA[ x ]]> <?php ?> <!DOCTYPE html>",
    "</textarea></style></script><svg onload=alert(1)>",
    "javascript:alert(1)",
    "ctrl\x00\x07\x1b[31mred\x7f\x85\x9b and \u202eevil\u202c",
    "line one\nline two\r\nthree\rfour\u2028five\u2029six\vseven",
    "lone \ud800 surrogate and \udfff another",
    "nonchar \ufffe \uffff \ufdd0",
    "\ufeffbom at start",
    "<<<>>> &&& \"\"\" '''",
    "emoji 😀 and CJK 引用 and RTL שלום",
]


def _expected(text: str) -> str:
    """What a reader must see: invisible characters gone, odd line breaks as newlines, lone
    surrogates and noncharacters as U+FFFD."""
    text = re.sub(r"\r\n?|[\v\x85\u2028\u2029]", "\n", text)
    text = re.sub("[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]", "", text)
    return re.sub("[\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff]", "\ufffd", text)


class _Reader(HTMLParser):
    """Everything the parser saw: tags with their attributes, text, comments and declarations."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.ends: list[str] = []
        self.text: list[str] = []
        self.other: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    def handle_endtag(self, tag: str) -> None:
        self.ends.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)

    def handle_comment(self, data: str) -> None:
        self.other.append("comment")

    def handle_decl(self, decl: str) -> None:
        self.other.append("decl")

    def handle_pi(self, data: str) -> None:
        self.other.append("pi")

    def unknown_decl(self, data: str) -> None:
        self.other.append("unknown")


def _read(doc: str) -> _Reader:
    reader = _Reader()
    reader.feed(doc)
    reader.close()
    return reader


@pytest.mark.parametrize("text", HOSTILE)
def test_as_text_it_is_one_text_node_of_the_same_characters(text: str) -> None:
    escaped = html_text(text)
    assert not re.search(r"[<>\"']", escaped)
    assert not re.search(r"&(?!(?:amp|lt|gt|quot|#39);)", escaped)
    seen = _read(f"<p>{escaped}</p>")
    assert seen.tags == [("p", [])] and seen.ends == ["p"] and not seen.other
    assert "".join(seen.text) == _expected(text)


@pytest.mark.parametrize("text", HOSTILE)
@pytest.mark.parametrize("quote", ['"', "'"])
def test_in_a_quoted_attribute_it_is_that_attribute_s_value(text: str, quote: str) -> None:
    seen = _read(f"<a title={quote}{html_text(text)}{quote} class=x>.</a>")
    assert seen.tags == [("a", [("title", _expected(text)), ("class", "x")])]


@pytest.mark.parametrize("text", HOSTILE)
def test_unescaping_gives_the_visible_text_back(text: str) -> None:
    assert html.unescape(html_text(text)) == _expected(text)


def test_the_result_encodes_as_utf8() -> None:
    for text in HOSTILE:
        html_text(text).encode("utf-8")  # no lone surrogate left to refuse


def test_the_five_characters_become_entities() -> None:
    assert html_text("<a href=\"x\">Tom's & Jerry's</a>") == (
        "&lt;a href=&quot;x&quot;&gt;Tom&#39;s &amp; Jerry&#39;s&lt;/a&gt;")


def test_spaces_and_line_breaks_are_kept() -> None:
    assert html_text("  two  spaces\n\nand lines\t") == "  two  spaces\n\nand lines\t"


def test_long_text_is_cut_before_escaping() -> None:
    assert html_text("<" * 10, max_len=4) == "&lt;&lt;&lt;…"
    assert html_text("a&b", max_len=3) == "a&amp;b"
    assert html_text("x" * 100_000_000, max_len=5) == "xxxx…"
