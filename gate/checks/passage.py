"""Is a quoted passage really on the page?

Shared by the ``passage_missing`` check and the LLM-judge quote verifier, so both agree on what
"the quote is on the page" means; :func:`terms` (the content words and numbers of a text) is shared
the same way by the evidence selection and the query-survival rules. Pure and offline.
"""

from __future__ import annotations

import html
import re
import unicodedata
from dataclasses import dataclass

from rapidfuzz import fuzz
from rapidfuzz.distance import Indel

__all__ = [
    "MAX_ANCHOR_HITS",
    "MAX_ANCHORS",
    "MAX_FUZZY_QUOTE_CHARS",
    "MAX_FUZZY_SEGMENTS",
    "MAX_FUZZY_WORK",
    "MAX_PAGE_CHARS",
    "MAX_RUN_FUZZY_WORK",
    "Match",
    "NUMBER",
    "PageIndex",
    "WorkBudget",
    "find_passage",
    "normalise",
    "terms",
]

# --------------------------------------------------------------------------------------------------
# Bounds on the work of one quote
# --------------------------------------------------------------------------------------------------

MAX_FUZZY_QUOTE_CHARS = 2_000
"""A quote longer than this (normalised) is looked for exactly only: whole, or every elided part in
order. Not found that way, it is ``"too_large"``: the fuzzy alignment's cost grows with the square of
the quote's length, and a quote this long is a copied passage, which the exact search finds."""

MAX_FUZZY_SEGMENTS = 16
"""A quote elided into more parts than this is looked for exactly only (``"too_large"`` otherwise):
each part would be one more fuzzy scan of the page."""

MAX_PAGE_CHARS = 2_000_000
"""A page longer than this (normalised) is searched exactly only; a quote not on it exactly is
``"too_large"``."""

MAX_FUZZY_WORK = 100_000_000
"""The fuzzy work one quote may spend scanning whole pages, in rapidfuzz's bit-parallel steps
(alignments tried x quote length x 64-character words of the quote), shared by its elided parts:
about a tenth of a second. A part whose full scan would go past what is left is aligned only around
anchors (below), which costs a few tens of milliseconds at most for a 2,000-character quote on a
2 MB page."""

MAX_RUN_FUZZY_WORK = 5_000_000_000
"""The fuzzy work all the quotes of one run may spend together (a :class:`WorkBudget` shared by
them): a few seconds at worst, fifty times what the quotes of an ordinary run spend. Past it, the
run's remaining quotes are looked for exactly only (``"too_large"`` when not found), so a trace
with thousands of long quotes cannot add up to minutes."""

MAX_ANCHORS = 12
"""How many runs of three words, spread over the quote, a bounded alignment looks for on the page."""

MAX_ANCHOR_HITS = 32
"""How many places on the page each anchor is looked at, from the start of the page."""

# The best this many anchored places are aligned exactly (a sliding window a little wider than the
# quote); the rest are only ranked by a plain ratio over a window of the quote's length.
_REFINED = 3


# --------------------------------------------------------------------------------------------------
# normalise()
# --------------------------------------------------------------------------------------------------

_FOLD: dict[str, str] = {}
for _chars, _to in (
    ("‘’‚‛′‹›", "'"),
    ("“”„‟«»″", '"'),
    ("‐‑‒–—―−", "-"),
    # Invisible characters that pages use for hyphenation and layout (e.g. &shy;); they would split words.
    ("\u00ad\u200b\u200c\u200d\u2060\ufeff", ""),
):
    for _c in _chars:
        _FOLD[_c] = _to
# One regex pass with a dict lookup per hit, not str.translate: on a non-ASCII 15,000-character page
# translate costs about 1.2 ms (a mapping lookup for every character) against about 0.1 ms for this.
_FOLD_RE = re.compile("[" + "".join(re.escape(c) for c in _FOLD) + "]")


def _fold(match: re.Match[str]) -> str:
    """The ASCII replacement for one folded character."""
    return _FOLD[match.group()]


def normalise(text: str) -> str:
    """Normalise text for passage matching.

    HTML entities are unescaped, the text is NFKC-normalised (so ``…`` becomes ``...``, which the
    elision splitter handles), typographic quotes and dashes are folded to ASCII, invisible
    characters are removed, all whitespace runs become one space, and the result is lower-cased and
    stripped.
    """
    if "&" in text:
        text = html.unescape(text)
    if not text.isascii():
        # Fold before NFKC so that "″" becomes one '"' rather than two primes; fold again if NFKC changed
        # anything, for the dashes it makes from compatibility characters (e.g. small em dash U+FE58).
        text = _FOLD_RE.sub(_fold, text)
        nfkc = unicodedata.normalize("NFKC", text)
        text = _FOLD_RE.sub(_fold, nfkc) if nfkc != text else text
    # split()/join() collapses the same whitespace as re's \s (both use str.isspace) about 4x faster.
    return " ".join(text.split()).lower()


# --------------------------------------------------------------------------------------------------
# Matching
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Match:
    """Outcome of looking for a passage on a page.

    ``method`` is ``"exact"``, ``"fuzzy"``, ``"none"`` (not found), ``"number_mismatch"`` (a close
    fuzzy match whose numbers differ from the quote's), ``"too_large"`` (not on the page exactly, and
    the quote or the page is past the bounds of the fuzzy match: :data:`MAX_FUZZY_QUOTE_CHARS`,
    :data:`MAX_FUZZY_SEGMENTS`, :data:`MAX_PAGE_CHARS`) or ``"empty"`` (nothing to look for).
    ``score`` is 0-100: 100 for exact, otherwise the best fuzzy alignment score; a miss within 20
    points of the threshold reports its real score, a worse miss reports 0 (the scan's cutoff skips
    measuring it). For an elided quote it is the lowest segment score. ``start``/``end`` are
    offsets into the normalised page, or None when the passage was not found (or was empty).
    ``too_large`` says, for method ``"too_large"``, which bound the quote or the page is past.
    """

    found: bool
    score: float
    method: str
    start: int | None
    end: int | None
    too_large: str | None = None


_QUOTES = " '\""
_ELISION = re.compile(r"\s*(?:\[\s*(?:\.(?: ?\.){2,})\s*\]|\(\s*(?:\.(?: ?\.){2,})\s*\)|\.(?: ?\.){2,})\s*")
_MIN_SEGMENT = 3
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
"""A number as the passage rule reads it: a quoted number must stand on the page exactly as written."""
# How far past a fuzzy alignment's edges a number of the quote may sit: alignments can stop a few
# characters short of a number at the quote's first or last word.
_NUMBER_SLACK = 12
# Misses within this many points of the threshold get their real score, so a report can say "best
# match 72/100" for a near miss; lower scores are not measured (reported as 0) because a tighter
# cutoff lets rapidfuzz prune. Measured cost: about +25% on misses, nothing on hits.
_NEAR_MISS_BAND = 20.0


def _full_scan_work(needle: int, hay: int) -> int:
    """What a full fuzzy scan costs at most: alignments tried x quote length x its 64-character words.

    ``partial_ratio`` slides a quote-long window along the page and also tries the partial overlaps
    at both ends, so a scan tries about ``hay + needle`` alignments.
    """
    return (hay + needle) * needle * -(-needle // 64)


def _anchor_starts(needle: str, hay: str) -> list[int]:
    """Where on ``hay`` an alignment of ``needle`` may start, judged from where its anchors are.

    The anchors are runs of three words spread evenly over the quote: rarer on a page than single
    words, and a paraphrase that changes some words keeps others.
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


def _anchored_work(needle: int, hay: int) -> int:
    """What :func:`_anchored` costs at most, in the same steps as :func:`_full_scan_work`."""
    return MAX_ANCHORS * hay + (MAX_ANCHORS * MAX_ANCHOR_HITS + 3 * _REFINED) * needle * -(-needle // 64)


class WorkBudget:
    """The fuzzy work left to a group of quotes (one run's): share one across their ``find`` calls."""

    __slots__ = ("left",)

    def __init__(self, work: int = MAX_RUN_FUZZY_WORK) -> None:
        """Start with ``work`` steps (see :data:`MAX_RUN_FUZZY_WORK`)."""
        self.left = work


def _anchored(needle: str, hay: str, cutoff: float) -> tuple[float, int, int] | None:
    """The best alignment of ``needle`` near the places its anchors are on ``hay`` (bounded work).

    Every candidate start is ranked by a plain ratio over a window of the quote's length; the best
    :data:`_REFINED` are aligned inside a window a little wider than the quote (:func:`_aligned`).
    Each step costs about the quote's length squared over 64, whatever the page holds.
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


def _locate(needle: str, text: str, lo: int, threshold: float, budget: list[int],
            run: WorkBudget | None) -> tuple[float, int, int]:
    """Best (score, start, end) for ``needle`` in ``text`` at or after ``lo``.

    The score may be below ``threshold`` (a near miss); it is 0, with start = end = -1, when nothing
    scored within ``_NEAR_MISS_BAND`` of the threshold, and -1 when ``run`` has not enough work left.

    The fuzzy scan covers the whole remaining page while ``budget`` (one item: the work left to the
    quote, see :data:`MAX_FUZZY_WORK`) allows it. Narrowing every scan to windows around rare
    "anchor" words was tried and measured: rapidfuzz 3 scans a 15,000-character page with a cutoff
    almost as fast as one window (about 0.3 vs 0.2 ms for 250 characters), so the anchoring overhead
    made the whole check slower, and a window missed a real paraphrase the full scan found. Anchors
    are therefore only the bound for the rare quote and page whose full scan would cost too much.
    """
    i = text.find(needle, lo)
    if i != -1:
        return 100.0, i, i + len(needle)
    cutoff = max(0.0, threshold - _NEAR_MISS_BAND)
    hay = text[lo:] if lo else text
    if len(needle) > len(hay):
        # partial_ratio aligns the shorter string inside the longer one: given a quote longer than
        # the page, it would find the page inside the quote and score 100. The quote must be on the
        # page, so the most it can be compared with is everything that is left of the page.
        whole = fuzz.ratio(needle, hay, score_cutoff=cutoff) if hay else 0.0
        return (float(whole), lo, len(text)) if whole else (0.0, -1, -1)
    work = _full_scan_work(len(needle), len(hay))
    full = work <= budget[0]
    if not full:
        work = _anchored_work(len(needle), len(hay))
    if run is not None:
        if work > run.left:
            return -1.0, -1, -1
        run.left -= work
    if full:
        budget[0] -= work
        res = fuzz.partial_ratio_alignment(needle, hay, score_cutoff=cutoff)
        found = None if res is None else (float(res.score), res.dest_start, res.dest_end)
    else:
        found = _anchored(needle, hay, cutoff)
    if found is None:
        return 0.0, -1, -1
    return found[0], lo + found[1], lo + found[2]


def _exact_in_order(segments: list[str], text: str) -> tuple[int, int] | None:
    """(start, end) of ``segments`` found exactly on ``text`` in the order given, or None."""
    lo = 0
    start = None
    for seg in segments:
        i = text.find(seg, lo)
        if i == -1:
            return None
        start = i if start is None else start
        lo = i + len(seg)
    return (start if start is not None else 0), lo


def _numbers_differ(segment: str, text: str, start: int, end: int) -> bool:
    """True when a number of ``segment`` is not in the aligned part of the page.

    A fuzzy score forgives a changed word, but "$4.2bn" for "$4.1bn" scores 80 and "1,284" for
    "1,234" scores 92: in a citation a number, date or figure must be on the page as quoted.
    """
    numbers = NUMBER.findall(segment)
    if not numbers:
        return False
    window = text[max(0, start - _NUMBER_SLACK):end + _NUMBER_SLACK]
    found = set(NUMBER.findall(window))
    return any(n not in found for n in numbers)


def _past_bounds(passage: str, segments: int, text: str) -> str | None:
    """Which bound of the fuzzy match a quote or its page is past, in words, or None."""
    if len(passage) > MAX_FUZZY_QUOTE_CHARS:
        return f"the quote has {len(passage):,} characters, over the {MAX_FUZZY_QUOTE_CHARS:,} of a fuzzy match"
    if segments > MAX_FUZZY_SEGMENTS:
        return f"the quote is elided into {segments} parts, over the {MAX_FUZZY_SEGMENTS} of a fuzzy match"
    if len(text) > MAX_PAGE_CHARS:
        return f"the page has {len(text):,} characters of text, over the {MAX_PAGE_CHARS:,} of a fuzzy match"
    return None


_RUN_SPENT = "the run's quotes have used up the fuzzy-match work of one run"


def _check(passage: str, text: str, threshold: float, run: WorkBudget | None = None) -> Match:
    """Match an already-normalised passage against a page."""
    passage = passage.strip(_QUOTES)
    if not passage:
        return Match(True, 100.0, "empty", None, None)
    i = text.find(passage)
    if i != -1:
        return Match(True, 100.0, "exact", i, i + len(passage))
    segments = [passage]
    parts = _ELISION.split(passage)
    if len(parts) > 1:
        # Tiny fragments left around an elision ("a ... b") carry no evidence and would match anywhere.
        segments = [seg for seg in (part.strip(_QUOTES) for part in parts) if len(seg) >= _MIN_SEGMENT]
        if not segments:
            return Match(True, 100.0, "empty", None, None)
    bound = _past_bounds(passage, len(segments), text)
    if bound is None and run is not None and run.left <= 0:
        bound = _RUN_SPENT
    if bound is not None:
        # Past the fuzzy match's bounds the quote must be on the page exactly (a copied passage is).
        span = _exact_in_order(segments, text)
        if span is None:
            return Match(False, 0.0, "too_large", None, None, too_large=bound)
        return Match(True, 100.0, "exact", span[0], span[1])
    # Segments must appear in the order quoted, each after the previous one's end.
    lo = 0
    score = 100.0
    start: int | None = None
    all_exact = True
    budget = [MAX_FUZZY_WORK]
    for seg in segments:
        seg_score, seg_start, seg_end = _locate(seg, text, lo, threshold, budget, run)
        if seg_score < 0:
            span = _exact_in_order(segments, text)
            if span is None:
                return Match(False, 0.0, "too_large", None, None, too_large=_RUN_SPENT)
            return Match(True, 100.0, "exact", span[0], span[1])
        score = min(score, seg_score)
        if seg_score < threshold or seg_start < 0:
            return Match(False, score, "none", None, None)
        exact = seg_score == 100.0 and text[seg_start:seg_end] == seg
        if not exact and _numbers_differ(seg, text, seg_start, seg_end):
            return Match(False, score, "number_mismatch", None, None)
        all_exact = all_exact and exact
        if start is None:
            start = seg_start
        lo = seg_end
    return Match(True, score, "exact" if all_exact else "fuzzy", start, lo)


def find_passage(
    passage: str, page: str, threshold: float = 80.0, *, page_is_normalised: bool = False
) -> Match:
    """Look for ``passage`` on ``page``: exactly, segment by segment across an elision, or fuzzily.

    Both texts are normalised with :func:`normalise` (the page only if ``page_is_normalised`` is
    false) and surrounding quote marks are stripped from the passage. An exact substring wins. A
    passage with an elision (``...``, ``…``, ``[...]``) must have every segment (of 3+ characters)
    on the page in the quoted order; its score is the lowest segment score. Otherwise the best fuzzy
    alignment (``rapidfuzz.fuzz.partial_ratio_alignment``) must score at least ``threshold`` and
    every number in the passage must be in the aligned text (``"number_mismatch"`` otherwise); a
    passage longer than the page is scored against the whole page (never the page inside it). An
    empty passage has nothing to check and is reported found with method ``"empty"``.

    The work is bounded whatever the texts: a passage longer than :data:`MAX_FUZZY_QUOTE_CHARS`, with
    more than :data:`MAX_FUZZY_SEGMENTS` elided parts, or on a page longer than
    :data:`MAX_PAGE_CHARS` is looked for exactly only (``"too_large"`` when not found), and a fuzzy
    scan that would cost more than :data:`MAX_FUZZY_WORK` looks only around anchor words.
    """
    text = page if page_is_normalised else normalise(page)
    return _check(normalise(passage), text, threshold)


class PageIndex:
    """One page normalised once, for checking many passages against it."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        """Normalise ``text`` (the raw page) once; ``self.text`` is what match offsets refer to."""
        self.text = normalise(text)

    def find(self, passage: str, threshold: float = 80.0, budget: WorkBudget | None = None) -> Match:
        """Look for ``passage`` on this page; same rules and result as :func:`find_passage`.

        With a ``budget``, the fuzzy work is also charged to it; once it is spent, passages are
        looked for exactly only (``"too_large"`` when not found).
        """
        return _check(normalise(passage), self.text, threshold, budget)


# --------------------------------------------------------------------------------------------------
# terms()
# --------------------------------------------------------------------------------------------------

_TOKEN = re.compile(r"\d+(?:[.,]\d+)*|[^\W\d_]{3,}")
STOPWORDS = frozenset({
    "the", "and", "for", "are", "but", "not", "you", "all", "any", "can", "had", "her", "was", "one", "our",
    "out", "has", "his", "how", "its", "may", "new", "now", "old", "see", "two", "who", "did", "get", "let",
    "say", "she", "too", "use", "that", "with", "have", "this", "will", "your", "from", "they", "been",
    "more", "when", "were", "what", "which", "their", "there", "than", "then", "them", "into", "some",
    "could", "would", "about", "other", "these", "those", "also", "only", "over", "such", "after", "most",
    "very", "where", "while", "being", "both", "each", "just", "like", "made", "many", "much", "must",
    "said", "should", "since", "still", "through", "under", "until", "upon", "within", "without",
})


def terms(text: str) -> set[str]:
    """Content words and numbers of a text, normalised (numbers lose thousands separators)."""
    # Each distinct token once: a stopword is all letters, so the set difference drops only words, and
    # only a number can hold a comma (a word token is letters alone).
    out = set(_TOKEN.findall(normalise(text)))
    out -= STOPWORDS
    grouped = [tok for tok in out if "," in tok]
    if grouped:
        out.difference_update(grouped)
        out.update(tok.replace(",", "") for tok in grouped)
    return out
