"""The HTML report (``--html FILE``): one self-contained page a reviewer opens from the artifact. Pure.

Verdict and reasons first; then every hard failure, the new ones before those the baseline already
had, each with the sentence of the answer that carried its citation; the pages the base revision's
snapshot never recorded, recorded in this pull request (:mod:`gate.report.unrecorded`); the set
figures against the baseline; then every case (new failures first, then changed, failing and passing ones), each with
its vector as a chart, its answer with each citation marked, its claims and the diff of a changed
answer. Filters (failing, new, changed, a text search) run in the page's one script, without a
server; without the script every case is still there.

Nothing is fetched: the stylesheet and the script are inline and the Content-Security-Policy allows
those two alone, by hash (:mod:`gate.report.html_assets`). Every untrusted string passes through
:func:`gate.text.escape.html_text` once; case ids never become element ids (``case-<n>`` do).
"""

from __future__ import annotations

from gate.checks import CHECKS
from gate.model import Finding
from gate.report.html_assets import CSP, SCRIPT, STYLE
from gate.report.html_case import MARK_WORDS, CaseView, case_view, link
from gate.report.sections import num, signed
from gate.report.unrecorded import UNRECORDED_TITLE, unrecorded_note
from gate.results import CaseResult
from gate.text.escape import html_text
from gate.verdict.comparison import Comparison
from gate.verdict.report import Report
from gate.version import __version__

__all__ = ["HtmlReporter"]

_ICON = {"pass": "✓", "fail": "✗", "inconclusive": "⚠"}
_ORDER = {check: i for i, check in enumerate(CHECKS)}
_STATUS = {"blocking": "blocking", "noise": "within noise", "too_few": "too few cases to block", "warn": "warning",
           "improved": "improved", "worse": "worse (not gated)", "ungated": "not gated", "ok": "ok", "n/a": "–"}


def _status(status: str) -> str:
    """A figure's status in words; a status this table does not know is shown as it is named."""
    return _STATUS.get(status) or html_text(status, max_len=40)


def _code(text: str) -> str:
    return f"<code>{html_text(text)}</code>"


def _failure(c: CaseResult, index: int, f: Finding, tag: str) -> str:
    sentence = f.sentence
    return (f'<li class="{tag}"><a href="#case-{index}" class="cid">{html_text(c.id, max_len=200)}</a> '
            f"<code>{html_text(f.check)}</code>" + (f" {link(f.url)}" if f.url else "")
            + (f'<blockquote class="sentence">{html_text(sentence, max_len=1000)}</blockquote>' if sentence else "")
            + f"<div>{html_text(f.message, max_len=600)}</div></li>")


class _Page:
    """What the page holds, gathered in one pass over the cases (a large report reads them back from a
    file): the failures' items and the cases' HTML, in the order they are shown."""

    def __init__(self, cmp: Comparison | None) -> None:
        self.cmp = cmp
        self.new: list[tuple[int, int, str]] = []
        self.known: list[tuple[int, int, str]] = []
        self.fixed: list[str] = []
        self.unrecorded: list[str] = []
        self.buckets: tuple[list[str], ...] = ([], [], [], [])
        self.counts = {"failing": 0, "new": 0, "changed": 0}
        self.cases = 0

    def add(self, c: CaseResult) -> None:
        """Take one case: its failures' items and its HTML, in its bucket."""
        index = self.cases
        self.cases += 1
        change = self.cmp.case(c.id) if self.cmp is not None else None
        view: CaseView = case_view(c, index, change, self.cmp is not None)
        self.new += [(_ORDER.get(f.check, len(_ORDER)), index, _failure(c, index, f, "new"))
                     for f in view.new]
        self.known += [(_ORDER.get(f.check, len(_ORDER)), index, _failure(c, index, f, "known"))
                       for f in view.known]
        if change is not None:
            self.fixed += [f'<li><a href="#case-{index}" class="cid">{html_text(c.id, max_len=200)}</a> '
                           f"<code>{html_text(f.check)}</code> {html_text(f.message, max_len=600)}</li>"
                           for f in change.fixed_failures]
        cid = f'<a href="#case-{index}" class="cid">{html_text(c.id, max_len=200)}</a>'
        self.unrecorded += [f"<li>{cid} {link(url)}</li>" for url in c.unrecorded_pages]
        self.counts["failing"] += c.failed
        self.counts["new"] += bool(view.new)
        self.counts["changed"] += view.changed
        bucket = 0 if view.new else 1 if view.changed else 2 if c.failed else 3
        self.buckets[bucket].append(view.html)

    def failures(self) -> str:
        """The hard failures, the new ones first; each kind by check (in the registry's order), then case."""
        if not (self.new or self.known or self.fixed):
            return '<section id="failures"><h2>Hard failures</h2><p>None.</p></section>'
        new, known = ("".join(item for *_, item in sorted(items)) for items in (self.new, self.known))
        out = ['<section id="failures"><h2>Hard failures</h2>']
        if self.cmp is None:
            out.append(f'<ol class="failures">{known}</ol>')
        else:
            out.append(f'<h3>New since the baseline ({len(self.new)})</h3>'
                       + (f'<ol class="failures">{new}</ol>' if self.new else "<p>None.</p>"))
            if self.known:
                out.append(f'<h3>Already in the baseline ({len(self.known)})</h3>'
                           f'<ol class="failures">{known}</ol>')
            if self.fixed:
                out.append(f'<h3>Fixed since the baseline ({len(self.fixed)})</h3>'
                           f'<ul class="failures">{"".join(self.fixed)}</ul>')
        return "".join(out) + "</section>"

    def unrecorded_pages(self) -> str:
        """The pages the base revision's snapshot never recorded, each with its case (nothing without any)."""
        if not self.unrecorded:
            return ""
        return (f'<section id="unrecorded"><h2>{UNRECORDED_TITLE} ({len(self.unrecorded)})</h2>'
                f'<p>{unrecorded_note(_code)}</p><ul class="failures">{"".join(self.unrecorded)}</ul></section>')

    def filters(self) -> str:
        """The filter bar: hidden until the script shows it (without the script, it could do nothing)."""
        buttons = [("failing", "Failing"), ("new", "New failures"), ("changed", "Changed")]
        pressed = "".join(f'<button type="button" data-filter="{key}" aria-pressed="false">{word} '
                          f"({self.counts[key]})</button>" for key, word in buttons
                          if key == "failing" or self.cmp is not None)
        return (f'<div id="filters" class="filters" role="search" aria-label="Filter the cases" hidden>{pressed}'
                '<input id="search" type="search" placeholder="Search ids, questions, answers, URLs" '
                'aria-label="Search the cases">'
                '<button type="button" data-open="all">Expand all</button>'
                '<button type="button" data-open="none">Collapse all</button>'
                f'<output id="shown" aria-live="polite">{self.cases} of {self.cases} cases shown</output></div>')


def _header(report: Report) -> str:
    cmp = report.comparison
    where = ""
    if cmp is not None:
        o = cmp.origin
        at = f" at <code>{html_text(o.commit[:12])}</code>" if o.commit else " (working tree)"
        forced = ", forced over a failing run" if cmp.baseline_forced else ""
        where = f" · compared with <code>{html_text(o.file, max_len=200)}</code>{at}{forced}"
    version = f" version {report.golden_version}" if report.golden_version is not None else ""
    return (f'<header class="verdict v-{report.verdict}"><h1>{_ICON[report.verdict]} sourcegate: {report.verdict}</h1>'
            f'<p class="meta">Golden set <code>{html_text(report.golden_name, max_len=200)}</code>{version} · '
            f"{len(report.cases):,} cases · {report.hard_failure_count:,} hard failure(s) · "
            f"judge: {html_text(report.judge_mode)}{where}</p></header>")


def _why(report: Report) -> str:
    first = html_text(report.reasons[0], max_len=1000) if report.reasons else "no reason given"
    rest = "".join(f"<li>{html_text(r, max_len=1000)}</li>" for r in report.reasons[1:])
    more = (f"<details><summary>{len(report.reasons) - 1} more reason(s)</summary><ul>{rest}</ul></details>"
            if rest else "")
    notes = [*(report.comparison.notes() if report.comparison is not None else ()), *report.warnings]
    notes += [f"{c.setting}: {c.base} → {c.pr} ({c.effect}; applies after the merge)" for c in report.config_changes]
    said = "".join(f"<li>{html_text(n, max_len=1000)}</li>" for n in notes)
    return (f'<section id="why"><p class="reason">{first}</p>{more}'
            + (f'<ul class="notes">{said}</ul>' if said else "") + "</section>")


def _figures(cmp: Comparison | None) -> str:
    if cmp is None:
        return ""
    rows = "".join(f"<tr><td>{html_text(f.label, max_len=80)}</td><td class=\"n\">{num(f.baseline)}</td>"
                   f"<td class=\"n\">{num(f.current)}</td><td class=\"n\">{signed(f.delta)}</td>"
                   f"<td>{_status(f.status.status) if f.status else '–'}</td></tr>"
                   for f in cmp.figures if f.baseline is not None or f.current is not None)
    return ('<section id="figures"><h2>Set figures against the baseline</h2><div class="scroll"><table>'
            "<thead><tr><th>figure</th><th>baseline</th><th>PR</th><th>delta</th><th>status</th></tr></thead>"
            f"<tbody>{rows}</tbody></table></div></section>")


def _legend() -> str:
    return ('<p class="legend">Citations in the answers: '
            + " ".join(f'<span class="ml {m}">{w}</span>' for m, w in MARK_WORDS.items()) + "</p>")


class HtmlReporter:
    """Renders the report as one self-contained HTML page."""

    def render(self, report: Report) -> str:
        """The page: verdict, reasons, failures (new first), set figures, then every case."""
        page = _Page(report.comparison)
        for c in report.cases:  # once: a report's cases may be read back from a file
            page.add(c)
        title = f"sourcegate: {report.verdict} · {report.golden_name}"
        return "".join([
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<meta name="referrer" content="no-referrer">',
            f"<title>{html_text(title, max_len=200)}</title><style>{STYLE}</style></head><body>",
            _header(report), "<main>", _why(report), page.failures(), page.unrecorded_pages(),
            _figures(report.comparison),
            f'<section id="cases"><h2>Cases ({page.cases:,})</h2>{_legend()}{page.filters()}',
            *("".join(b) for b in page.buckets), "</section></main>",
            f"<footer>sourcegate {html_text(__version__)} · a self-contained page: nothing is fetched.</footer>",
            f"<script>{SCRIPT}</script></body></html>\n",
        ])
