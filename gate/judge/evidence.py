"""Which passages of the retrieved pages the grader sees.

Every page the agent read is a source, labelled with its URL. The grader does not get whole pages:
each page is cut into passages of about ``CHUNK_CHARS`` characters, and for every claim the code
keeps the passages that share the most (IDF-weighted, numbers counted double) words with it: the
best one on each page the claim cites, then the best ones anywhere, taken in turns across claims until
the budget (``PER_CLAIM_CHARS`` per claim, at most ``judge.max_evidence_chars``) is spent. This is
what keeps one grading call small; the quotes the judge returns are still verified against the whole
page text, so an excerpt can only hide support, never invent it.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from gate.checks.passage import terms
from gate.judgement import Claim
from gate.model import Page, SearchResult
from gate.urls import canonical

CHUNK_CHARS = 480
PER_CLAIM_CHARS = 1500
PASSAGES_PER_CLAIM = 3
MAX_SNIPPETS = 30
SNIPPET_CHARS = 400
GAP = " […] "

_BOUNDARY = re.compile(r"\n\s*\n|(?<=[.!?])\s+")


@dataclass(frozen=True)
class Source:
    """One retrieved page as the grader sees it: ``S<number>``, its URL, and the selected passages."""

    number: int
    url: str
    keys: frozenset[str]
    """every canonical URL the page was read under (requested and final)"""
    excerpt: str



def _pieces(text: str) -> Iterator[tuple[int, int]]:
    start = 0
    for m in _BOUNDARY.finditer(text):
        if m.start() > start:
            yield start, m.start()
        start = m.end()
    if start < len(text):
        yield start, len(text)


def chunks(text: str) -> list[tuple[int, int]]:
    """Spans of ``text`` of at most about ``CHUNK_CHARS``, cut at sentence or paragraph ends."""
    out: list[tuple[int, int]] = []
    cur: tuple[int, int] | None = None
    for a, b in _pieces(text):
        while b - a > CHUNK_CHARS:
            cut = text.rfind(" ", a + 1, a + CHUNK_CHARS)
            cut = cut if cut > a else a + CHUNK_CHARS
            if cur is not None:
                out.append(cur)
                cur = None
            out.append((a, cut))
            a = cut + 1 if text[cut : cut + 1] == " " else cut
        if a >= b:
            continue
        if cur is not None and b - cur[0] <= CHUNK_CHARS:
            cur = (cur[0], b)
        else:
            if cur is not None:
                out.append(cur)
            cur = (a, b)
    if cur is not None:
        out.append(cur)
    return out


def _excerpt(text: str, spans: list[tuple[int, int]]) -> str:
    if not spans:
        return ""
    spans.sort()
    parts = [text[spans[0][0] : spans[0][1]]]
    for (_, prev_end), (a, b) in zip(spans, spans[1:], strict=False):
        parts.append(" " if not text[prev_end:a].strip() else GAP)
        parts.append(text[a:b])
    head = GAP.lstrip() if text[: spans[0][0]].strip() else ""
    tail = GAP.rstrip() if text[spans[-1][1] :].strip() else ""
    return head + "".join(parts) + tail


def _unique(pages: Sequence[Page]) -> list[Page]:
    """The pages, one per canonical URL, in order."""
    unique: list[Page] = []
    seen: set[str] = set()
    for p in pages:
        if canonical(p.url) not in seen:
            seen.add(canonical(p.url))
            unique.append(p)
    return unique


def _wishes(claim: Claim, keys: Sequence[frozenset[str]], bags: Sequence[Sequence[set[str]]],
            df: Counter[str], n: int) -> list[tuple[int, int]]:
    """The passages (page, chunk) a claim would be graded on, best first: the best passage of each page
    it cites, then its best-scored passages anywhere."""
    want = terms(claim.text)
    # IDF of the claim's own terms only (a term on no passage weighs nothing and matches none).
    weight = {t: (math.log((n + 1) / (df[t] + 0.5)) if t in df else 0.0) * (2.0 if t[0].isdigit() else 1.0)
              for t in want}
    # fsum: exactly rounded whatever the set's iteration order (which varies with the hash seed),
    # so the same run always selects the same passages and renders the same cache key. A passage
    # that shares no term with the claim scores 0 and is never ranked, so it is not scored.
    scored = [
        (math.fsum(weight[t] for t in want & bag), i, j)
        for i, page_bags in enumerate(bags) for j, bag in enumerate(page_bags) if not want.isdisjoint(bag)
    ]
    ranked = sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1], s[2]))
    cited = {canonical(u) for u in claim.citations}
    order: list[tuple[int, int]] = []
    for i, k in enumerate(keys):
        if k & cited:
            best = next(((ii, jj) for _, ii, jj in ranked if ii == i), None)
            if best is not None:
                order.append(best)
    order += [(i, j) for _, i, j in ranked[:PASSAGES_PER_CLAIM] if (i, j) not in order]
    return order


def _within_budget(wishes: Sequence[Sequence[tuple[int, int]]], spans: Sequence[Sequence[tuple[int, int]]],
                   budget: int) -> dict[int, list[tuple[int, int]]]:
    """Each page's chosen spans: the claims take turns, each its next wish, while the budget lasts."""
    chosen: dict[int, list[tuple[int, int]]] = {}
    taken: set[tuple[int, int]] = set()
    used = 0
    for rank in range(max((len(w) for w in wishes), default=0)):
        for order in wishes:
            if rank >= len(order) or order[rank] in taken:
                continue
            i, j = order[rank]
            a, b = spans[i][j]
            if used + (b - a) > budget:
                continue
            taken.add((i, j))
            used += b - a
            chosen.setdefault(i, []).append((a, b))
    return chosen


def select_sources(pages: Sequence[Page], claims: Sequence[Claim], budget: int) -> tuple[Source, ...]:
    """The sources for grading ``claims``, with passages chosen within ``budget`` characters."""
    unique = _unique(pages)
    keys = [frozenset({canonical(p.url), canonical(p.final_url or p.url)}) for p in unique]
    spans = [chunks(p.text) for p in unique]
    bags = [[terms(p.text[a:b]) for a, b in s] for p, s in zip(unique, spans, strict=True)]
    df: Counter[str] = Counter()
    for page_bags in bags:
        for bag in page_bags:
            df.update(bag)
    n = sum(len(b) for b in bags)
    wishes = [_wishes(claim, keys, bags, df, n) for claim in claims]
    chosen = _within_budget(wishes, spans, min(budget, PER_CLAIM_CHARS * max(1, len(claims))))
    return tuple(
        Source(number=i + 1, url=p.url, keys=keys[i], excerpt=_excerpt(p.text, chosen.get(i, [])))
        for i, p in enumerate(unique)
    )


def select_snippets(results: Sequence[SearchResult]) -> tuple[tuple[str, str], ...]:
    """(URL, snippet) of the search results, one per canonical URL, in result order, capped.

    Snippets are what the agent saw of a result without reading the page; the grader sees them
    labelled as snippets, and a claim only they support is grounded in a snippet, not in a page.
    """
    out: dict[str, tuple[str, str]] = {}
    for r in results:
        text = " ".join(r.snippet.split())[:SNIPPET_CHARS]
        if text and canonical(r.url) not in out:
            out[canonical(r.url)] = (r.url, text)
    return tuple(out.values())[:MAX_SNIPPETS]
