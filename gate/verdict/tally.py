"""What the verdict and the report's summary need from every case, taken in one pass. Pure.

A report of 8,000 cases keeps its cases in a file (:mod:`gate.store.casestore`); the decision and the
summary read this instead: counts by check, the failing cases' ids and the checks that failed
them, each soft figure's values (small numbers per case), and the judge's unscored share. Its
means are :func:`statistics.fmean` over the same values in the same order as a mean over the cases,
so a figure is the same number whichever way it is taken.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from statistics import fmean
from types import MappingProxyType

from gate.model import Finding
from gate.results import CHECK_ERROR, CaseResult
from gate.score.figures import SOFT_FIGURES

__all__ = ["Tally", "TallyBuilder", "tally", "tally_of"]


@dataclass(frozen=True)
class Tally:
    """The aggregates of a set of cases (see the module docstring)."""

    cases: int = 0
    failed_cases: int = 0
    hard_failures: int = 0
    by_check: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    """hard failures by check"""
    failing: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """each failing case's id and the check of each of its hard failures, in the cases' order"""
    soft: Mapping[str, array[float]] = field(default_factory=lambda: MappingProxyType({}))
    """each soft figure's values over the cases that have it, in the cases' order"""
    unscored: int = 0
    """unscored claims over the judged cases"""
    claims: int = 0
    """claims over the judged cases"""
    judged: int = 0
    """cases with a judgement"""
    check_errors: tuple[Finding, ...] = ()
    unscored_reasons: tuple[str, ...] = ()
    """why claims were left unscored ("not in judge cache", an API error), each once, first seen first"""
    """the findings of checks that raised"""

    def mean(self, figure: str) -> float | None:
        """The mean of a soft figure over the cases that have it (None: none has it)."""
        values = self.soft.get(figure)
        return fmean(values) if values else None


class TallyBuilder:
    """Adds cases one at a time; :meth:`build` gives the :class:`Tally`."""

    def __init__(self) -> None:
        """An empty tally."""
        self._cases = self._failed = self._hard = self._unscored = self._claims = self._judged = 0
        self._by_check: Counter[str] = Counter()
        self._failing: list[tuple[str, tuple[str, ...]]] = []
        self._soft: dict[str, array[float]] = {name: array("d") for name in SOFT_FIGURES}
        self._errors: list[Finding] = []
        self._reasons: dict[str, None] = {}

    def add(self, c: CaseResult) -> None:
        """Count one case."""
        judged = (c.judgement.unscored_count, c.judgement.claim_count) if c.judgement is not None else None
        self.add_parts(c.id, tuple(f.check for f in c.hard_failures),
                       tuple(f for f in c.hard_failures if f.check == CHECK_ERROR), c.soft.items(), judged,
                       c.judgement.unscored_reasons if c.judgement is not None else ())

    def add_parts(self, case_id: str, checks: tuple[str, ...], errors: Iterable[Finding],
                  soft: Iterable[tuple[str, float | None]], judged: tuple[int, int] | None,
                  reasons: Iterable[str] = ()) -> None:
        """Count one case given by the parts a tally reads (a merge keeps no more of a case): its id,
        the check of each hard failure, the findings of checks that raised, its soft figures and,
        when it was judged, its (unscored, claims) counts and why its claims were unscored."""
        self._reasons.update(dict.fromkeys(reasons))
        self._cases += 1
        if checks:
            self._failed += 1
            self._hard += len(checks)
            self._by_check.update(checks)
            self._failing.append((case_id, checks))
            self._errors.extend(errors)
        for name, value in soft:
            if value is not None:
                self._soft.setdefault(name, array("d")).append(value)
        if judged is not None:
            self._judged += 1
            self._unscored += judged[0]
            self._claims += judged[1]

    def build(self) -> Tally:
        """The tally of the cases added so far."""
        return Tally(cases=self._cases, failed_cases=self._failed, hard_failures=self._hard,
                     by_check=MappingProxyType(dict(self._by_check)), failing=tuple(self._failing),
                     soft=MappingProxyType({k: v for k, v in self._soft.items() if v}),
                     unscored=self._unscored, claims=self._claims, judged=self._judged,
                     check_errors=tuple(self._errors), unscored_reasons=tuple(self._reasons))


def tally(cases: Iterable[CaseResult]) -> Tally:
    """The tally of ``cases``, in one pass."""
    builder = TallyBuilder()
    for c in cases:
        builder.add(c)
    return builder.build()


def tally_of(cases: Iterable[CaseResult]) -> Tally:
    """The tally of ``cases``: the one a case store kept (:class:`gate.store.casestore.CaseStore`), else
    taken now in one pass."""
    kept = getattr(cases, "tally", None)
    return kept if isinstance(kept, Tally) else tally(cases)
