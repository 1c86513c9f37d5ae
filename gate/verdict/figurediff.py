"""Set figures, PR vs baseline, with the paired per-case sign test that separates change from noise. Pure.

A set mean can move past its tolerance because the judge changed its mind on one or two cases.
Each :class:`FigureChange` therefore carries a paired per-case sign test: over the common cases
where the figure moved, how many got worse and how many better, and the one-sided probability of
at least that many "worse" if worse and better were equally likely (``p_value``). The decision
(:mod:`gate.verdict.decide`) calls a regression *beyond noise* only when that probability is at most
``compare.significance`` over at least ``compare.min_cases`` paired cases.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import comb
from statistics import fmean

from gate.config import Config
from gate.results import CaseResult
from gate.score.figures import HIGHER_IS_BETTER
from gate.verdict.comparison import MOVED, FigureChange, FigureStatus

__all__ = [
    "MOVED", "SET_FIGURES", "FigureChange", "FigureStatus", "figure_change", "figure_status", "paired_change",
    "sign_test",
]

Selector = Callable[[CaseResult], bool]
SET_FIGURES: tuple[tuple[str, str, str, Selector | None], ...] = (
    # (key, label, soft figure it reads, which cases count: None for all)
    ("grounding_rate", "grounding", "grounding_rate", None),
    ("hallucination_rate", "hallucination", "hallucination_rate", None),
    ("hallucination_rate.retrieval_ok", "hallucination, retrieval ok", "hallucination_rate",
     lambda c: c.counts.retrieval_succeeded),
    ("hallucination_rate.retrieval_failed", "hallucination, retrieval failed", "hallucination_rate",
     lambda c: not c.counts.retrieval_succeeded),
    ("query_quality", "query quality", "query_quality", None),
    ("freshness", "freshness", "freshness", None),
    ("diversity", "diversity", "diversity", None),
    ("primary_share", "primary share", "primary_share", None),
    ("citation_validity", "citation validity", "citation_validity", None),
    ("regeneration_rate", "needed a regeneration", "regeneration_rate", None),
)
"""The per-set figures of the summary table, in the order the README names them."""


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

    paired: list[tuple[float, float]] = []
    for b, c in pairs:
        bv, cv = b.soft.get(figure), c.soft.get(figure)
        if chosen(b) and chosen(c) and bv is not None and cv is not None:
            paired.append((bv, cv))
    alone = [v for _, c in pairs if chosen(c) and (v := c.soft.get(figure)) is not None]
    return paired_change(key, label, figure, [b for b, _ in paired], [c for _, c in paired], alone)


def paired_change(key: str, label: str, figure: str, base: Sequence[float], pr: Sequence[float],
                  alone: Sequence[float]) -> FigureChange:
    """A set figure from its values alone, as :func:`figure_change` takes them from the cases: the
    baseline's and the PR's values (``base[i]`` pairs with ``pr[i]``) of the cases that have one on
    both sides, and ``alone`` the PR's values of the paired cases (its mean when nothing pairs).
    What a comparison of many cases keeps in memory instead of the cases: two numbers a case."""
    up = HIGHER_IS_BETTER.get(figure, True)
    worse = better = 0
    for bv, cv in zip(base, pr, strict=True):
        d = (cv - bv) if up else (bv - cv)
        if d < -MOVED:
            worse += 1
        elif d > MOVED:
            better += 1
    baseline: float | None
    current: float | None
    if base:
        baseline, current = fmean(base), fmean(pr)
    else:
        baseline, current = None, (fmean(alone) if alone else None)
    return FigureChange(
        key=key, label=label, figure=figure, baseline=baseline, current=current,
        pairs=len(base), worse=worse, better=better, p_value=sign_test(worse, better),
    )


def _bound_broken(value: float, config: Config, figure: str) -> str | None:
    bound = config.soft.get(figure)
    if bound is None:
        return None
    if bound.floor is not None and value < bound.floor:
        return f"below its floor {bound.floor:g}"
    if bound.ceiling is not None and value > bound.ceiling:
        return f"above its ceiling {bound.ceiling:g}"
    return None


def figure_status(change: FigureChange, config: Config) -> FigureStatus:
    """Apply the soft rule (module docstring, rule 3 with a baseline) to one set figure."""
    if change.current is None:
        return FigureStatus("n/a", f"{change.label}: no value in this run")
    bound = config.soft.get(change.figure) if change.key == change.figure else None
    broken = _bound_broken(change.current, config, change.figure) if bound is not None else None
    regressed = bound is not None and change.delta is not None and change.worsening > bound.tolerance + MOVED
    what = "; ".join(x for x in (
        broken,
        f"regressed by {change.worsening:.2f}, past its tolerance {bound.tolerance:g}"
        if regressed and bound else None,
    ) if x)
    moved = (f"{change.label} {_num(change.baseline)} → {_num(change.current)}"
             if change.baseline is not None else f"{change.label} {_num(change.current)}")
    if not what:
        if bound is None:  # no bound to be within: never marked as fine, whatever its value
            if change.worsening > MOVED:
                return FigureStatus("worse", f"{moved}: worse (shown for diagnosis, not gated)")
            return FigureStatus("ungated", f"{moved}: not gated (shown for diagnosis)")
        if change.worsening < -MOVED:
            return FigureStatus("improved", f"{moved}: improved")
        return FigureStatus("ok", f"{moved}: within bounds")
    if bound is None or not bound.block:
        return FigureStatus("warn", f"{moved}: {what} (warning; not configured to block)")
    return _would_block(change, config, moved, what)


def _would_block(change: FigureChange, config: Config, moved: str, what: str) -> FigureStatus:
    """A figure out of bounds whose bound blocks: blocking only beyond judge noise, over enough cases."""
    cfg = config.compare
    p = change.p_value
    evidence = f"worse in {change.worse} and better in {change.better} of {change.pairs} paired cases"
    if p is not None:
        evidence += f" (sign test p = {p:.3f})"
    if change.pairs < cfg.min_cases:
        # not noise: a set this small can never show a change beyond it, however large
        return FigureStatus("too_few", f"{moved}: {what}, but it cannot block: {change.pairs} paired case(s), "
                                       f"fewer than compare.min_cases = {cfg.min_cases} (warning)")
    if p is not None and p <= cfg.significance:
        return FigureStatus("blocking", f"{moved}: {what}, and beyond judge noise: {evidence}, "
                                        f"p <= {cfg.significance:g}")
    return FigureStatus("noise", f"{moved}: {what}, but within judge noise: {evidence}, "
                                 f"p > {cfg.significance:g} (warning)")


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"
