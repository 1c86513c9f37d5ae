"""Set figures, PR vs baseline, with the paired per-case sign test that separates change from noise. Pure.

A set mean can move past its tolerance because the judge changed its mind on one or two cases.
Each :class:`FigureChange` therefore carries a paired per-case sign test: over the common cases
where the figure moved, how many got worse and how many better, and the one-sided probability of
at least that many "worse" if worse and better were equally likely (``p_value``). The decision
(:mod:`gate.decide`) calls a regression *beyond noise* only when that probability is at most
``compare.significance`` over at least ``compare.min_cases`` paired cases.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import comb
from statistics import fmean

from gate.figures import HIGHER_IS_BETTER
from gate.results import CaseResult

__all__ = ["MOVED", "SET_FIGURES", "FigureChange", "FigureStatus", "figure_change", "sign_test"]

MOVED = 1e-6
"""Per-case changes smaller than this are ties (float noise, not a change)."""

Selector = Callable[[CaseResult], bool]
SET_FIGURES: tuple[tuple[str, str, str, Selector | None], ...] = (
    # (key, label, soft figure it reads, which cases count: None for all)
    ("grounding_rate", "grounding", "grounding_rate", None),
    ("hallucination_rate", "hallucination", "hallucination_rate", None),
    ("hallucination_rate.retrieval_ok", "hallucination, retrieval ok", "hallucination_rate",
     lambda c: c.figures.retrieval_succeeded),
    ("hallucination_rate.retrieval_failed", "hallucination, retrieval failed", "hallucination_rate",
     lambda c: not c.figures.retrieval_succeeded),
    ("query_quality", "query quality", "query_quality", None),
    ("freshness", "freshness", "freshness", None),
    ("diversity", "diversity", "diversity", None),
    ("primary_share", "primary share", "primary_share", None),
    ("citation_validity", "citation validity", "citation_validity", None),
)
"""The per-set figures of the summary table, in the order the README names them."""


@dataclass(frozen=True)
class FigureStatus:
    """How one set figure stands against its bounds, its baseline and judge noise (set by decide)."""

    status: str
    """``blocking``, ``noise`` (would block but within noise), ``warn``, ``improved``, ``worse`` (a figure
    with no bounds, such as the retrieval split), ``ok`` or ``n/a``"""
    why: str


@dataclass(frozen=True)
class FigureChange:
    """One set figure: baseline and PR means over the same paired cases, and the paired sign test."""

    key: str
    label: str
    figure: str
    baseline: float | None
    current: float | None
    pairs: int
    """common cases with a value on both sides"""
    worse: int
    better: int
    p_value: float | None
    """one-sided sign-test probability of at least ``worse`` regressions by chance; None without pairs"""
    status: FigureStatus | None = None
    """filled in by :func:`gate.decide.decide_report`"""

    @property
    def delta(self) -> float | None:
        """PR minus baseline (None when either side has no value)."""
        if self.baseline is None or self.current is None:
            return None
        return self.current - self.baseline

    @property
    def higher_is_better(self) -> bool:
        """Whether a larger value is an improvement."""
        return HIGHER_IS_BETTER.get(self.figure, True)

    @property
    def worsening(self) -> float:
        """How much worse the PR is (positive) or better (negative); 0 when unknown."""
        d = self.delta
        if d is None:
            return 0.0
        return -d if self.higher_is_better else d


def sign_test(worse: int, better: int) -> float | None:
    """One-sided exact sign test: P(X >= worse) for X ~ Binomial(worse + better, 1/2)."""
    n = worse + better
    if n == 0:
        return None
    return sum(comb(n, k) for k in range(worse, n + 1)) / (1 << n)


def figure_change(key: str, label: str, figure: str, pairs: Sequence[tuple[CaseResult, CaseResult]],
                  select: Selector | None) -> FigureChange:
    """A set figure over paired cases, with its sign test.

    Both means are taken over the same cases: those with a value on both sides (and, for a split
    figure, selected on both sides). A case with a value on one side only (its claims left unscored,
    say) would otherwise move one mean and not the other, and read as a change it is not. With no
    such pair there is nothing to compare: the baseline is None and the PR's value is its mean over
    the cases that have one, so that its bounds are still checked.
    """
    def chosen(c: CaseResult) -> bool:
        return select is None or select(c)

    up = HIGHER_IS_BETTER.get(figure, True)
    paired: list[tuple[float, float]] = []
    for b, c in pairs:
        bv, cv = b.soft.get(figure), c.soft.get(figure)
        if chosen(b) and chosen(c) and bv is not None and cv is not None:
            paired.append((bv, cv))
    worse = better = 0
    for bv, cv in paired:
        d = (cv - bv) if up else (bv - cv)
        if d < -MOVED:
            worse += 1
        elif d > MOVED:
            better += 1
    baseline: float | None
    current: float | None
    if paired:
        baseline, current = fmean(bv for bv, _ in paired), fmean(cv for _, cv in paired)
    else:
        alone = [v for _, c in pairs if chosen(c) and (v := c.soft.get(figure)) is not None]
        baseline, current = None, (fmean(alone) if alone else None)
    return FigureChange(
        key=key, label=label, figure=figure, baseline=baseline, current=current,
        pairs=len(paired), worse=worse, better=better, p_value=sign_test(worse, better),
    )
