"""Which of a case's constraints and entities the agent's queries kept: a rule, no model needed.

A phrase survives when some query has all its content words and numbers (:func:`gate.checks.passage.terms`)
or matches it closely (fuzzy partial ratio of at least ``FUZZY_SURVIVAL``). Pure and offline.
"""

from __future__ import annotations

from collections.abc import Sequence

from rapidfuzz import fuzz

from gate.checks.passage import normalise, terms

__all__ = ["FUZZY_SURVIVAL", "dropped", "dropped_by_each", "survives"]

FUZZY_SURVIVAL = 90


def survives(phrase: str, queries: Sequence[str]) -> bool:
    """True when some query keeps ``phrase``: all its words and numbers, or a close fuzzy match."""
    want = terms(phrase)
    norm = normalise(phrase)
    for q in queries:
        if want and want <= terms(q):
            return True
        if norm and fuzz.partial_ratio(norm, normalise(q)) >= FUZZY_SURVIVAL:
            return True
    return False


def dropped(phrases: Sequence[str], queries: Sequence[str]) -> tuple[str, ...]:
    """The phrases (case constraints or entities) that no query kept."""
    return tuple(p for p in phrases if not survives(p, queries))


def dropped_by_each(phrases: Sequence[str], queries: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """For each query in turn, the phrases it does not keep on its own."""
    return tuple(dropped(phrases, [q]) for q in queries)
