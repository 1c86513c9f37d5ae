"""Tests of gate.text.escape: untrusted text must render as the same characters and nothing more."""

from __future__ import annotations

import re

import pytest

from gate.text.escape import md, md_code, md_link, md_linked, md_url, short_url

ZWSP = "\u200b"
# Characters that must never leave md() without a backslash in front of them.
METACHARACTERS = "\\`*_{}[]()#+-.!|~="


def _unescaped_metachar(escaped: str) -> str | None:
    """The first markdown metacharacter in ``escaped`` that is not backslash-escaped, if any."""
    i = 0
    while i < len(escaped):
        ch = escaped[i]
        if ch == "\\":
            i += 2
            continue
        entity = re.match(r"&(?:amp|lt|gt|#36);", escaped[i:])
        if entity:
            i += entity.end()
            continue
        if ch in METACHARACTERS:
            return ch
        i += 1
    return None


def _visible(escaped: str) -> str:
    """What a reader sees: backslash escapes and our entities undone, zero-width spaces dropped."""
    text = re.sub(r"\\(.)", r"\1", escaped)
    for entity, ch in (("&lt;", "<"), ("&gt;", ">"), ("&#36;", "$"), ("&amp;", "&")):
        text = text.replace(entity, ch)
    return text.replace(ZWSP, "")


HOSTILE = [
    "@octocat please look",
    "<script>alert(1)</script>",
    "before <!-- hidden --> after",
    "</details> breaks out of the fold",
    "![img](http://x/y.png)",
    "[link](javascript:alert(1))",
    "cell | another cell | third",
    "line one\nline two\r\n# heading\n- item\n> quote\n    code",
    "`code` and ``double`` backticks",
    "*em* _em_ **strong** __strong__ ~~gone~~",
    "see https://evil.example/x or www.evil.example or me@evil.example",
    "fixes #123 and octo/repo#7 and GH-9",
    "ctrl\x00\x07\x1b[31mred\x7f\x85\x9b and \u202eevil\u202c",
    "$\\color{red}{FAKE}$",
    "&lt;b&gt; already an entity",
    "1. numbered\n+ plus\n=== setext",
    "trailing backslash \\",
    "[^1] and - [ ] task",
]


@pytest.mark.parametrize("text", HOSTILE)
def test_md_output_is_inert_and_keeps_the_visible_text(text: str) -> None:
    escaped = md(text)
    assert "\n" not in escaped and "\r" not in escaped
    assert "<" not in escaped and ">" not in escaped
    assert "$" not in escaped
    assert _unescaped_metachar(escaped) is None
    assert not re.search(r"@(?!\u200b)", escaped)
    assert not re.search(r"(?<!\u200b)://", escaped)
    assert not re.search(r"&(?!(?:amp|lt|gt|#36);)", escaped)
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", escaped)
    # The reader sees the original text, with whitespace collapsed and controls removed.
    expected = re.sub(r"[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\u202a-\u202e]", "", text)
    assert _visible(escaped) == " ".join(expected.split())


def test_mention_does_not_ping() -> None:
    assert md("@octocat and @org/team") == f"@{ZWSP}octocat and @{ZWSP}org/team"


def test_html_cannot_open_or_close_tags_or_comments() -> None:
    assert md("<script>alert(1)</script>") == "&lt;script&gt;alert\\(1\\)&lt;/script&gt;"
    assert md("<!-- x -->") == "&lt;\\!\\-\\- x \\-\\-&gt;"
    assert md("</details>") == "&lt;/details&gt;"
    assert md("AT&T &amp;") == "AT&amp;T &amp;amp;"


def test_images_and_links_stay_text() -> None:
    assert md("![img](http://x/y.png)") == f"\\!\\[img\\]\\(http{ZWSP}://x/y\\.png\\)"
    assert md("[link](javascript:alert(1))") == "\\[link\\]\\(javascript:alert\\(1\\)\\)"


def test_pipes_are_escaped_for_table_cells() -> None:
    assert md("a|b") == "a\\|b"


def test_newlines_collapse_to_one_line() -> None:
    assert md("  one\n\ntwo\r\nthree\tfour\u2028five  ") == "one two three four five"


def test_backticks_and_emphasis_are_escaped() -> None:
    assert md("`x`") == "\\`x\\`"
    assert md("*a* _b_ ~c~") == "\\*a\\* \\_b\\_ \\~c\\~"


def test_bare_urls_do_not_autolink() -> None:
    assert md("https://evil.example/path") == f"https{ZWSP}://evil\\.example/path"
    assert md("WWW.evil.example") == f"WWW{ZWSP}\\.evil\\.example"
    assert md("a@b.example") == f"a@{ZWSP}b\\.example"


def test_issue_references_do_not_cross_reference() -> None:
    assert md("#12 o/r#3 gh-4") == f"\\#{ZWSP}12 o/r\\#{ZWSP}3 gh{ZWSP}\\-4"
    assert md("# heading") == "\\# heading"


def test_math_is_not_rendered() -> None:
    assert md("$x$") == "&#36;x&#36;"


def test_control_and_bidi_characters_are_removed() -> None:
    assert md("a\x00b\x1b[0mc\x7fd\u202ee\u2066f") == "ab\\[0mcdef"


def test_long_text_is_truncated_with_an_ellipsis() -> None:
    text = "word " * 100
    short = md(text, max_len=20)
    assert short.endswith("…")
    assert len(_visible(short)) <= 20
    assert md("exactly10!", max_len=10) == "exactly10\\!"
    assert md("escapes are never cut: ****", max_len=26) == "escapes are never cut: \\*\\*…"
    with pytest.raises(ValueError):
        md("abc", max_len=0)


def test_md_code_fences_and_padding() -> None:
    assert md_code("plain") == "`plain`"
    assert md_code("a`b") == "``a`b``"
    assert md_code("x``y`") == "``` x``y` ```"
    assert md_code("`starts") == "`` `starts ``"
    assert md_code(" both ") == "`  both  `"
    assert md_code("") == ""
    assert md_code("<b>@u https://x #1") == "`<b>@u https://x #1`"


def test_md_code_is_one_line_and_table_safe() -> None:
    assert md_code("a|b\nc\x00d") == "`a\\|b cd`"
    assert md_code("a|b", in_table=False) == "`a|b`"
    assert md_code("x" * 50, max_len=10) == "`" + "x" * 9 + "…`"


def test_md_url_is_code_not_a_link() -> None:
    assert md_url("  https://example.com/a?b=c|d  ") == "`https://example.com/a?b=c\\|d`"
    assert md_url("javascript:alert(`1`)") == "``javascript:alert(`1`)``"


# --------------------------------------------------------------------------------------------
# Rendering with GitHub's own markdown library, when it is installed (cmarkgfm is not a declared
# test dependency; these tests are skipped without it).


def _render(markdown: str) -> str:
    cmarkgfm = pytest.importorskip("cmarkgfm")
    options = pytest.importorskip("cmarkgfm.cmark").Options
    # UNSAFE turns off cmark's own HTML filter, so any HTML that got through would show.
    html: str = cmarkgfm.github_flavored_markdown_to_html(markdown, options=options.CMARK_OPT_UNSAFE)
    return html


@pytest.mark.parametrize("text", HOSTILE)
def test_rendered_md_has_no_markup(text: str) -> None:
    html = _render(md(text))
    inner = html.removeprefix("<p>").removesuffix("</p>\n")
    assert html.startswith("<p>") and "<" not in inner
    assert "href" not in html


@pytest.mark.parametrize("text", HOSTILE)
def test_rendered_table_cell_stays_one_cell(text: str) -> None:
    table = f"| a | b |\n|---|---|\n| {md(text)} | {md_code(text)} |\n"
    html = _render(table)
    assert html.count("<td>") == 2 and html.count("<tr>") == 2
    assert "href" not in html and "<img" not in html


# -- links: a web URL a reader follows, shortened in the text, whole in the target ---------------


def test_short_url_drops_the_scheme_and_keeps_the_host_and_the_end_of_the_path() -> None:
    assert short_url("https://www.who.int/publications/i/item/9789240114319") == \
        "www.who.int/publications/i/item/9789240114319"
    long = "https://www.ecb.europa.eu/press/pr/date/2025/html/ecb.mp250605~3b5f67d007.en.html"
    short = short_url(long, 48)
    assert len(short) == 48 and short.startswith("www.ecb.europa.eu/press") and short.endswith("3b5f67d007.en.html")
    assert "…" in short
    assert len(short_url("https://" + "a" * 80 + ".example/x", 40)) == 40


def test_md_link_shows_the_url_shortened_and_links_to_all_of_it() -> None:
    url = "https://example.org/a_(b)?q=1&amp;r=$x$#f"
    link = md_link(url)
    assert link == ("[example\\.org/a\\_\\(b\\)?q\\=1&amp;amp;r\\=&#36;x&#36;\\#f]"
                    "(https://example.org/a\\_\\(b\\)?q=1&amp;amp;r=\\$x\\$\\#f)")
    html = _render(link)
    assert html.count("<a ") == 1 and 'href="https://example.org/a_(b)?q=1&amp;amp;r=$x$#f"' in html


@pytest.mark.parametrize("url", ["javascript:alert(1)", "data:text/html,<b>x</b>", "ftp://example.org/f",
                                 "https://exa mple.org/", "https://" + "x" * 3000 + ".org/"])
def test_md_link_makes_no_link_of_anything_but_a_web_url(url: str) -> None:
    out = md_link(url)
    assert out.startswith("`") and "href" not in _render(out)


@pytest.mark.parametrize("text", HOSTILE)
def test_md_linked_text_renders_no_markup_but_links_to_its_own_urls(text: str) -> None:
    html = _render(md_linked(text))
    assert "<img" not in html and "<script" not in html and "<details" not in html.lower()
    hrefs = re.findall(r'<a href="([^"]*)"', html)
    assert all(h.startswith(("http://", "https://")) for h in hrefs)
    assert len(hrefs) == text.count("http")  # each URL of the text is one link, and nothing else is


def test_md_linked_leaves_the_sentence_its_punctuation_and_a_cut_url_unlinked() -> None:
    text = "oldest: https://example.org/a/b.html, 2025-06-05 (see https://en.wikipedia.org/wiki/X_(y))."
    out = md_linked(text)
    assert "](https://example.org/a/b.html), 2025" in out
    assert "](https://en.wikipedia.org/wiki/X\\_\\(y\\))\\)\\." in out
    cut = md_linked("see https://example.org/" + "p" * 100, max_len=40)
    assert "](" not in cut and cut.endswith("…")
