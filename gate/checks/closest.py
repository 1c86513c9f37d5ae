"""The page's closest passage to a quote that is not on it, with bounded work. Pure.

A quote is on a page or not by the verbatim rule (:mod:`gate.checks.verbatim`); this module only
finds what a reader should see beside a quote that is not there: the stretch of the page most like
it (``rapidfuzz.fuzz.partial_ratio_alignment``). The fuzzy alignment's cost grows with the square
of the quote's length, so its work is bounded per quote and per run (:class:`WorkBudget`); past the
bounds the closest passage is not looked for, which changes no verdict.
"""

from __future__ import annotations

from dataclasses import dataclass

from rapidfuzz import fuzz
from rapidfuzz.distance import Indel

__all__ = [
    "CLOSEST_MIN_SCORE",
    "Closest",
    "MAX_ANCHOR_HITS",
    "MAX_ANCHORS",
    "MAX_FUZZY_QUOTE_CHARS",
    "MAX_FUZZY_SEGMENTS",
    "MAX_FUZZY_WORK",
    "MAX_PAGE_CHARS",
    "MAX_RUN_FUZZY_WORK",
    "WorkBudget",
    "closest_passage",
    "past_bounds",
]

MAX_FUZZY_QUOTE_CHARS = 2_000
"""A quote part longer than this (normalised) gets no typo search and no closest passage: the
fuzzy alignment's cost grows with the square of its length. It must be on the page verbatim."""

MAX_FUZZY_SEGMENTS = 16
"""A quote elided into more parts than this gets no typo search and no closest passage."""

MAX_PAGE_CHARS = 2_000_000
"""On a page longer than this (normalised) a quote gets no typo search and no closest passage."""

MAX_FUZZY_WORK = 100_000_000
"""The fuzzy work one quote may spend, in rapidfuzz's bit-parallel steps (alignments tried x quote
length x 64-character words of the quote): about a tenth of a second. A closest-passage search whose
full scan would go past it is aligned only around anchors (below)."""

MAX_RUN_FUZZY_WORK = 5_000_000_000
"""The fuzzy work all the quotes of one run may spend together (a :class:`WorkBudget` shared by
them): a few seconds at worst. Past it, the run's remaining quotes are looked for verbatim only: no
typo is forgiven and no closest passage is shown, so a trace with thousands of long quotes cannot
add up to minutes."""

MAX_ANCHORS = 12
"""How many runs of three words, spread over the quote, a bounded alignment looks for on the page."""

MAX_ANCHOR_HITS = 32
"""How many places on the page each anchor is looked at, from the start of the page."""

CLOSEST_MIN_SCORE = 60.0
"""A passage less like the quote than this (0-100) is not shown as its closest: there is none."""

# The best this many anchored places are aligned exactly (a sliding window a little wider than the
# quote); the rest are only ranked by a plain ratio over a window of the quote's length.
_REFINED = 3


class WorkBudget:
    """The fuzzy work left to a group of quotes (one run's): share one across their ``find`` calls."""

    __slots__ = ("left",)

    def __init__(self, work: int = MAX_RUN_FUZZY_WORK) -> None:
        """Start with ``work`` steps (see :data:`MAX_RUN_FUZZY_WORK`)."""
        self.left = work

    def spend(self, work: int) -> bool:
        """Take ``work`` steps if that many are left; False (nothing taken) when they are not."""
        if work > self.left:
            return False
        self.left -= work
        return True


@dataclass(frozen=True)
class Closest:
    """The page's closest passage to a quote: its 0-100 likeness and its span on the normalised page."""

    score: float
    start: int
    end: int


def past_bounds(part: str, segments: int, text: str) -> str | None:
    """Which bound of the fuzzy work a quote part or its page is past, in words, or None."""
    if len(part) > MAX_FUZZY_QUOTE_CHARS:
        return f"the quote has {len(part):,} characters, over the {MAX_FUZZY_QUOTE_CHARS:,} of a fuzzy search"
    if segments > MAX_FUZZY_SEGMENTS:
        return f"the quote is elided into {segments} parts, over the {MAX_FUZZY_SEGMENTS} of a fuzzy search"
    if len(text) > MAX_PAGE_CHARS:
        return f"the page has {len(text):,} characters of text, over the {MAX_PAGE_CHARS:,} of a fuzzy search"
    return None


def _full_scan_work(needle: int, hay: int) -> int:
    """What a full fuzzy scan costs at most: alignments tried x quote length x its 64-character words.

    ``partial_ratio`` slides a quote-long window along the page and also tries the partial overlaps
    at both ends, so a scan tries about ``hay + needle`` alignments.
    """
    return (hay + needle) * needle * -(-needle // 64)


def _anchored_work(needle: int, hay: int) -> int:
    """What :func:`_anchored` costs at most, in the same steps as :func:`_full_scan_work`."""
    return MAX_ANCHORS * hay + (MAX_ANCHORS * MAX_ANCHOR_HITS + 3 * _REFINED) * needle * -(-needle // 64)


def _anchor_starts(needle: str, hay: str) -> list[int]:
    """Where on ``hay`` an alignment of ``needle`` may start, judged from where its anchors are.

    The anchors are runs of three words spread evenly over the quote: rarer on a page than single
    words, and a misquote that changes some words keeps others.
    """
    words = needle.split(" ")
    offsets = [0]
    for w in words[:-1]:
        offsets.append(offsets[-1] + len(w) + 1)
    runs = max(1, len(words) - 2)
    picks = sorted({round(k * (runs - 1) / max(1, MAX_ANCHORS - 1)) for k in range(MAX_ANCHORS)})
    last = len(hay) - len(needle)
    starts: set[int] = set()
    for k in picks:
        anchor = " ".join(words[k:k + 3])
        i = hay.find(anchor)
        hits = 0
        while i != -1 and hits < MAX_ANCHOR_HITS:
            starts.add(min(max(0, i - offsets[k]), last))
            hits += 1
            i = hay.find(anchor, i + 1)
    return sorted(starts)


def _aligned(needle: str, window: str) -> tuple[float, int, int]:
    """The quote aligned inside ``window`` by its longest common subsequence: (score, start, end).

    The span runs from the first to the last run of 4+ matching characters, so stray single-letter
    matches in the window's margins do not stretch it. Common words in a margin can still stretch
    one end, so a quote-long span at either end is scored too; the best plain ratio wins.
    """
    blocks = [(b.dest_start, b.dest_end) for b in Indel.opcodes(needle, window)
              if b.tag == "equal" and b.dest_end - b.dest_start >= 4]
    if not blocks:
        return 0.0, 0, 0
    a, b = blocks[0][0], blocks[-1][1]
    m = len(needle)
    spans = {(a, b), (max(a, b - m), b), (a, min(b, a + m))}
    return max((float(fuzz.ratio(needle, window[x:y])), x, y) for x, y in spans)


def _anchored(needle: str, hay: str, cutoff: float) -> tuple[float, int, int] | None:
    """The best alignment of ``needle`` near the places its anchors are on ``hay`` (bounded work).

    Every candidate start is ranked by a plain ratio over a window of the quote's length; the best
    :data:`_REFINED` are aligned inside a window a little wider than the quote (:func:`_aligned`).
    """
    m, n = len(needle), len(hay)
    ranked = sorted(((fuzz.ratio(needle, hay[s:s + m]), s) for s in _anchor_starts(needle, hay)), reverse=True)
    slack = max(16, m // 4)
    best: tuple[float, int, int] | None = None
    for _, s in ranked[:_REFINED]:
        lo = max(0, s - slack)
        score, a, b = _aligned(needle, hay[lo:min(n, s + m + slack)])
        if score >= cutoff and (best is None or score > best[0]):
            best = (score, lo + a, lo + b)
    return best


def closest_passage(needle: str, text: str, run: WorkBudget | None = None) -> Closest | None | str:
    """The stretch of ``text`` most like ``needle`` (both normalised), scoring at least :data:`CLOSEST_MIN_SCORE`.

    None when no stretch is that close; a string (the bound, in words) when it was not looked for
    because the needle or the page is past :func:`past_bounds` or ``run`` has not enough work left.
    The full scan covers the whole page while :data:`MAX_FUZZY_WORK` allows it, else only the places
    the needle's anchors are. A needle longer than the page is compared with the whole page (never
    the page inside the needle).
    """
    bound = past_bounds(needle, 1, text)
    if bound is not None:
        return bound
    if not needle or not text:
        return None
    if len(needle) > len(text):
        whole = fuzz.ratio(needle, text, score_cutoff=CLOSEST_MIN_SCORE)
        return Closest(float(whole), 0, len(text)) if whole else None
    work = _full_scan_work(len(needle), len(text))
    full = work <= MAX_FUZZY_WORK
    if not full:
        work = _anchored_work(len(needle), len(text))
    if run is not None and not run.spend(work):
        return "the run's quotes have used up the fuzzy-search work of one run"
    if full:
        res = fuzz.partial_ratio_alignment(needle, text, score_cutoff=CLOSEST_MIN_SCORE)
        if res is None:
            return None
        # partial_ratio's window is the quote's length: a page passage a little longer than the quote
        # loses its ends. Aligned again in a window a little wider, it gets them back.
        slack = max(16, len(needle) // 4)
        lo = max(0, res.dest_start - slack)
        score, a, b = _aligned(needle, text[lo:res.dest_end + slack])
        if score >= res.score:
            return Closest(score, lo + a, lo + b)
        return Closest(float(res.score), res.dest_start, res.dest_end)
    found = _anchored(needle, text, CLOSEST_MIN_SCORE)
    return None if found is None else Closest(*found)
