"""The judge's quotes, checked by code against the pages the agent read.

A ``supported``, ``partial`` or ``contradicted`` verdict stands only if its quote is on a retrieved
page by the same rule as ``passage_missing`` (:mod:`gate.checks.passage`: verbatim after
normalisation, ellipses, bracketed insertions and rare typos forgiven; a paraphrase is not a quote,
however close, since the judge is asked for a verbatim one and "fall" for "grow" must not stand as
evidence) and holds
at least a quarter of the claim's content words and numbers (:func:`related`); otherwise it is
overruled to ``unsupported``. A quote found on a page the claim cites is ``cited``; found only on
another page it is ``other_source`` (grounded but misattributed); found only in a search snippet it is
``snippet`` (grounded in a snippet: the agent never read the page).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gate.checks.passage import PageIndex, WorkBudget, terms
from gate.judgement import QUOTE_NOT_FOUND, QUOTE_UNRELATED, Claim, ClaimVerdict, Located, Support
from gate.model import Page
from gate.urls import canonical

MIN_COVERAGE = 0.25


@dataclass(frozen=True)
class Graded:
    """A verdict as the judge gave it, before the code checked it."""

    verdict: Support
    evidence: str | None


class Material:
    """The run's pages, each normalised at most once, searched for quotes."""

    def __init__(self, pages: Sequence[Page], snippets: Sequence[tuple[str, str]] = (),
                 index: Callable[[Page], PageIndex] | None = None) -> None:
        """Index ``pages`` lazily by every canonical URL they were read under; ``snippets`` are (URL, text).

        ``index`` gives a page's normalised text (:meth:`gate.checks.base.Subject.index`, shared with
        the checks); None: each page is normalised here, once.
        """
        self._pages: list[tuple[frozenset[str], Page]] = []
        seen: set[str] = set()
        for p in pages:
            keys = frozenset({canonical(p.url)} | ({canonical(p.final_url)} if p.final_url else set()))
            if canonical(p.url) not in seen:
                seen.add(canonical(p.url))
                self._pages.append((keys, p))
        self._indexes: dict[int, PageIndex] = {}
        self._shared = index
        self._snippets = tuple((url, PageIndex(text)) for url, text in snippets)
        self._budget = WorkBudget()  # the run's quotes share one bound, as in passage_missing

    def _index(self, i: int) -> PageIndex:
        found = self._indexes.get(i)
        if found is None:
            page = self._pages[i][1]
            found = self._indexes[i] = self._shared(page) if self._shared is not None else PageIndex(page.text)
        return found

    def locate(self, quote: str, cited: frozenset[str]) -> tuple[Located, str | None]:
        """Where ``quote`` is: on a cited page, on another page, or nowhere (with the page's URL)."""
        order = sorted(range(len(self._pages)), key=lambda i: not (self._pages[i][0] & cited))
        for i in order:
            if self._index(i).find(quote, self._budget).found:
                return ("cited" if self._pages[i][0] & cited else "other_source"), self._pages[i][1].url
        for url, index in self._snippets:
            if index.find(quote, self._budget).found:
                return "snippet", url
        return "not_found", None


def related(quote: str, claim: str) -> bool:
    """True when the quote holds at least ``MIN_COVERAGE`` of the claim's content words and numbers.

    A quote that is on a page but about something else (a page's "mark every claim supported", say)
    is not evidence for the claim.
    """
    want = terms(claim)
    if not want:
        return True
    return len(want & terms(quote)) / len(want) >= MIN_COVERAGE


def check(claim: Claim, graded: Graded | str, material: Material) -> ClaimVerdict:
    """The final verdict on one claim; a string ``graded`` is the reason it is unscored."""
    if isinstance(graded, str):
        return ClaimVerdict(claim.id, None, unscored_reason=graded)
    verdict, evidence = graded.verdict, graded.evidence
    if verdict == "unsupported":
        return ClaimVerdict(claim.id, "unsupported", evidence)

    def overrule(reason: str, located: Located | None = None) -> ClaimVerdict:
        return ClaimVerdict(claim.id, "unsupported", evidence, located=located, overruled=True,
                            overrule_reason=reason, judge_verdict=verdict)

    if evidence is None or not evidence.strip():
        return overrule(QUOTE_NOT_FOUND)
    if not related(evidence, claim.text):
        return overrule(QUOTE_UNRELATED)
    located, url = material.locate(evidence, frozenset(canonical(u) for u in claim.citations))
    if located == "not_found":
        return overrule(QUOTE_NOT_FOUND, located)
    return ClaimVerdict(claim.id, verdict, evidence, located=located, located_url=url)
