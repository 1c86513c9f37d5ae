"""Fewer cases at a time: the cases ``--case ID`` (a glob, repeatable) and ``--failed`` pick. Pure.

As ``pytest -k`` and ``--lf`` do: ``--case`` names cases of the golden set by id or glob
(``fnmatch``: ``*``, ``?``, ``[...]``), each pattern matching at least one case; ``--failed`` takes the
cases that failed (a hard failure) in the report of the previous run, read at the edge by the
command (:func:`failed_in`).

A subset is not the golden set: it is compared with the baseline's same cases only (the other
cases are not "removed"), its report says which cases it ran (:class:`Subset`, JSON ``subset``), it
posts no PR comment and it cannot become a baseline.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from gate.errors import InputError
from gate.model import GoldenSet
from gate.text.suggest import did_you_mean

__all__ = ["Pick", "Subset", "failed_in", "picked_golden", "select_cases"]


@dataclass(frozen=True)
class Pick:
    """The cases asked for: ids or globs (``--failed``'s are the ids its report gave), and how they were
    asked for, as the command line said it."""

    patterns: tuple[str, ...]
    asked: str
    strict: bool = True
    """a pattern that matches no case is an error (``--case``); not strict (``--failed``), an id the set
    no longer has is left out"""


@dataclass(frozen=True)
class Subset:
    """The cases a run was limited to, in the golden set's order, and how many the set has."""

    cases: tuple[str, ...]
    total: int
    asked: str
    """how they were picked, as the command line said it (``--case 'storm-*'``, ``--failed``)"""

    def note(self) -> str:
        """The line every report of the run carries."""
        return (f"a subset of the golden set: {len(self.cases)} of {self.total} case(s) ({self.asked}); "
                "compared with the baseline's same cases, not a verdict on the whole set")


def select_cases(ids: Sequence[str], pick: Pick) -> Subset:
    """The cases of ``ids`` that one of ``pick``'s patterns matches (an id or a glob), in their order;
    a pattern that matches no case is an input error naming it (with ``strict``), and so is a pick
    that leaves no case."""
    chosen: set[str] = set()
    for pattern in pick.patterns:
        hit = {i for i in ids if i == pattern or fnmatch.fnmatchcase(i, pattern)}
        if not hit and pick.strict:
            raise InputError(f"--case {pattern!r} matches no case of the golden set{did_you_mean(pattern, ids)}")
        chosen |= hit
    if not chosen:
        raise InputError(f"{pick.asked}: none of these cases is in the golden set any more")
    return Subset(tuple(i for i in ids if i in chosen), len(ids), pick.asked)


def picked_golden(golden: GoldenSet, pick: Pick) -> GoldenSet:
    """``golden`` with only the cases ``pick`` selects (``sourcegate run --case``: the agents it runs)."""
    keep = frozenset(select_cases([c.id for c in golden.cases], pick).cases)
    return replace(golden, cases=tuple(c for c in golden.cases if c.id in keep))


def failed_in(cases: Iterable[tuple[str, int]], golden: str, report_golden: str, file: str) -> tuple[str, ...]:
    """The ids of the cases with a hard failure, from ``(id, hard failure count)`` of a report of
    ``report_golden`` (``file``); a report of another set, or one where nothing failed, is refused."""
    if report_golden != golden:
        raise InputError(f"--failed: this report is of golden set {report_golden!r}, not {golden!r}", file=file)
    failed = tuple(cid for cid, count in cases if count)
    if not failed:
        raise InputError("--failed: no case failed in this report: nothing to run again "
                         "(run without --failed)", file=file)
    return failed
