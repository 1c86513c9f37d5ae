"""Markdown as GitHub shows it in a pull request: rendered by cmarkgfm, laid out by headless Chromium.

GitHub renders a comment with cmark-gfm (``cmarkgfm`` here, raw HTML let through as GitHub does
before its sanitiser), styles it with its ``.markdown-body`` stylesheet (the MIT-licensed copy in
``tests/fixtures/github/``) and shows it in a column about :data:`COLUMN` CSS pixels wide in a
:data:`WINDOW` pixel window (the conversation tab beside its sidebar). :func:`layout` opens such a
page in the distribution's Chromium (``--headless --dump-dom``: the page measures itself in a script
and writes what it found into the DOM) and returns the measures: the comment's height, each table's
width against the column, and the text of every code span, list item and quote that wraps.

Where Chromium is missing, :func:`chromium_or_skip` skips, except in CI (``CI=true``), where it
fails: ``.ci/run`` installs Chromium, and a layout test that skipped there would hide a broken comment.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import cmarkgfm
from cmarkgfm.cmark import Options

from tests.support.browser import chromium_or_skip

CSS = Path(__file__).resolve().parent.parent / "fixtures" / "github" / "github-markdown-light.css"
WINDOW = (1280, 900)
"""The browser window, in CSS pixels."""
COLUMN = 760
"""The width of a PR comment's body in that window, in CSS pixels."""

_MEASURE = """
const body = document.getElementById("comment");
// What a reviewer sees before opening anything: a closed <details> hides the rest.
const shown = el => el.checkVisibility();
const wrapped = el => shown(el) && el.getClientRects().length > 1;
const out = {
  height: body.offsetHeight, width: body.clientWidth, scroll_width: body.scrollWidth,
  tables: [...body.querySelectorAll("table")].filter(shown)
    .map(t => ({width: t.scrollWidth, shown: t.clientWidth})),
  wrapped_code: [...body.querySelectorAll("code")].filter(wrapped).map(e => e.textContent),
  quotes: [...body.querySelectorAll("blockquote")].filter(shown).map(q => ({text: q.textContent.trim(),
    width: q.getBoundingClientRect().width, height: q.getBoundingClientRect().height,
    right: q.getBoundingClientRect().right - body.getBoundingClientRect().left})),
  links: [...body.querySelectorAll("a")].filter(shown).map(a => ({href: a.getAttribute("href"), text: a.textContent,
    lines: a.getClientRects().length})),
};
const pre = document.createElement("pre");
pre.id = "measured";
pre.textContent = JSON.stringify(out);
document.body.appendChild(pre);
"""


def github_html(markdown: str) -> str:
    """``markdown`` rendered as GitHub renders a comment (before its sanitiser, which only removes)."""
    rendered: str = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    return rendered


def comment_page(markdown: str, measure: bool = True) -> str:
    """A page showing ``markdown`` as a PR comment: GitHub's stylesheet, the column's width."""
    style = CSS.read_text(encoding="utf-8")
    script = f"<script>{_MEASURE}</script>" if measure else ""
    return (f"<!doctype html><html><head><meta charset=\"utf-8\"><style>{style}\n"
            f"body{{margin:0;padding:16px 0}} .markdown-body{{box-sizing:content-box;width:{COLUMN}px;"
            f"margin:0 auto}}</style></head><body><article class=\"markdown-body\" id=\"comment\">"
            f"{github_html(markdown)}</article>{script}</body></html>")


def _chromium(exe: str, folder: str, *args: str) -> subprocess.CompletedProcess[str]:
    flags = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-extensions",
             "--hide-scrollbars", f"--user-data-dir={folder}/profile"]
    return subprocess.run([exe, *flags, *args], capture_output=True, text=True, timeout=120, check=False)


def layout(markdown: str, screenshot: Path | None = None) -> dict[str, Any]:
    """Lay ``markdown`` out as a PR comment in Chromium: its measures (see the module docstring); with
    ``screenshot``, a PNG of the whole comment is written there too."""
    exe = chromium_or_skip()
    with tempfile.TemporaryDirectory() as folder:
        page = Path(folder) / "comment.html"
        page.write_text(comment_page(markdown), encoding="utf-8")
        done = _chromium(exe, folder, f"--window-size={WINDOW[0]},{WINDOW[1]}", "--dump-dom", page.as_uri())
        found = re.search(r'<pre id="measured">(.*?)</pre>', done.stdout, re.S)
        assert found is not None, f"chromium laid nothing out: {done.stderr[-2000:]}"
        measures: dict[str, Any] = json.loads(html.unescape(found.group(1)))
        if screenshot is not None:
            page.write_text(comment_page(markdown, measure=False), encoding="utf-8")
            tall = measures["height"] + 40
            _chromium(exe, folder, f"--window-size={WINDOW[0]},{tall}", f"--screenshot={screenshot}", page.as_uri())
    return measures
