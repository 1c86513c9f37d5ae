"""Reports made for the HTML report's tests: every untrusted field holding a hostile string, and a
large report of many cases copied from a real one.
"""

from __future__ import annotations

from dataclasses import replace

from gate.config import Config
from gate.judge.model import Claim, ClaimVerdict, RunJudgement
from gate.model import Attempt, Finding
from gate.results import CaseResult, CaseWarning, CheckStatus, CitationMark, Counts, PageQuote
from gate.verdict.compare import BaselineOrigin, compare
from gate.verdict.decide import decide
from gate.verdict.report import Report

HOSTILE = [
    "<script>window.__pwned = 1</script>",
    "<img src=x onerror=\"window.__pwned = 1\">",
    "\" onmouseover=\"window.__pwned = 1\" x=\"",
    "' autofocus onfocus='window.__pwned = 1' '",
    "</details></section></main><svg onload=window.__pwned=1>",
    "</textarea></style></script><script>window.__pwned = 1</script>",
    "<!-- a comment that never ends",
    "&lt;b&gt; &amp;amp; &#60;script&#62;",
    "javascript:window.__pwned=1",
    "ctrl\x00\x07\x1b[31m \u202eevil\u202c \ud800 \ufffe",
    "case-0\" id=\"filters",
]
"""Strings a run, a page, the judge or a hand-edited report could hold, aimed at HTML."""

URL = "https://x.example/page"


def _case(text: str, answer: str) -> CaseResult:
    url_with_text = URL + "?q=" + text
    j = RunJudgement(
        claims=(Claim(1, text, (URL,)), Claim(2, text + " two")),
        verdicts=(ClaimVerdict(1, "supported", evidence=text, located="cited", located_url=URL),
                  ClaimVerdict(2, None, unscored_reason=text)),
        notes=(text,), problems=(text,))
    return CaseResult(
        id=text, question=text,
        hard_failures=(Finding("fabricated_url", text, url_with_text), Finding(text, text, None)),
        checks=(CheckStatus("fabricated_url", "fail", text),), counts=Counts(citations=2),
        soft={"query_quality": 2.0, "citation_validity": 0.5}, judgement=j, axes={"diversity": text},
        warnings=(CaseWarning(text, text),), answer=answer,
        citations=(CitationMark(URL, "quote_found"), CitationMark(url_with_text, "fabricated")),
        quotes=(PageQuote(1, URL, text, text, text),),
        attempts=(Attempt(rejected=(url_with_text,), findings=(Finding(text, text, url_with_text),)),
                  Attempt(kept=True)))


def hostile_report(text: str) -> Report:
    """One case, compared with a baseline, whose every untrusted string (id, question, answer, claims,
    quotes, messages, URLs, warnings, the attempts' findings, the set's name, the reasons) holds ``text``."""
    answer = f"{text} [1] and {text} [2].\n\n[1]: {URL}\n[2]: {URL}?q={text}\n"
    base = Report(verdict="pass", reasons=(text,), golden_name=text, golden_version=1,
                  cases=(replace(_case(text, "before: " + answer), hard_failures=()),))
    cur_cases = (_case(text, answer),)
    cmp = compare(base, Report("fail", (), text, 1, cur_cases), Config(), BaselineOrigin(file=text, ref=text))
    verdict, reasons = decide(cur_cases, Config(), cmp)
    return Report(verdict=verdict, reasons=(*reasons, text), golden_name=text, golden_version=1,
                  cases=cur_cases, comparison=cmp, warnings=(text,), judge_mode="replay")


def many_cases(report: Report, n: int) -> Report:
    """``n`` cases copied in turn from ``report``'s (ids made unique), with their comparison records."""
    cases = tuple(report.cases)
    out: list[CaseResult] = []
    changes = []
    cmp = report.comparison
    for i in range(n):
        c = cases[i % len(cases)]
        new_id = f"{c.id}-{i}"
        out.append(replace(c, id=new_id))
        change = cmp.case(c.id) if cmp is not None else None
        if change is not None:
            changes.append(replace(change, id=new_id))
    if cmp is not None:
        cmp = replace(cmp, cases=tuple(changes), common=tuple(c.id for c in out))
    return replace(report, cases=tuple(out), comparison=cmp)
