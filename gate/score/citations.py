"""What a reader of one case needs to see its answer as the checks saw it: the answer (bounded), each
cited URL marked by what became of it, and each verified quote inside its page's text. Pure.

The marks restate the checks' findings per URL (``fabricated_url`` -> ``fabricated``, ...) and add
what no finding says: that a cited page was read, and that a quote was found on it. The quotes are
looked for in the page's own text (the checks match on a normalised, lower-cased copy), so a reader
sees the words around them as the page has them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from gate.checks.base import Subject
from gate.model import Finding
from gate.results import ANSWER_KEPT, CITATION_MARKS, CitationMark, PageQuote
from gate.urls import canonical

if TYPE_CHECKING:
    from gate.judgement import RunJudgement

__all__ = ["MAX_MARKED", "MAX_QUOTES", "QUOTE_CONTEXT", "citation_marks", "kept_answer", "page_quotes"]

MAX_MARKED = 200
"""At most this many cited URLs are marked per case (the count of citations is in its figures)."""
MAX_QUOTES = 50
"""At most this many quotes per case are shown inside their page's text."""
QUOTE_CONTEXT = 100
"""Characters of the page kept either side of a quote."""
_MAX_QUOTE_CHARS = 2_000
_MAX_SEARCHED = 2_000_000
"""Only this much of a page's text is searched for a quote (bounded work)."""

_BY_CHECK = {"fabricated_url": "fabricated", "url_unresolved": "unresolved", "unread_citation": "unread",
             "passage_missing": "quote_missing", "paraphrase_drift": "drifted"}
_RANK = {mark: i for i, mark in enumerate(CITATION_MARKS)}
_WORD = re.compile(r"\w+")
_ELISION = re.compile(r"\.\s?\.\s?\.|…|\[\s*\.\.\.\s*\]")


def kept_answer(answer: str) -> tuple[str, int]:
    """The start of ``answer`` a case result keeps, and how many characters were dropped."""
    if len(answer) <= ANSWER_KEPT:
        return answer, 0
    return answer[:ANSWER_KEPT], len(answer) - ANSWER_KEPT


def _ok(status: int | None) -> bool:
    return status is None or 200 <= status < 300


def citation_marks(subject: Subject, findings: Iterable[Finding], statuses: Mapping[str, str],
                   judgement: RunJudgement | None) -> tuple[CitationMark, ...]:
    """Each URL the answer cites (the first :data:`MAX_MARKED`) with its worst mark.

    ``findings`` are every check's findings of the run, soft ones included; ``statuses`` each
    check's status by id (a quote counts as found only where ``passage_missing`` ran).
    """
    worst: dict[str, str] = {}

    def mark(key: str, name: str) -> None:
        if key in subject.cited and _RANK[name] < _RANK[worst.get(key, "not_read")]:
            worst[key] = name

    for f in findings:
        if f.url is not None and f.check in _BY_CHECK:
            mark(canonical(f.url), _BY_CHECK[f.check])
    for key in subject.cited:
        page = subject.read.get(key)
        if page is not None and _ok(page.status):
            mark(key, "read")
    if statuses.get("passage_missing") in ("pass", "fail"):
        for c in subject.citations:
            if c.quote and c.quote.strip():
                mark(canonical(c.url), "quote_found")  # a missing one was marked quote_missing above
    if judgement is not None:
        for v in judgement.verdicts:
            if v.located == "cited" and v.located_url is not None:
                mark(canonical(v.located_url), "quote_found")
    return tuple(CitationMark(url, worst.get(key, "not_read"))
                 for key, url in list(subject.cited.items())[:MAX_MARKED])


def _pattern(quote: str) -> re.Pattern[str] | None:
    """The longest stretch of ``quote`` between elisions, as words with anything but words between."""
    parts = sorted(_ELISION.split(quote[:_MAX_QUOTE_CHARS]), key=lambda p: len(_WORD.findall(p)), reverse=True)
    words = _WORD.findall(parts[0]) if parts else []
    if not words:
        return None
    return re.compile(r"\W+".join(re.escape(w) for w in words), re.IGNORECASE)


def _in_text(text: str, quote: str) -> tuple[str, str, str] | None:
    pattern = _pattern(quote)
    found = pattern.search(text, 0, _MAX_SEARCHED) if pattern is not None else None
    if found is None:
        return None
    start, end = found.span()
    if end - start > _MAX_QUOTE_CHARS * 2:
        return None
    before = " ".join(text[max(0, start - QUOTE_CONTEXT * 2):start].split())[-QUOTE_CONTEXT:]
    after = " ".join(text[end:end + QUOTE_CONTEXT * 2].split())[:QUOTE_CONTEXT]
    space_before = " " if before and text[start - 1].isspace() else ""
    space_after = " " if after and end < len(text) and text[end].isspace() else ""
    return before + space_before, " ".join(found.group().split()), space_after + after


def _quoted(subject: Subject, judgement: RunJudgement | None) -> Sequence[tuple[int, str, str]]:
    """(claim, URL, quote): the answer's own quotes first (claim 0), then the judge's located ones."""
    out: list[tuple[int, str, str]] = [(0, c.url, c.quote) for c in subject.citations if c.quote and c.quote.strip()]
    if judgement is not None:
        out += [(v.claim_id, v.located_url, v.evidence) for v in judgement.verdicts
                if v.located in ("cited", "other_source") and v.located_url and v.evidence]
    return out


def page_quotes(subject: Subject, judgement: RunJudgement | None) -> tuple[PageQuote, ...]:
    """Each quote (the first :data:`MAX_QUOTES`) found in the text of a page that was read, with the
    :data:`QUOTE_CONTEXT` characters around it; a quote the page does not hold word for word (found
    only after normalising, or fuzzily, or not at all) is left out."""
    out: list[PageQuote] = []
    seen: set[tuple[int, str, str]] = set()
    for claim, url, quote in _quoted(subject, judgement):
        key = (claim, canonical(url), quote)
        if key in seen or len(out) >= MAX_QUOTES:
            continue
        seen.add(key)
        for page in subject.texts(canonical(url)):
            found = _in_text(page.text, quote)
            if found is not None:
                out.append(PageQuote(claim, url, *found))
                break
    return tuple(out)
