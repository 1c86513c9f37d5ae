"""The quote rule: a quoted passage is on its page verbatim, or it is not on it. Pure.

Both texts come already normalised (:func:`gate.checks.passage.normalise`: Unicode forms, case,
whitespace, quote and dash styles, invisible characters), so what is left to forgive here is what a
quoter writes on purpose and one kind of accident:

- **an ellipsis** (``...``, ``…``, ``[...]``, ``(...)``) stands for omitted text: the parts around it
  are found in the order quoted. Omitted text that stays inside one sentence (no ``.``, ``!`` or
  ``?`` in it) must hold no negation: "the drug is ... safe" is not a quote of "the drug is not safe";
- **a square-bracketed insertion** (``[the Bank]``, ``[sic]``, ``[t]he``) is the quoter's own words:
  it stands for at most :data:`MAX_INSERTION_GAP` characters of the page, which must hold no
  negation; the insertion holds no negation itself, nor a number that the text it stands for lacks
  (a bare reference marker such as ``[12]`` is nothing);
- **typos**: a part of at least 40 characters may differ from the page by one single-character
  edit per 40 characters, never in a number, a name or a negation (:mod:`gate.checks.typos`).

Anything else, however similar the characters, is not the page's text. A part must start and end
where the page's words do ("ever approved" is not in "never approved"), unless a bracket is glued to
it. The work is bounded: typos are looked for only in parts of at most
:data:`gate.checks.closest.MAX_FUZZY_QUOTE_CHARS` and charged to the run's :class:`WorkBudget`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from gate.checks.closest import MAX_FUZZY_QUOTE_CHARS, MAX_FUZZY_SEGMENTS, MAX_PAGE_CHARS, WorkBudget
from gate.checks.typos import TYPO_EVERY, is_negation, typo_spans

__all__ = [
    "ELISION",
    "MAX_INSERTION_GAP",
    "MAX_PLACEMENTS",
    "NUMBER",
    "QUOTE_MARKS",
    "Found",
    "Missed",
    "QuoteParts",
    "Segment",
    "locate",
    "on_word_edges",
    "split_quote",
]

MAX_INSERTION_GAP = 60
"""The most characters of the page one square-bracketed insertion may stand for."""

MAX_PLACEMENTS = 2_000
"""The most places one quote's parts are tried at: only bracketed insertions between short, common
parts come near it. Past it the quote is not found (and the message says why)."""

QUOTE_MARKS = " '\""
"""Stripped from both ends of a quote (normalised, so typographic marks are already ASCII)."""

ELISION = re.compile(r"\[ ?\.(?: ?\.){2,} ?\]|\( ?\.(?: ?\.){2,} ?\)|\.(?: ?\.){2,}")
"""An ellipsis in a normalised quote (one space at most between its marks): three or more dots,
spaced or not, bare or in brackets. The parts around it are stripped of their spaces."""

_BRACKET = re.compile(r"\[([^\[\]]*)\]")
_MIN_SEGMENT = 3
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
"""A number as the quote rule reads it (``1,234`` and ``4.2`` are one number each)."""
_MARKER = re.compile(r"[\d\s,;–-]*")
_SENTENCE_END = re.compile(r"[.!?]")
# Omitted text longer than this is not "inside one sentence", full stop or not (and a page with no
# full stop cannot make every placement scan megabytes for negations).
_ONE_SENTENCE = 400


def _negates(text: str) -> bool:
    return any(is_negation(w) for w in text.split())


@dataclass(frozen=True)
class _Piece:
    text: str
    open_left: bool
    """glued to a bracket on its left ("[t]he"): may start inside a word of the page"""
    open_right: bool
    typos: int = 0


@dataclass(frozen=True)
class Segment:
    """One part of a quote between ellipses: its pieces, and the bracketed insertions around them."""

    text: str
    """the part as quoted (normalised), brackets included"""
    pieces: tuple[_Piece, ...]
    insertions: tuple[str, ...]
    """the insertion before each piece but the first"""
    lead: str | None = None
    trail: str | None = None


@dataclass(frozen=True)
class QuoteParts:
    """A normalised quote read for the search: its parts in order, or the reason no page can hold it."""

    segments: tuple[Segment, ...]
    problem: str | None = None


@dataclass(frozen=True)
class Found:
    """Where the quote is: ``start``/``end`` on the normalised page, and how many typos were forgiven."""

    start: int
    end: int
    typos: int = 0


@dataclass(frozen=True)
class Missed:
    """The quote is not on the page: the first part that is not (its index), and why, when it is not plain."""

    segment: int
    reason: str | None = None


def _segment(part: str, typos_allowed: bool, least: int) -> Segment | None:
    """One elided part read into pieces and insertions; None when less than ``least`` characters of it
    are left to look for (tiny fragments left around an elision, "a ... b", would match anywhere)."""
    if "[" not in part:  # most quotes: one piece, no insertion
        text = part.strip()
        if len(text) < max(1, least):
            return None
        return Segment(part, (_Piece(text, False, False, len(text) // TYPO_EVERY if typos_allowed else 0),), ())
    tokens = _BRACKET.split(part)
    pieces: list[_Piece] = []
    between: list[str] = []
    lead: str | None = None
    pending: list[str] = []
    for j in range(0, len(tokens), 2):
        raw = tokens[j]
        if j > 0:
            pending.append(tokens[j - 1].strip())
        text = raw.strip()
        if not text:
            continue
        glued_left = j > 0 and not raw[:1].isspace()
        glued_right = j + 1 < len(tokens) and not raw[-1:].isspace()
        typos = len(text) // TYPO_EVERY if typos_allowed else 0
        if pieces:
            between.append(" ".join(pending))
        elif pending:
            lead = " ".join(pending)
        pending = []
        pieces.append(_Piece(text, glued_left, glued_right, typos))
    if not pieces or sum(len(p.text) for p in pieces) < least:
        return None
    trail = " ".join(pending) if pending else None
    return Segment(part, tuple(pieces), tuple(between), lead, trail)


def split_quote(quote: str, page_chars: int = 0) -> QuoteParts:
    """Read a normalised quote into its elided parts (each split at its bracketed insertions).

    Typos are allowed only where the work stays bounded: parts up to
    :data:`~gate.checks.closest.MAX_FUZZY_QUOTE_CHARS`, at most
    :data:`~gate.checks.closest.MAX_FUZZY_SEGMENTS` parts, a page of ``page_chars`` up to
    :data:`~gate.checks.closest.MAX_PAGE_CHARS`.
    """
    quote = quote.strip(QUOTE_MARKS)
    elided = ELISION.split(quote) if ".." in quote or ". ." in quote else [quote]
    parts = [p for p in (p.strip(QUOTE_MARKS) for p in elided) if p]
    allowed = len(parts) <= MAX_FUZZY_SEGMENTS and page_chars <= MAX_PAGE_CHARS
    least = _MIN_SEGMENT if len(parts) > 1 else 1
    segments = [s for s in (_segment(p, allowed and len(p) <= MAX_FUZZY_QUOTE_CHARS, least) for p in parts) if s]
    for seg in segments:
        for ins in (*seg.insertions, seg.lead or "", seg.trail or ""):
            if _negates(ins):
                return QuoteParts(tuple(segments), f"the bracketed insertion [{ins}] adds a negation")
    return QuoteParts(tuple(segments))


class _TooMany(Exception):
    """A quote's parts were tried at more places than :data:`MAX_PLACEMENTS`."""


class _Search:
    """One search of one quote on one page: the page, the names of the quote, the work left.

    ``rejected`` keeps the first reason a place of a part was turned down (it starts inside a word,
    its ellipsis omits a negation...): said when the quote is not found, since the part is there.
    """

    def __init__(self, text: str, names: frozenset[str], typos: bool, budget: WorkBudget | None) -> None:
        self.text = text
        self.names = names
        self.typos = typos
        self.budget = budget
        self.placements = 0
        self.rejected: str | None = None

    def step(self) -> None:
        self.placements += 1
        if self.placements > MAX_PLACEMENTS:
            raise _TooMany

    def reject(self, reason: str) -> None:
        self.rejected = self.rejected or reason

    def spans(self, piece: _Piece, lo: int, hi: int | None) -> Iterator[tuple[int, int, int]]:
        """(start, end, typos) of ``piece`` starting in [lo, hi]: verbatim ones first, then with typos."""
        text, q = self.text, piece.text
        limit = len(text) if hi is None else min(len(text), hi + len(q))
        i = text.find(q, lo, limit)
        while i != -1:
            if _bounded(piece, text, i, i + len(q)):
                yield i, i + len(q), 0
            else:
                self.reject(f"the page has {json.dumps(q, ensure_ascii=False)[:80]} only inside longer words")
            i = text.find(q, i + 1, limit)
        if self.typos and piece.typos:
            yield from typo_spans(q, piece.typos, text, lo, hi, self.names,
                                  lambda s, t: _bounded(piece, text, s, t), self.budget)


def on_word_edges(text: str, start: int, end: int, open_left: bool = False, open_right: bool = False) -> bool:
    """True when ``text[start:end]`` starts and ends where the page's words do.

    ``open_left``/``open_right``: that edge may cut into a word (a bracket is glued to it, "[t]he").
    """
    if not open_left and 0 < start < len(text) and text[start].isalnum() and text[start - 1].isalnum():
        return False
    return open_right or not (0 < end < len(text) and text[end - 1].isalnum() and text[end].isalnum())


def _bounded(piece: _Piece, text: str, start: int, end: int) -> bool:
    """True when the span may stand for ``piece``: on word edges, but where a bracket is glued to it."""
    return on_word_edges(text, start, end, piece.open_left, piece.open_right)


def _negation_in(text: str) -> str | None:
    return next((w for w in text.split() if is_negation(w)), None)


def _unfit(insertion: str, stands_for: str, known: bool = True) -> str | None:
    """Why a bracketed insertion may not stand for ``stands_for`` on the page, or None when it may.

    ``known`` is false for an insertion at a part's edge, where ``stands_for`` is only the page text
    near it: then only its numbers are looked for there.
    """
    if known:
        if len(stands_for) > MAX_INSERTION_GAP:
            return f"the bracketed insertion [{insertion}] would stand for more than {MAX_INSERTION_GAP} characters"
        negation = _negation_in(stands_for)
        if negation is not None:
            return f"the bracketed insertion [{insertion}] stands for page text with a negation ({negation})"
    if _MARKER.fullmatch(insertion):
        return None
    have = set(NUMBER.findall(stands_for))
    if all(n in have for n in NUMBER.findall(insertion)):
        return None
    return f"the bracketed insertion [{insertion}] has a number the page text it stands for lacks"


def _fits(search: _Search, insertion: str | None, stands_for: str, known: bool = True) -> bool:
    why = None if insertion is None else _unfit(insertion, stands_for, known)
    if why is not None:
        search.reject(why)
    return why is None


def _omits_negation(search: _Search, omitted: str) -> bool:
    """True (and said) when the text an ellipsis stands for holds a negation inside one sentence."""
    if len(omitted) > _ONE_SENTENCE or _SENTENCE_END.search(omitted):
        return False
    negation = _negation_in(omitted)
    if negation is not None:
        search.reject(f"the ellipsis omits a negation ({negation}) inside a sentence")
    return negation is not None


def _place(seg: Segment, search: _Search, lo: int, after: int | None) -> tuple[int, int, int] | None:
    """The first placement of ``seg`` starting at or after ``lo``: (start, end, typos), or None.

    ``after`` is the end of the part before an ellipsis (None for the first part): the text the
    ellipsis stands for must not hide a negation inside one sentence.
    """
    text = search.text
    last = len(seg.pieces) - 1

    def rec(k: int, prev: int, typos: int) -> tuple[int, int] | None:
        # Piece k (after the first) starts within MAX_INSERTION_GAP of the piece before it.
        for s, t, n in search.spans(seg.pieces[k], prev, prev + MAX_INSERTION_GAP):
            search.step()
            if not _fits(search, seg.insertions[k - 1], text[prev:s]):
                continue
            if k < last:
                found = rec(k + 1, t, typos + n)
                if found is not None:
                    return found
            elif _fits(search, seg.trail, text[t:t + MAX_INSERTION_GAP], False):
                return t, typos + n
        return None

    # A placement of the first piece is worth trying only if the segment's longest later piece is
    # near it: a C-speed search that keeps common first words ("it [the Bank] raised") cheap.
    rest = max(seg.pieces[1:], key=lambda p: len(p.text), default=None)
    reach = sum(len(p.text) for p in seg.pieces) + MAX_INSERTION_GAP * last
    for s, t, n in search.spans(seg.pieces[0], lo, None):
        if rest is not None and not search.typos and text.find(rest.text, t, s + reach) == -1:
            continue
        search.step()
        if after is not None and _omits_negation(search, text[after:s]):
            continue
        if not _fits(search, seg.lead, text[max(0, s - MAX_INSERTION_GAP):s], False):
            continue
        if last == 0:
            if _fits(search, seg.trail, text[t:t + MAX_INSERTION_GAP], False):
                return s, t, n
            continue
        found = rec(1, t, n)
        if found is not None:
            return s, found[0], found[1]
    return None


def locate(parts: QuoteParts, text: str, names: Callable[[], frozenset[str]] = frozenset,
           budget: WorkBudget | None = None) -> Found | Missed:
    """Where the quote read by :func:`split_quote` is on ``text`` (normalised), or the first part that is not.

    Every part is looked for verbatim first, in order; only if that fails are typos forgiven (as the
    module says), in parts that allow them and while ``budget`` has work left. ``names`` gives the
    quote's words with a capital letter, normalised (asked for only when typos are looked for): no
    typo may touch them. A miss says why when
    the part is on the page but a rule turned it down (the reason of the verbatim search).
    """
    if parts.problem is not None:
        return Missed(0, parts.problem)
    missed: Missed | None = None
    for typos in (False, True):
        if typos and not any(p.typos for seg in parts.segments for p in seg.pieces):
            break
        search = _Search(text, names() if typos else frozenset(), typos, budget)
        try:
            found = _walk(parts, search)
        except _TooMany:
            return Missed(0, f"its parts were tried at over {MAX_PLACEMENTS:,} places of the page")
        if isinstance(found, Found):
            return found
        missed = missed or found
    assert missed is not None
    return missed


def _walk(parts: QuoteParts, search: _Search) -> Found | Missed:
    lo, start, typos = 0, 0, 0
    after: int | None = None
    for i, seg in enumerate(parts.segments):
        placed = _place(seg, search, lo, after)
        if placed is None:
            if search.rejected is None and i and _ahead(seg, search.text, lo):
                search.reject("its parts are on the page, but not in the order quoted")
            return Missed(i, search.rejected)
        if i == 0:
            start = placed[0]
        lo = after = placed[1]
        typos += placed[2]
    return Found(start, lo, typos)


def _ahead(seg: Segment, text: str, lo: int) -> bool:
    """True when the first piece of ``seg`` is on the page before ``lo`` (ahead of the part it follows)."""
    return text.find(seg.pieces[0].text, 0, lo + len(seg.pieces[0].text)) != -1
