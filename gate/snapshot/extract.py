"""The extraction layer of a fetched page: its clean text, its publication date and its links.

A page recorded live holds the body the server sent. Its extraction is what an agent's reader
would keep of it:

- HTML (``text/html``, ``application/xhtml+xml``, or no type and an ``<html>`` start): the visible
  text, one line per block (``script``, ``style``, ``head``, ``template``, ... dropped); every
  ``<a href>`` as an anchor, resolved against the final URL; the date of ``<meta>``
  ``article:published_time``, ``datePublished``, ``date`` or ``DC.date``, else of the first
  ``<time datetime>``.
- Anything else (plain text, markdown): the body as it is, and its markdown and HTML links, as
  ``snapshot build`` finds them in a run's text (:mod:`gate.urls.anchors`); no date.

:func:`page_title` reads an HTML page's ``<title>`` (what a provider's extract gives as its title).
Pure: nothing is fetched, and the same page always gives the same extraction.
"""

from __future__ import annotations

import re
from datetime import date
from html.parser import HTMLParser

from gate.snapshot.records import ExtractionRecord, PageRecord
from gate.urls.anchors import Anchor, extract_anchors
from gate.urls.weburl import link_target

_HIDDEN = frozenset({"script", "style", "head", "template", "noscript", "svg", "iframe", "object"})
_BLOCKS = frozenset({
    "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "figcaption", "figure",
    "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p",
    "pre", "section", "table", "td", "th", "tr", "ul",
})
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
                   "track", "wbr"})
_DATE_META = ("article:published_time", "datepublished", "date", "dc.date", "dc.date.issued",
              "pubdate", "publish-date", "og:published_time")
_DATE = re.compile(r"^\s*(\d{4}-\d{2}-\d{2})")


def is_html(content_type: str | None, body: str) -> bool:
    """Whether a body is HTML: by its Content-Type, or by its first tag when the type is missing."""
    if content_type:
        kind = content_type.split(";", 1)[0].strip().lower()
        return kind in ("text/html", "application/xhtml+xml")
    return body.lstrip()[:15].lower().startswith(("<!doctype html", "<html"))


def extract_page(page: PageRecord) -> ExtractionRecord:
    """The extraction of one recorded page (see the module docstring)."""
    base = page.final_url or page.url
    if not is_html(page.content_type, page.body):
        return ExtractionRecord(url=page.url, text=page.body, anchors=extract_anchors(page.body, base))
    reader = _Reader(base)
    reader.feed(page.body)
    reader.close()
    return ExtractionRecord(url=page.url, text=reader.text(), published=reader.published,
                            anchors=tuple(reader.anchors))


def page_title(page: PageRecord) -> str | None:
    """The text of an HTML page's first ``<title>``, whitespace collapsed; None for another body or none."""
    if not is_html(page.content_type, page.body):
        return None
    reader = _Reader(page.final_url or page.url)
    reader.feed(page.body)
    reader.close()
    return reader.title


def _date(value: str | None) -> date | None:
    match = _DATE.match(value or "")
    if match is None:
        return None
    try:
        return date.fromisoformat(match.group(1))
    except ValueError:
        return None


class _Reader(HTMLParser):
    """Collects visible text by block, the links with their text, and the first publication date."""

    def __init__(self, base: str) -> None:
        super().__init__(convert_charrefs=True)
        self.base = base
        self.lines: list[list[str]] = [[]]
        self.anchors: list[Anchor] = []
        self.published: date | None = None
        self._meta_date: date | None = None
        self._hidden: list[str] = []  # the open hidden elements (nested ones too)
        self._link: tuple[str, list[str]] | None = None
        self.title: str | None = None
        self._title: list[str] | None = None  # the words of the first <title>, while it is open

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag == "meta":
            name = (values.get("property") or values.get("name") or values.get("itemprop") or "").lower()
            if name in _DATE_META and self._meta_date is None:
                self._meta_date = _date(values.get("content"))
            return
        if tag == "title" and self.title is None and self._title is None:
            self._title = []
        if tag in _HIDDEN:
            self._hidden.append(tag)
            return
        if self._hidden or tag in _VOID and tag != "br":
            return
        if tag in _BLOCKS:
            self.lines.append([])
        if tag == "time" and self.published is None:
            self.published = _date(values.get("datetime"))
        if tag == "a" and values.get("href"):
            self._link = (values["href"].strip(), [])

    def handle_endtag(self, tag: str) -> None:
        if tag == "title" and self._title is not None:
            self.title = " ".join("".join(self._title).split()) or None
            self._title = None
        if tag in _HIDDEN:
            if tag in self._hidden:
                del self._hidden[len(self._hidden) - 1 - self._hidden[::-1].index(tag):]
            return
        if self._hidden:
            return
        if tag == "a" and self._link is not None:
            href, words = self._link
            self.anchors.append(Anchor(href=link_target(self.base, href), text=" ".join(" ".join(words).split())))
            self._link = None
        if tag in _BLOCKS:
            self.lines.append([])

    def handle_data(self, data: str) -> None:
        if self._title is not None:  # read wherever it is, though the <head> is not shown
            self._title.append(data)
        if self._hidden:
            return
        self.lines[-1].append(data)
        if self._link is not None:
            self._link[1].append(data)

    def close(self) -> None:
        super().close()
        if self._meta_date is not None:  # the page's own statement wins over a <time> in its text
            self.published = self._meta_date

    def text(self) -> str:
        """The visible text, one block a line, whitespace collapsed, empty lines dropped."""
        lines = (" ".join("".join(parts).split()) for parts in self.lines)
        return "\n".join(line for line in lines if line)
