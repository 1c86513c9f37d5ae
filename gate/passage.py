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

__all__ = ["Match", "PageIndex", "find_passage", "normalise", "terms"]

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
    fuzzy match whose numbers differ from the quote's) or ``"empty"`` (nothing to look for).
    ``score`` is 0-100: 100 for exact, otherwise the best fuzzy alignment score; a miss within 20
    points of the threshold reports its real score, a worse miss reports 0 (the scan's cutoff skips
    measuring it). For an elided quote it is the lowest segment score. ``start``/``end`` are
    offsets into the normalised page, or None when the passage was not found (or was empty).
    """

    found: bool
    score: float
    method: str
    start: int | None
    end: int | None


_QUOTES = " '\""
_ELISION = re.compile(r"\s*(?:\[\s*(?:\.(?: ?\.){2,})\s*\]|\(\s*(?:\.(?: ?\.){2,})\s*\)|\.(?: ?\.){2,})\s*")
_MIN_SEGMENT = 3
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
# How far past a fuzzy alignment's edges a number of the quote may sit: alignments can stop a few
# characters short of a number at the quote's first or last word.
_NUMBER_SLACK = 12
# Misses within this many points of the threshold get their real score, so a report can say "best
# match 72/100" for a near miss; lower scores are not measured (reported as 0) because a tighter
# cutoff lets rapidfuzz prune. Measured cost: about +25% on misses, nothing on hits.
_NEAR_MISS_BAND = 20.0


def _locate(needle: str, text: str, lo: int, threshold: float) -> tuple[float, int, int]:
    """Best (score, start, end) for ``needle`` in ``text`` at or after ``lo``.

    The score may be below ``threshold`` (a near miss); it is 0, with start = end = -1, when nothing
    scored within ``_NEAR_MISS_BAND`` of the threshold.

    The fuzzy scan covers the whole remaining page. Narrowing it first to ~3x-length windows around
    rare "anchor" words was tried and measured: rapidfuzz 3 scans a 15,000-character page with a
    cutoff almost as fast as one window (about 0.3 vs 0.2 ms for 250 characters), so the anchoring
    overhead made the whole check slower, and a window missed a real paraphrase the full scan found.
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
    res = fuzz.partial_ratio_alignment(needle, hay, score_cutoff=cutoff)
    if res is None:
        return 0.0, -1, -1
    return float(res.score), lo + res.dest_start, lo + res.dest_end


def _numbers_differ(segment: str, text: str, start: int, end: int) -> bool:
    """True when a number of ``segment`` is not in the aligned part of the page.

    A fuzzy score forgives a changed word, but "$4.2bn" for "$4.1bn" scores 80 and "1,284" for
    "1,234" scores 92: in a citation a number, date or figure must be on the page as quoted.
    """
    numbers = _NUMBER.findall(segment)
    if not numbers:
        return False
    window = text[max(0, start - _NUMBER_SLACK):end + _NUMBER_SLACK]
    found = set(_NUMBER.findall(window))
    return any(n not in found for n in numbers)


def _check(passage: str, text: str, threshold: float) -> Match:
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
    # Segments must appear in the order quoted, each after the previous one's end.
    lo = 0
    score = 100.0
    start: int | None = None
    all_exact = True
    for seg in segments:
        seg_score, seg_start, seg_end = _locate(seg, text, lo, threshold)
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
    """
    text = page if page_is_normalised else normalise(page)
    return _check(normalise(passage), text, threshold)


class PageIndex:
    """One page normalised once, for checking many passages against it."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        """Normalise ``text`` (the raw page) once; ``self.text`` is what match offsets refer to."""
        self.text = normalise(text)

    def find(self, passage: str, threshold: float = 80.0) -> Match:
        """Look for ``passage`` on this page; same rules and result as :func:`find_passage`."""
        return _check(normalise(passage), self.text, threshold)


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
    out = set()
    for tok in _TOKEN.findall(normalise(text)):
        if tok[0].isdigit():
            out.add(tok.replace(",", ""))
        elif tok not in STOPWORDS:
            out.add(tok)
    return out
