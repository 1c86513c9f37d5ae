"""The one way untrusted text enters sourcegate's GitHub-flavoured markdown.

Untrusted text is anything that came from the web or a model: answers, claims, page titles, URLs,
quotes, case ids and messages that repeat them. It must render as the same visible characters and
nothing more: no markup, no links, no pings, no broken table.

Five functions, for five places in a report, and two that build on them:

* :func:`md` for running text and table cells. The result is one line.
* :func:`md_code` for inline code (identifiers, quotes shown verbatim). The result is one line.
* :func:`md_url` for a URL, shown as inline code: readable and copyable, never a link.
* :func:`plain` for a single line of plain text (JUnit XML, terminal output): no markdown escapes.
* :func:`html_text` for HTML (the ``--html`` report): text content and quoted attribute values.
* :func:`md_link` for a web URL a reader follows (the PR comment's failures): a link whose text is
  the URL shortened (:func:`short_url`, so no line is wider than GitHub's column) and whose target is
  the whole URL; :func:`md_linked` is :func:`md` with each web URL in the text made such a link.

Every markdown and plain one of them also keeps untrusted text from acting as a GitHub Actions workflow command when
the output reaches a log (``--junit -``, ``--markdown -`` in a ``run:`` step): there are no line
breaks to start a new line with, a leading ``::`` (the runner trims spaces before looking) gets a
zero-width space between its colons, and so does ``##[`` anywhere (the legacy form, which the runner
still reads in the middle of a line) between ``##`` and ``[``.

Apply each exactly once, to raw text: escaping twice shows the backslashes. Do not put the output
of :func:`md` between backticks; backslash escapes are not read inside code, use :func:`md_code`.

What :func:`md` does, and why:

* Control characters (C0, DEL, C1) and bidirectional overrides/isolates are removed: they are
  invisible, can hide or reorder text ("Trojan source"), and GitHub would keep them.
* All whitespace, newlines included, is collapsed to single spaces and the ends are trimmed:
  a newline would end a table row or paragraph and let the next line start a heading, list,
  quote or code block.
* With ``max_len``, the text is cut to ``max_len`` visible characters *before* escaping, ending in
  ``…``, so an escape sequence or entity is never cut in half.
* ``&``, ``<`` and ``>`` become ``&amp;`` ``&lt;`` ``&gt;``: no HTML tag or comment can open or
  close (``</details>`` or ``<!--`` in a claim would otherwise swallow the rest of the comment).
  ``$`` becomes ``&#36;`` because GitHub renders ``$…$`` as math, which can draw arbitrary
  coloured text; an entity is read after the math delimiters are looked for.
* Markdown punctuation ``\\ ` * _ { } [ ] ( ) # + - . ! | ~ =`` gets a backslash: no emphasis,
  code, link, image (``![``), heading, list, strike-through, setext underline or table cell
  break (``\\|`` is GitHub's documented way to keep a pipe inside a cell).
* A zero-width space (U+200B) is inserted where GitHub would otherwise act on plain text:
  after ``@`` (no mention pings a user or team, no e-mail autolink), before ``://`` and after
  ``www`` (no bare-URL autolink), and after ``#`` or ``GH-`` before a digit (no issue reference,
  which would add a cross-reference event to that issue, possibly in another repository).
  The visible text is unchanged. Backslash escapes alone are not relied on for autolinks because
  GitHub's autolinker works on the text after escapes are read.

``md_code`` picks a backtick fence longer than any backtick run in the text, pads with spaces when
the text starts or ends with a backtick or space (CommonMark strips one such pair), removes control
characters, turns line breaks into spaces and, by default, escapes ``|`` as ``\\|`` (GitHub removes
that backslash inside table cells, even in code; without it a pipe would split the cell and the rest
would be read as markdown). Inside code nothing is a link, mention or tag, so nothing else is needed.
Outside a table pass ``in_table=False``, or the backslash shows.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["SHORT_URL", "html_text", "md", "md_code", "md_link", "md_linked", "md_url", "plain", "short_url",
           "web_urls"]

ELLIPSIS = "…"
_ZWSP = "\u200b"

# C0 and C1 controls and DEL, minus the whitespace that is turned into spaces instead; bidi
# embeddings, overrides, isolates and marks; and the BOM. None of them is visible.
_INVISIBLE_RE = re.compile(
    "[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f"  # controls
    "\u200e\u200f\u202a-\u202e\u2066-\u2069"  # bidi marks, embeddings, overrides, isolates
    "\ufeff]"  # byte order mark
)
# \s covers \t \n \v \f \r, \x85, U+2028/U+2029, no-break and other Unicode spaces.
_SPACE_RE = re.compile(r"\s+")
_LINE_BREAK_RE = re.compile(r"[\t\n\v\f\r\x1c-\x1f\x85\u2028\u2029]")

_BACKSLASHED = frozenset("\\`*_{}[]()#+-.!|~=")
_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "$": "&#36;"}
# The escapes are applied as one replace per character (C speed; ``str.translate`` with a table of
# strings looks each character up in a dict). Backslash first, so the backslashes added after it are
# not escaped again; ``&`` first of the entities, so theirs are not. What is added is never escaped.
_REPLACEMENTS = (("\\", "\\\\"), *((ch, "\\" + ch) for ch in sorted(_BACKSLASHED - {"\\"})),
                 *_ENTITIES.items())

# Where GitHub would turn plain text into a link, ping or reference. Each match gets a zero-width
# space at the position that breaks the pattern (see the module docstring).
# A pattern runs only when the text holds the character it needs (most text has no ``@`` or ``#``).
_ZWSP_AFTER_WWW = re.compile(r"(?i)(?<=www)(?=\.)")
_ZWSP_AFTER_HASH = re.compile(r"(?<=#)(?=\d)")
_ZWSP_IN_GH_REF = re.compile(r"(?i)(?<=\bGH)(?=-\d)")
_ZWSP_PATTERNS = ((".", _ZWSP_AFTER_WWW), ("#", _ZWSP_AFTER_HASH), ("-", _ZWSP_IN_GH_REF))
_BACKTICKS = re.compile("`+")


_LEADING_COMMAND = re.compile(r"^(\s*:)(?=:)")
_LEGACY_COMMAND = re.compile(r"##(?=\[)")


# Every character the patterns above remove or turn into a space is one ``str.isprintable`` refuses,
# but the plain space: printable text (most text) skips them, checked in C at a fraction of their cost.


def _clean(text: str) -> str:
    return text if text.isprintable() else _INVISIBLE_RE.sub("", text)


def _one_line(text: str) -> str:
    return text if text.isprintable() else _LINE_BREAK_RE.sub(" ", _INVISIBLE_RE.sub("", text))


def _collapsed(text: str) -> str:
    if text.isprintable():
        return (_SPACE_RE.sub(" ", text) if "  " in text else text).strip()
    return _SPACE_RE.sub(" ", _INVISIBLE_RE.sub("", text)).strip()


def _stripped(text: str) -> str:
    return _clean(text).strip()


def _cleaned(text: str, max_len: int | None, clean: Callable[[str], str]) -> str:
    """``clean(text)``, or, when only ``max_len`` characters will be shown, ``clean`` of a prefix long
    enough to give the same cut: a 100 MB string costs what its first few hundred characters cost.

    Each ``clean`` only removes characters or turns runs of them into one space, so the cleaned
    prefix is the start of the cleaned whole; once it is longer than ``max_len``, the cut is the same.
    """
    if max_len is None:
        return clean(text)
    window = 2 * max_len + 64
    while window < len(text):
        out = clean(text[:window])
        if len(out) > max_len:
            return out
        window *= 4
    return clean(text)


def _no_command(line: str) -> str:
    """``line`` with a zero-width space where the runner would read a workflow command."""
    line = _LEADING_COMMAND.sub(lambda m: m.group(1) + _ZWSP, line)
    return _LEGACY_COMMAND.sub("##" + _ZWSP, line)


def plain(text: str, *, max_len: int | None = None) -> str:
    """Untrusted ``text`` as a single line of plain text: control and bidirectional characters
    removed, each line break a space, workflow commands broken (see the module docstring). Other
    spaces are kept as they are; nothing else is escaped (an XML or JSON writer does its own)."""
    return _no_command(_truncate(_cleaned(text, max_len, _one_line), max_len))


def _truncate(text: str, max_len: int | None) -> str:
    if max_len is None or len(text) <= max_len:
        return text
    if max_len < 1:
        raise ValueError(f"max_len must be at least 1, got {max_len}")
    return text[: max_len - 1].rstrip() + ELLIPSIS


def md(text: str, *, max_len: int | None = None) -> str:
    """Escape untrusted ``text`` as one line of inert GitHub markdown (see the module docstring).

    ``max_len`` caps the visible length, counting the trailing ``…`` when the text is cut.
    """
    return _inert(_no_command(_truncate(_cleaned(text, max_len, _collapsed), max_len)))


def _inert(plain: str, in_link: bool = False) -> str:
    """Clean one-line text made inert: zero-width spaces where GitHub would link or ping, then the
    backslash escapes and entities (the second half of :func:`md`). A link's text (``in_link``) is never
    autolinked, so ``www.`` keeps no zero-width space there (a line could break at it)."""
    # After ``@`` and before ``://`` (which cannot overlap itself), then the patterns in order.
    plain = plain.replace("@", "@" + _ZWSP).replace("://", _ZWSP + "://")
    for needed, pattern in _ZWSP_PATTERNS:
        if in_link and pattern is _ZWSP_AFTER_WWW:
            continue
        if needed in plain:
            plain = pattern.sub(_ZWSP, plain)  # each match is empty: the space is all that is inserted
    for ch, escaped in _REPLACEMENTS:
        if ch in plain:
            plain = plain.replace(ch, escaped)
    return plain


def md_code(text: str, *, max_len: int | None = None, in_table: bool = True) -> str:
    """Show untrusted ``text`` verbatim as one inline code span (empty text gives ``""``).

    ``in_table`` (default True) escapes ``|`` so the span cannot break a table cell.
    """
    plain = _no_command(_truncate(_cleaned(text, max_len, _one_line), max_len))
    if not plain:
        return ""
    if in_table:
        plain = plain.replace("|", "\\|")
    longest = max((len(run) for run in _BACKTICKS.findall(plain)), default=0) if "`" in plain else 0
    fence = "`" * (longest + 1)
    if plain[0] in "` " or plain[-1] in "` ":
        plain = f" {plain} "
    return f"{fence}{plain}{fence}"


def md_url(url: str, *, max_len: int | None = None, in_table: bool = True) -> str:
    """Show an untrusted URL as inline code: readable and copyable, never a clickable link.

    Leading and trailing whitespace is dropped; see :func:`md_code` for the rest.
    """
    return md_code(_cleaned(url, max_len, _stripped), max_len=max_len, in_table=in_table)


# What HTML's parser reports as an error, and a reader could not see anyway: besides the invisible
# characters above, lone surrogates (no UTF-8 file can hold one) and noncharacters become U+FFFD;
# the line breaks HTML does not know are newlines.
_HTML_REPLACED = re.compile("[\ud800-\udfff\ufdd0-\ufdef\ufffe\uffff]")
_HTML_BREAKS = re.compile("[\v\x85\u2028\u2029]|\r\n?")
_HTML_ENTITIES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"), ("'", "&#39;"))


def _html_clean(text: str) -> str:
    if text.isprintable():
        return text
    text = _HTML_BREAKS.sub("\n", _INVISIBLE_RE.sub("", text))
    return _HTML_REPLACED.sub("\ufffd", text)


def html_text(text: str, *, max_len: int | None = None) -> str:
    """Untrusted ``text`` as inert HTML: the same visible characters, no tag, entity or attribute.

    Safe as an element's text and as the value of an attribute in double or single quotes; never
    inside ``<script>``, ``<style>``, a comment or an unquoted attribute, and never as a URL that
    a browser follows (the caller checks the scheme first). Line breaks and spaces are kept (the
    stylesheet decides how they show). Control and bidirectional characters are removed as by
    :func:`md`; lone surrogates and noncharacters become U+FFFD. ``max_len`` cuts the visible text
    before escaping, ending in ``…``, so an entity is never cut in half.
    """
    out = _truncate(_cleaned(text, max_len, _html_clean), max_len)
    for ch, entity in _HTML_ENTITIES:
        if ch in out:
            out = out.replace(ch, entity)
    return out


SHORT_URL = 56
"""Characters of a URL shown in a link's text (:func:`short_url`): one fits a line of GitHub's column
beside a check id, in the PR comment's monospace-free running text."""
MAX_LINK = 2048
"""A URL longer than this is not made a link (:func:`md_link`): it is shown cut, as code."""

_WEB_URL = re.compile(r"(?i)https?://[^\s/?#]+[^\s]*")
# A URL inside running text, as GitHub's autolinker reads one: no space, quote or angle bracket, and
# not the ellipsis a cut text ends with; trailing punctuation and unbalanced closing brackets are the
# sentence's, not the URL's (:func:`_url_end`).
_URL_IN_TEXT = re.compile(r"(?i)https?://[^\s<>\"'`…]+")
_TRAILING = ".,:;!?*_~"
# In a link's destination a backslash keeps each of these literal: no bracket or parenthesis ends
# the link, no ``$`` starts math, and no ``##[`` or pipe acts in a log line or a table. ``&`` is written
# ``&amp;``: cmark decodes entities there before backslash escapes, so ``\&amp;`` would still be ``&``.
# The others need nothing (the URL has no space or control character by then).
_DEST_ESCAPED = frozenset("\\()<>[]|$#`*_{}!\"'")


def web_urls(text: str) -> list[tuple[int, int]]:
    """Where ``text`` holds a web URL, as GitHub's autolinker reads running text: (start, end) each."""
    return [(m.start(), m.start() + _url_end(m.group())) for m in _URL_IN_TEXT.finditer(text)]


def _url_end(url: str) -> int:
    """The length of ``url`` once the sentence's punctuation after it is dropped."""
    end = len(url)
    while end:
        ch = url[end - 1]
        if ch in _TRAILING or (ch in ")]" and url.count(ch, 0, end) > url.count("(" if ch == ")" else "[", 0, end)):
            end -= 1
            continue
        return end
    return end


def short_url(url: str, width: int = SHORT_URL) -> str:
    """``url`` as a reader recognises it in at most ``width`` characters: no scheme, no trailing slash,
    and when still too long, its host, the start of its path, ``…``, and the end of its path (the part
    that tells two pages of one site apart). Plain text: escape it where it is shown."""
    short = re.sub(r"(?i)^https?://", "", url.strip()).rstrip("/") or url.strip()
    if len(short) <= width:
        return short
    host, slash, rest = short.partition("/")
    if len(host) + 12 > width:  # a host too long for any of its path: the host cut, and the end
        return short[: width // 2 - 1] + ELLIPSIS + short[-(width - width // 2):]
    room = width - len(host) - len(slash) - 1
    head = room // 3
    return host + slash + rest[:head] + ELLIPSIS + rest[len(rest) - (room - head):]


def _dest(url: str) -> str:
    return "".join("\\" + ch if ch in _DEST_ESCAPED else "&amp;" if ch == "&" else ch for ch in url)


def md_link(url: str, *, width: int = SHORT_URL) -> str:
    """An untrusted web URL as a markdown link: its text the URL shortened to ``width`` characters
    (:func:`short_url`, escaped as :func:`md` escapes), its target the whole URL, every character
    kept literal. Only ``http`` and ``https`` URLs (of at most :data:`MAX_LINK` characters) are
    links: anything else is shown as code (:func:`md_url`), cut to ``width``. Safe in a table cell.

    The text is the target's own start and end, so a link cannot show one site and lead to another.
    """
    clean = _cleaned(url, MAX_LINK + 1, _stripped)
    if len(clean) > MAX_LINK or not _WEB_URL.fullmatch(clean) or _url_end(clean) != len(clean):
        return md_url(clean, max_len=width)
    return f"[{_inert(short_url(clean, width), in_link=True)}]({_dest(clean)})"


def md_linked(text: str, *, max_len: int | None = None, width: int = SHORT_URL) -> str:
    """Untrusted ``text`` as :func:`md` makes it, with each web URL in it a link (:func:`md_link`):
    ``cited [example.org/a…/page](https://example.org/a/b/c/page) but ...``.

    ``max_len`` cuts the visible text first, counting each URL whole; a URL the cut runs into is
    shown as text, not linked to a URL it does not have.
    """
    whole = _cleaned(text, max_len, _collapsed)
    line = _truncate(whole, max_len)
    cut = line != whole
    line = _no_command(line)
    out: list[str] = []
    last = 0
    for start, end in web_urls(line):
        if cut and end >= len(line) - 1:
            break
        out += [_inert(line[last:start]), md_link(line[start:end], width=width)]
        last = end
    out.append(_inert(line[last:]))
    return "".join(out)
