"""One case of the HTML report: its summary line, vector chart, failures, search queries with their
scores and what each dropped, the drafts its agent guarded (attempts), answer with each citation
marked, claims table and, when its answer changed, the diff against the baseline's. Pure.

Every string of a run, a page or the judge passes through :func:`gate.text.escape.html_text` once;
a URL becomes a link only when it is http(s) (:func:`link`).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from gate.judge.model import RunJudgement
from gate.model import Finding
from gate.report.attempts import attempt_word, attempts_line, shown_findings
from gate.report.html_chart import axis_chart, axis_strip
from gate.report.queries import lost_words, query_rows
from gate.results import CITATION_MARKS, CaseResult, PageQuote
from gate.text.escape import html_text, short_url
from gate.urls import canonical
from gate.urls.extract import citation_spans
from gate.verdict.comparison import CaseChange

__all__ = ["MARK_WORDS", "CaseView", "answer_diff", "case_view", "link", "marked_answer"]

MARK_WORDS = {"fabricated": "fabricated", "unresolved": "unresolved", "unread": "unread",
              "quote_missing": "quote missing", "drifted": "drifted", "quote_found": "quote found",
              "read": "read", "not_read": "not checked"}
"""The word shown beside a citation for each mark of :data:`gate.results.CITATION_MARKS`."""

_RANK = {mark: i for i, mark in enumerate(CITATION_MARKS)}
_WEB = re.compile(r"(?i)^https?://")
_HOST = re.compile(r"(?i)^https?://(?:www\.)?([^/?#\s]{1,80})")
_WORDS = re.compile(r"\S+\s*|\s+")
_MAX_SHOWN_URL = 90


def link(url: str, *, short: bool = False) -> str:
    """A cited URL: a link when it is http(s) (shortened in the text, whole in the link), else code;
    ``short`` shows only its host (the whole URL is the link's)."""
    host = _HOST.match(url.strip())
    if short and host:
        shown = host.group(1)
    else:
        shown = url if len(url) <= _MAX_SHOWN_URL else short_url(url, _MAX_SHOWN_URL)  # as the comment cuts it
    if _WEB.match(url.strip()):
        return (f'<a class="url" href="{html_text(url.strip())}" rel="noopener noreferrer nofollow">'
                f"{html_text(shown)}</a>")
    return f'<code class="url">{html_text(shown)}</code>'


def marked_answer(answer: str, marks: dict[str, str]) -> str:
    """The answer's text with each citation (marker, link, definition, bare URL) marked by the worst
    mark of the URLs it stands for (``marks``: canonical URL -> mark), and that mark's word after it."""
    out: list[str] = []
    last = 0
    for start, end, urls in citation_spans(answer):
        found = [marks[canonical(u)] for u in urls if canonical(u) in marks]
        if not found:
            continue
        mark = min(found, key=_RANK.__getitem__)
        title = "; ".join(f"{MARK_WORDS[marks.get(canonical(u), 'not_read')]}: {u}" for u in urls)
        out += [html_text(answer[last:start]),
                f'<span class="m {mark}" title="{html_text(title, max_len=2000)}">{html_text(answer[start:end])}'
                f'</span><span class="ml {mark}">{MARK_WORDS[mark]}</span>']
        last = end
    out.append(html_text(answer[last:]))
    return "".join(out)


def answer_diff(before: str, after: str) -> str:
    """The baseline's answer against this run's, word by word: removed words struck, added ones marked."""
    a, b = _WORDS.findall(before), _WORDS.findall(after)
    out: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(html_text("".join(a[i1:i2])))
            continue
        if i2 > i1:
            out.append(f"<del>{html_text(''.join(a[i1:i2]))}</del>")
        if j2 > j1:
            out.append(f"<ins>{html_text(''.join(b[j1:j2]))}</ins>")
    return "".join(out)


def _in_page(q: PageQuote) -> str:
    return (f'<span class="inpage">…{html_text(q.before)}<mark>{html_text(q.quote)}</mark>'
            f"{html_text(q.after)}…</span> <small>on {link(q.url, short=True)}</small>")


def _claim_rows(j: RunJudgement, quotes: Sequence[PageQuote]) -> list[str]:
    by_claim = {q.claim: q for q in reversed(quotes) if q.claim}
    verdicts = {v.claim_id: v for v in j.verdicts}
    rows = []
    for claim in j.claims:
        v = verdicts.get(claim.id)
        verdict = (v.verdict if v is not None else None) or "unscored"
        q = by_claim.get(claim.id)
        why = ""
        quote = ""
        if v is not None:
            if v.overruled:
                why = (f"the judge said {html_text(v.judge_verdict or '?')}; "
                       f"overruled: {html_text(v.overrule_reason or '')}")
            elif v.verdict is None:
                why = f"unscored: {html_text(v.unscored_reason or 'no reason given')}"
            elif v.located == "other_source" and claim.citations:
                why = "misattributed: the quote is on a page the claim does not cite"
            elif v.located == "snippet":
                why = "only in a search snippet: the page was never read"
            if q is not None:
                quote = _in_page(q)
            elif v.evidence:
                where = {"not_found": "not found on any page", "snippet": "in a search snippet"}.get(v.located or "",
                                                                                                     "on the page")
                quote = f"«{html_text(v.evidence, max_len=600)}» <small>{where}</small>"
        rows.append(f'<tr><td class="n">{claim.id}</td><td>{html_text(claim.text, max_len=600)}</td>'
                    f'<td class="v-{verdict}">{verdict}</td><td>{quote}</td><td>{why}</td></tr>')
    return rows


def _claims(c: CaseResult) -> str:
    j = c.judgement
    if j is None:
        return ""
    head = "<h3>Claims</h3>"
    if j.claims_error:
        return (f"{head}<p>The judge could not extract the claims: {html_text(j.claims_error)} "
                f"(counted as {j.estimated_claims} unscored claim(s)).</p>")
    if not j.claims:
        return f"{head}<p>No claim.</p>"
    notes = "".join(f"<li>{html_text(n)}</li>" for n in (*j.notes, *j.problems))
    return (f'{head}<div class="scroll"><table class="claims"><thead><tr><th>#</th><th>claim</th><th>verdict</th>'
            f"<th>the verified quote, in the page's text</th><th>why</th></tr></thead><tbody>"
            f'{"".join(_claim_rows(j, c.quotes))}</tbody></table></div>'
            + (f'<ul class="why">{notes}</ul>' if notes else ""))


def _queries(c: CaseResult) -> str:
    """Each query the agent sent, the judge's two scores of it, and what it dropped of the question."""
    rows = query_rows(c)
    if not rows:
        return ""
    cells = []
    for r in rows:
        note = f'<br><small class="why">{html_text(r.score.note, max_len=400)}</small>' if r.score and r.score.note \
            else ""
        scores = ((str(r.score.constraint_preservation), str(r.score.entity_recall)) if r.score is not None
                  else ("–", "–"))
        lost = "–" if r.kept is None else html_text(lost_words(r.kept), max_len=600) if r.lost else "nothing"
        cells.append(f'<tr><td class="n">{r.number}</td><td>{html_text(r.query, max_len=600)}{note}</td>'
                     f'<td class="n">{scores[0]}</td><td class="n">{scores[1]}</td><td>{lost}</td></tr>')
    return ('<h3>Search queries</h3><div class="scroll"><table class="queries"><thead><tr><th>#</th><th>query</th>'
            "<th>constraint preservation</th><th>entity recall</th><th>dropped from the question</th></tr></thead>"
            f'<tbody>{"".join(cells)}</tbody></table></div>')


@dataclass(frozen=True)
class CaseView:
    """How the page shows one case: where it stands against the baseline, and its HTML."""

    new: tuple[Finding, ...]
    known: tuple[Finding, ...]
    changed: bool
    html: str


def _failure_items(findings: Sequence[Finding], tag: str) -> str:
    return "".join(f'<li><span class="tag {tag}">{"new" if tag == "new" else "baseline"}</span> '
                   f"<code>{html_text(f.check)}</code> {html_text(f.message, max_len=600)}</li>"
                   for f in findings)


def _summary(c: CaseResult, view: CaseView, change: CaseChange | None, compared: bool) -> str:
    """The case's summary line: pass or fail, its id, its tags and its five small bars."""
    tags = [f'<span class="badge {"fail" if c.failed else "pass"}">{"fail" if c.failed else "pass"}</span>',
            f'<span class="cid">{html_text(c.id, max_len=200)}</span>']
    if view.new:
        tags.append(f'<span class="tag new">{len(view.new)} new failure(s)</span>')
    if view.known:
        tags.append(f'<span class="tag known">{len(view.known)} {"known " if compared else ""}failure(s)</span>')
    if view.changed:
        tags.append('<span class="tag changed">changed</span>')
    tags.append(axis_strip(c.soft, change))
    return " ".join(tags)


def _findings(c: CaseResult, view: CaseView, change: CaseChange | None) -> str:
    """The case's hard failures (new, known, fixed) and its warnings."""
    out = []
    fixed = change.fixed_failures if change is not None else ()
    if c.hard_failures or fixed:
        out.append('<h3>Hard failures</h3><ul class="findings">' + _failure_items(view.new, "new")
                   + _failure_items(view.known, "known")
                   + "".join(f'<li><span class="tag">fixed</span> <code>{html_text(f.check)}</code> '
                             f"{html_text(f.message, max_len=600)}</li>" for f in fixed) + "</ul>")
    if c.warnings:
        out.append("<h3>Warnings</h3><ul>" + "".join(
            f"<li><code>{html_text(w.kind)}</code> {html_text(w.message, max_len=600)}</li>" for w in c.warnings)
            + "</ul>")
    return "".join(out)


def _attempts(c: CaseResult) -> str:
    """The drafts the agent guarded before its answer: each rejected or passed, with the guard's findings."""
    if not c.attempts:
        return ""
    items = []
    for attempt in c.attempts:
        findings, more = shown_findings(attempt)
        listed = "".join(f"<li><code>{html_text(f.check)}</code> {html_text(f.message, max_len=600)}</li>"
                         for f in findings) + (f"<li>and {more} more finding(s)</li>" if more else "")
        word = attempt_word(attempt)
        items.append(f'<li><span class="tag{" rejected" if attempt.findings else ""}">{html_text(word)}</span>'
                     + (f'<ul class="findings">{listed}</ul>' if listed else "") + "</li>")
    return (f"<h3>Attempts</h3><p>{html_text(attempts_line(c.attempts))}.</p>"
            f'<ol class="attempts">{"".join(items)}</ol>')


def case_view(c: CaseResult, index: int, change: CaseChange | None, compared: bool) -> CaseView:
    """One case as a ``<details>`` element (id ``case-<index>``); ``compared``: the report has a baseline."""
    kept = change.kept_failures if change is not None else ()
    new = tuple(f for f in c.hard_failures if compared and f not in kept)
    known = tuple(f for f in c.hard_failures if f not in new)
    diff = change.baseline_answer if change is not None else None
    view = CaseView(new, known, change is not None and (change.changed or diff is not None), "")
    attrs = "".join((" data-failing" if c.failed else "", " data-new" if new else "",
                     " data-changed" if view.changed else "", " open" if new else ""))
    body = [f'<p class="question">{html_text(c.question, max_len=1000)}</p>',
            f'<div class="charts">{axis_chart(c.soft, change)}<ul class="why">'
            + "".join(f"<li>{html_text(k.replace('_', ' '))}: {html_text(v, max_len=400)}</li>"
                      for k, v in c.axes.items()) + "</ul></div>",
            _findings(c, view, change), _queries(c), _attempts(c), _answer(c), _claims(c)]
    if diff is not None and c.answer is not None:
        body.append('<h3>The answer against the baseline\'s</h3><div class="diff">'
                    f"{answer_diff(diff, c.answer)}</div>")
    html = (f'<details class="case" id="case-{index}"{attrs}><summary>{_summary(c, view, change, compared)}'
            f'</summary><div class="body">{"".join(body)}</div></details>')
    return replace(view, html=html)


def _answer(c: CaseResult) -> str:
    if c.answer is None:
        return ("<h3>Answer</h3><p>The report holds no answer for this case (no run, or a report of an "
                "earlier version).</p>")
    marks = {canonical(m.url): m.mark for m in c.citations}
    cut = f"<p><small>{c.answer_dropped:,} more character(s) not kept.</small></p>" if c.answer_dropped else ""
    cited = "".join(f'<li><span class="ml {m.mark}">{MARK_WORDS[m.mark]}</span> {link(m.url)}</li>'
                    for m in c.citations)
    return (f'<h3>Answer</h3><div class="answer">{marked_answer(c.answer, marks)}</div>{cut}'
            + (f'<h3>Cited</h3><ul class="cited">{cited}</ul>' if cited else ""))
