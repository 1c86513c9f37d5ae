"""Typos a quote may have: one single-character edit per 40 characters, never in what carries meaning. Pure.

A quote part of at least :data:`TYPO_EVERY` characters may differ from the page by one letter
added, dropped or changed per :data:`TYPO_EVERY` characters (two swapped letters are two), at most
one per word, and never inside a number (a word with a digit), a name (a word of the quote with a
capital letter) or a negation (:func:`is_negation`, on either side: "now" for "not" is no typo).

The search is anchored: with ``e`` edits in a part, one of ``e + 1`` equal chunks of it is on the
page verbatim (pigeonhole), so each place of a chunk anchors one alignment of the whole part
(``rapidfuzz``'s Levenshtein distance, the ends free by at most ``e``). Each chunk is looked at in at
most :data:`gate.checks.closest.MAX_ANCHOR_HITS` places and every alignment is charged to the run's
:class:`gate.checks.closest.WorkBudget`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from rapidfuzz.distance import Editops, Levenshtein

from gate.checks.closest import MAX_ANCHOR_HITS, WorkBudget

__all__ = ["NEGATIONS", "TYPO_EVERY", "is_negation", "typo_spans"]

TYPO_EVERY = 40
"""One single-character typo is forgiven per this many characters of a quote part (none below it)."""

NEGATIONS = frozenset({
    "not", "no", "nor", "never", "none", "nobody", "nothing", "nowhere", "neither", "without", "cannot",
    "non", "unable", "lacks", "lacking", "fails", "failed",
})
"""Words that negate (besides any word ending in ``n't``): no typo may touch one, no elision or
bracket of a quote may hide one."""

_EDGE = re.compile(r"^\W+|\W+$")


def _core(word: str) -> str:
    return _EDGE.sub("", word)


def is_negation(word: str) -> bool:
    """True for a negating word (normalised), punctuation around it aside: ``not``, ``never``, ``don't``..."""
    core = _core(word)
    return core in NEGATIONS or core.endswith("n't")


Bounded = Callable[[int, int], bool]
"""Whether a span of the page may stand for the whole quote part (it starts and ends on word edges)."""


@dataclass(frozen=True)
class _Part:
    """One quote part looked for with typos: its text, its edits allowed, the page, what may not change."""

    q: str
    edits: int
    text: str
    names: frozenset[str]
    bounded: Bounded
    budget: WorkBudget | None


def typo_spans(q: str, edits: int, text: str, lo: int, hi: int | None, names: frozenset[str], bounded: Bounded,
               budget: WorkBudget | None) -> list[tuple[int, int, int]]:
    """(start, end, edits) of ``q`` on ``text`` starting in [lo, hi] with at most ``edits`` typos, in page order.

    ``names`` are the quote's capitalised words (normalised); ``bounded`` says whether a span may
    stand for the part (word edges).
    """
    part = _Part(q, edits, text, names, bounded, budget)
    e = edits
    size = len(q) // (e + 1)
    found: dict[int, tuple[int, int, int]] = {}
    tried: list[int] = []  # where alignments were tried: the chunks of one place all point at it
    for k in range(e + 1):
        a = k * size
        b = len(q) if k == e else a + size
        i = text.find(q[a:b], max(0, lo + a - e))
        hits = 0
        while i != -1 and hits < MAX_ANCHOR_HITS:
            if hi is not None and i - a - e > hi:
                break
            hits += 1
            if not any(abs(i - a - x) <= e for x in tried):
                tried.append(i - a)
                span = _aligned(part, i, a, b, lo, hi)
                if span is not None and (span[0] not in found or span[2] < found[span[0]][2]):
                    found[span[0]] = span
            i = text.find(q[a:b], i + 1)
    return sorted(found.values())


def _best(part: str, text: str, ends: range, fixed: int, at_start: bool, most: int) -> tuple[int, int] | None:
    """(distance, position) of ``part`` aligned with ``text`` between ``fixed`` and each of ``ends``."""
    best: tuple[int, int, int] | None = None
    centre = ends.start + (len(ends) - 1) // 2
    for x in ends:
        window = text[x:fixed] if at_start else text[fixed:x]
        d = Levenshtein.distance(part, window, score_cutoff=most)
        if d <= most and (best is None or (d, abs(x - centre)) < best[:2]):
            best = (d, abs(x - centre), x)
    return None if best is None else (best[0], best[2])


def _aligned(part: _Part, i: int, a: int, b: int, lo: int, hi: int | None) -> tuple[int, int, int] | None:
    """The part aligned around its chunk ``q[a:b]`` found at ``i``: (start, end, edits), or None."""
    q, text, e = part.q, part.text, part.edits
    j = i + (b - a)
    est_start, est_end = i - a, j + len(q) - b
    calls = 2 + 2 * (2 * e + 1)
    if part.budget is not None and not part.budget.spend(calls * (200 + len(q) * (6 * e + 1) // 64)):
        return None
    if Levenshtein.distance(q, text[max(0, est_start):est_end], score_cutoff=3 * e) > 3 * e:
        return None
    if a:
        latest = min(i, est_start + e) if hi is None else min(i, est_start + e, hi)
        pre = _best(q[:a], text, range(max(0, lo, est_start - e), latest + 1), i, True, e)
    else:
        pre = (0, i) if lo <= i and (hi is None or i <= hi) else None
    if pre is None:
        return None
    ends = range(max(j, est_end - e), min(len(text), est_end + e) + 1)
    suf = _best(q[b:], text, ends, j, False, e - pre[0]) if b < len(q) else (0, j)
    if suf is None or pre[0] + suf[0] > e:
        return None
    s, t = pre[1], suf[1]
    if not part.bounded(s, t):
        return None
    ops = Levenshtein.editops(q, text[s:t])
    if len(ops) > e or not _forgivable(ops, q, text[s:t], part.names):
        return None
    return s, t, len(ops)


def _words(t: str, pos: int, on: bool) -> list[tuple[int, int]]:
    """The words of ``t`` an edit touches: at character ``pos`` (``on``) or between ``pos - 1`` and ``pos``."""
    spots = [pos] if on and pos < len(t) and t[pos] != " " else []
    if not spots:
        spots = [x for x in (pos - 1, pos + (1 if on else 0)) if 0 <= x < len(t) and t[x] != " "]
    out = []
    for x in spots:
        span = (t.rfind(" ", 0, x) + 1, len(t) if t.find(" ", x) == -1 else t.find(" ", x))
        if span not in out:
            out.append(span)
    return out


def _forgivable(ops: Editops, q: str, window: str, names: frozenset[str]) -> bool:
    """True when every edit is a typo: one per word of the quote, none in a number, name or negation."""
    seen: set[tuple[int, int]] = set()
    for op in ops:
        quoted = _words(q, op.src_pos, op.tag != "insert")
        paged = _words(window, op.dest_pos, op.tag != "delete")
        for a, b in quoted:
            if (a, b) in seen:
                return False
            seen.add((a, b))
        for word in [q[a:b] for a, b in quoted] + [window[a:b] for a, b in paged]:
            core = _core(word)
            if any(c.isdigit() for c in core) or core in names or is_negation(core):
                return False
    return True
