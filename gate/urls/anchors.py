"""The links of a page's text: :func:`extract_anchors`.

A recorded page keeps the text the model read: often markdown, sometimes HTML, or markdown with
HTML in it. Its links are the page's anchors, in the order they stand:

- markdown: ``[text](href "title")``, ``[text][label]`` with its ``[label]: href`` definition, and
  ``<https://...>`` autolinks; an image (``![alt](src)``) is not a link, and a ``[text][x]`` whose
  ``x`` is defined nowhere is plain text;
- HTML: ``<a href="...">text</a>``, its text without tags and entities decoded, the href's
  entities decoded (``&amp;`` is ``&``).

Fenced code blocks, HTML comments and ``script``/``style``/``template`` elements are skipped (what
they hold is an example, a comment or a program, not a link a reader sees); relative links are
resolved against the page's final URL, as a browser would. The snapshot's extraction layer keeps
them (``snapshot build``), and the checks read them: a link on a page the agent read is a URL the
agent saw. Pure; page text is untrusted, so a link that cannot be parsed is kept as written.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from gate.urls.weburl import link_target

__all__ = ["Anchor", "extract_anchors"]


@dataclass(frozen=True)
class Anchor:
    """One link found in a page's text: where it points (resolved) and the words it stands on."""

    href: str
    text: str


# Link text may hold one level of nested brackets, e.g. a linked image "[![alt](img)](url)".
_TEXT = r"\[(?P<text>(?:[^\[\]\n]|\[[^\[\]\n]*\])*)\]"
# A destination: <...>, or a run without spaces that may hold balanced parentheses (one level).
_DEST = r"(?:<(?P<angled>[^<>\n]*)>|(?P<plain>(?:[^\s()<>]|\([^\s()]*\))+))"
_TITLE = r"""(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?"""
# An HTML anchor: its attributes (the tag stops at the next "<" too, so a page of unclosed "<a"
# costs one pass, not one pass each), then its content up to the closing tag, bounded and never
# across another anchor.
_HTML_A = r"<a\b(?P<attrs>[^<>]*)>(?P<content>(?:(?!</?a\b)[\s\S]){0,2000}?)</a\s*>"
_HREF = re.compile(r"""(?:^|\s)href\s*=\s*(?:"(?P<dq>[^"]*)"|'(?P<sq>[^']*)'|(?P<bare>[^\s"'>]+))""",
                   re.IGNORECASE)

_DEFINITION = re.compile(
    r"^[ \t]{0,3}\[(?P<label>[^\]\n]+)\]:[ \t]*(?:<(?P<angled>[^<>\n]*)>|(?P<plain>\S+))", re.MULTILINE)
_TOKEN = re.compile(
    r"(?P<image>!\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\](?:\([^)\n]*\)|\[[^\]\n]*\])?)"
    r"|(?P<definition>^[ \t]{0,3}\[[^\]\n]+\]:[^\n]*)"
    r"|" + _TEXT + r"(?:\(\s*" + _DEST + _TITLE + r"\s*\)|\[(?P<ref>[^\[\]\n]*)\])"
    r"|<(?P<auto>https?://[^<>\s]+)>"
    r"|" + _HTML_A,
    re.MULTILINE | re.IGNORECASE,
)
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_HIDDEN = re.compile(r"<!--[\s\S]*?(?:-->|$)|<(script|style|template)\b[\s\S]*?(?:</\1\s*>|$)", re.IGNORECASE)
_INNER_IMAGE = re.compile(r"!\[([^\[\]\n]*)\]\([^)\n]*\)")
_TAG = re.compile(r"<[^>]*>")


def _label(text: str) -> str:
    return " ".join(text.split()).lower()


def _blank(match: re.Match[str]) -> str:
    """What a skipped stretch becomes: its line breaks only, so line-anchored patterns still line up."""
    return "\n" * match.group(0).count("\n")


def _visible(text: str) -> str:
    """``text`` without fenced code blocks, HTML comments and script, style or template elements."""
    lines = text.split("\n")
    fence = ""
    for i, line in enumerate(lines):
        if fence:
            if line.strip().startswith(fence) and line.strip().strip(fence[0]) == "":
                fence = ""
            lines[i] = ""
            continue
        m = _FENCE.match(line)
        if m:
            fence = m.group(1)
            lines[i] = ""
    return _HIDDEN.sub(_blank, "\n".join(lines))


def extract_anchors(text: str, base: str) -> tuple[Anchor, ...]:
    """The links of a page's text (markdown and HTML), in order, with hrefs resolved against ``base``."""
    text = _visible(text)
    definitions: dict[str, str] = {}
    for m in _DEFINITION.finditer(text):
        href = m.group("angled") if m.group("angled") is not None else m.group("plain")
        definitions.setdefault(_label(m.group("label")), href)  # CommonMark: the first one wins
    anchors = []
    for m in _TOKEN.finditer(text):
        if m.group("image") is not None or m.group("definition") is not None:
            continue
        if m.group("content") is not None:
            attribute = _HREF.search(m.group("attrs"))
            if attribute is None:
                continue  # <a name="top">: a target, not a link
            href = html.unescape(next(g for g in attribute.group("dq", "sq", "bare") if g is not None))
            label = html.unescape(_TAG.sub(" ", m.group("content")))
            if not href.strip():
                continue  # <a href=""> points at the page itself
        elif m.group("auto") is not None:
            href, label = m.group("auto"), m.group("auto")
        else:
            label = m.group("text")
            if m.group("ref") is not None:
                found = definitions.get(_label(m.group("ref") or label))
                if found is None:
                    continue  # "[text][x]" with no definition of x is plain text, not a link
                href = found
            else:
                href = m.group("angled") if m.group("angled") is not None else m.group("plain")
        label = " ".join(_INNER_IMAGE.sub(r"\1", label).split())
        anchors.append(Anchor(href=link_target(base, href.strip()), text=label))
    return tuple(anchors)
