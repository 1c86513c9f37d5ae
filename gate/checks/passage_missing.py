"""``passage_missing``: a quoted passage that is not on the page it is attributed to.

A quote is a citation's ``quote`` in the trace, or a passage the answer puts in double quotation
marks (of :data:`MIN_QUOTATION_WORDS` words or more) in a sentence that cites a page. Either must
be on the page verbatim after normalisation, as :mod:`gate.checks.verbatim` says; a paraphrase is
not a quote (unquoted paraphrase is ``paraphrase_drift``'s). A miss shows the page's closest
passage beside the quote.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from rapidfuzz.distance import Levenshtein

from gate.checks.base import Subject
from gate.checks.closest import Closest
from gate.checks.passage import Match, WorkBudget, normalise
from gate.checks.verbatim import QUOTE_MARKS
from gate.model import Finding, Outcome, Page
from gate.urls import canonical
from gate.urls.supported import cited_sentences

__all__ = ["MIN_QUOTATION_WORDS", "PassageMissing", "SHOWN_CHARS", "quotations"]

MIN_QUOTATION_WORDS = 3
"""A passage in quotation marks in the answer is a quote from this many words up; a shorter one
("digital omnibus") names a term, and a page may say it otherwise."""

SHOWN_CHARS = 80
"""How much of a quote and of the page's closest passage a finding shows, around where they differ."""

# Double quotation marks: curly, low-high, guillemets, straight. A straight mark opens after no
# letter or digit and closes before none, so 6.1" and 6.7" (inches) do not pair up.
_MARKS = re.compile("[“„«\"]")
_QUOTATION = re.compile(r"“([^“”]+)”|„([^„“”]+)[“”]|«\s?([^«»]+?)\s?»|(?<![\w.])\"([^\"]+)\"(?!\w)")


def quotations(answer: str) -> Iterator[tuple[str, tuple[str, ...]]]:
    """Each passage the answer puts in quotation marks, with the URLs its sentence cites."""
    if not _MARKS.search(answer):
        return  # no quotation mark at all: the answer's sentences need not be read
    for sentence in cited_sentences(answer):
        for m in _QUOTATION.finditer(sentence.text):
            text = next(g for g in m.groups() if g is not None).strip()
            if len(text.split()) >= MIN_QUOTATION_WORDS:
                yield text, sentence.urls


def _shown(text: str, at: int) -> str:
    """``text`` as an escaped string literal, cut to :data:`SHOWN_CHARS` from a little before ``at``."""
    start = max(0, min(at - SHOWN_CHARS // 4, len(text) - SHOWN_CHARS)) if len(text) > SHOWN_CHARS else 0
    cut = text[start:start + SHOWN_CHARS]
    return json.dumps(("…" if start else "") + cut + ("…" if start + SHOWN_CHARS < len(text) else ""),
                      ensure_ascii=False)


def _differ(a: str, b: str) -> tuple[int, int]:
    """Where two texts first differ, in each, once aligned (character by character)."""
    for op in Levenshtein.opcodes(a, b):
        if op.tag != "equal":
            return op.src_start, op.dest_start
    return len(a), len(b)


_WIDEN = 24
"""How far a closest passage is widened to the page's word edges, at most."""


def _widened(text: str, start: int, end: int) -> str:
    """``text[start:end]`` widened to the page's word edges (by :data:`_WIDEN` characters at most)."""
    first = max(0, start - _WIDEN)
    while start > first and text[start - 1] != " ":
        start -= 1
    last = min(len(text), end + _WIDEN)
    while end < last and text[end] != " ":
        end += 1
    return text[start:end].strip()


@dataclass(frozen=True)
class _Miss:
    """A quote none of its reads holds, and what the closest of them has instead."""

    url: str
    match: Match
    closest: tuple[str, float] | None
    unsearched: str | None
    truncated: bool


def _message(miss: _Miss, others: int, quote: str) -> str:
    """``quote not on URL: "the quote"; `` and what the page has instead (or why it does not count)."""
    on = miss.url if not others else f"{miss.url} (nor the other {others} cited)"
    note = " (the page was truncated when read)" if miss.truncated else ""
    said = normalise(quote).strip(QUOTE_MARKS)
    part = miss.match.part or said
    passage, score = miss.closest or ("", 0.0)
    at, there = _differ(part, passage) if miss.closest is not None else (0, 0)
    head = f"quote not on {on}{note}: {_shown(said, at if part == said else 0)}"
    if miss.match.reason is not None:
        return f"{head}; {miss.match.reason}"
    if part != said:
        head += f"; its part {_shown(part, at)} is not there"
    if miss.closest is not None:
        return f"{head}; the page's closest passage ({score:.0f}/100): {_shown(passage, there)}"
    if miss.unsearched is not None:
        return f"{head}; no closest passage looked for: {miss.unsearched}"
    return f"{head}; no passage of the page is close to it"


class PassageMissing:
    """A quote must be on the page it cites: verbatim after normalisation (:mod:`gate.checks.verbatim`).

    The typo search and the closest passage shown with a miss share one bound on fuzzy work per
    run (:data:`gate.checks.closest.MAX_RUN_FUZZY_WORK`); past it, quotes are looked for verbatim
    only, which can fail a quote with a typo but never passes a misquote.
    """

    id = "passage_missing"
    description = "A passage attributed to a source is not on that page."

    def run(self, subject: Subject) -> Outcome:
        """One finding per quote (a citation's, or one in quotation marks in the answer) its pages lack."""
        findings = []
        quoted = 0
        seen: set[tuple[str, str]] = set()
        budget = WorkBudget()  # all the run's quotes share one bound on the fuzzy work
        quotes = [(c.quote, (c.url,)) for c in subject.citations if c.quote and c.quote.strip()]
        for quote, urls in [*quotes, *quotations(subject.run.answer)]:
            # Every read of every URL the quote cites: a page read in parts, or again, holds it if any read does.
            reads = [(url, p) for url in urls for p in subject.texts(canonical(url))]
            if not reads:
                continue  # never read: reported by unread_citation / fabricated_url
            # A URL cited again with the same quote (however spaced or cased) gets the same answer.
            keys = {(canonical(url), normalise(quote)) for url in urls}
            if keys & seen:
                continue
            seen |= keys
            quoted += 1
            miss = self._miss(subject, quote, reads, budget)
            if miss is not None:
                findings.append(Finding(self.id, _message(miss, len(urls) - 1, quote), miss.url))
        if not quoted:
            return Outcome(not_checked="no quoted passages on read pages")
        return Outcome(findings=tuple(findings))

    @staticmethod
    def _miss(subject: Subject, quote: str, reads: Sequence[tuple[str, Page]], budget: WorkBudget) -> _Miss | None:
        """None when a read holds the quote; else the miss, with the closest passage of all the reads."""
        misses = []
        for url, page in reads:
            match = subject.index(page).find(quote, budget)
            if match.found:
                return None
            misses.append((url, page, match))
        best: _Miss | None = None
        for url, page, match in misses:
            cut = all(p.truncated for u, p in reads if u == url)
            index = subject.index(page)
            near = None if match.reason is not None else index.closest(match.part or "", budget)
            if isinstance(near, Closest):
                found = (_widened(index.text, near.start, near.end), near.score)
                miss = _Miss(url, match, found, None, cut)
            else:
                miss = _Miss(url, match, None, near, cut)
            if best is None or (miss.closest or ("", -1.0))[1] > (best.closest or ("", -1.0))[1]:
                best = miss
        return best
