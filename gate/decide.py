"""The decision: case results (and later a baseline comparison) in, a verdict with reasons out.

Pure: values in, values out. The rules, in order:

1. any hard failure (or a case whose run is missing) -> ``fail``;
2. the judge left more than ``judge.inconclusive_unscored_share`` of claims unscored -> ``inconclusive``
   (an outage is never a pass);
3. a soft figure configured with ``block: true`` out of bounds -> ``fail``; otherwise a warning;
4. otherwise ``pass``.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import fmean

from gate.config import Config
from gate.figures import SOFT_FIGURES
from gate.results import CaseResult, Verdict


def set_mean(cases: Sequence[CaseResult], name: str) -> float | None:
    """Mean of a soft figure over the cases that have it."""
    values = [v for c in cases if (v := c.soft.get(name)) is not None]
    return fmean(values) if values else None


def soft_out_of_bounds(cases: Sequence[CaseResult], config: Config) -> list[tuple[str, float, str, bool]]:
    """(figure, set mean, what bound it broke, whether it blocks) for each soft figure out of bounds."""
    out = []
    for name in SOFT_FIGURES:
        bound = config.soft.get(name)
        value = set_mean(cases, name)
        if bound is None or value is None:
            continue
        if bound.floor is not None and value < bound.floor:
            out.append((name, value, f"below its floor {bound.floor:g}", bound.block))
        elif bound.ceiling is not None and value > bound.ceiling:
            out.append((name, value, f"above its ceiling {bound.ceiling:g}", bound.block))
    return out


def unscored_share(cases: Sequence[CaseResult]) -> tuple[int, int]:
    """(unscored claims, all claims) over the judged cases."""
    unscored = total = 0
    for c in cases:
        if c.judgement is not None:
            unscored += c.judgement.unscored_count
            total += c.judgement.claim_count
    return unscored, total


def decide(cases: Sequence[CaseResult], config: Config) -> tuple[Verdict, tuple[str, ...]]:
    """The verdict and the reasons for it, most important first."""
    counts: dict[str, int] = {}
    for c in cases:
        for f in c.hard_failures:
            counts[f.check] = counts.get(f.check, 0) + 1
    reasons: list[str] = [f"{n} {check} failure(s)" for check, n in sorted(counts.items())]
    verdict: Verdict = "fail" if counts else "pass"

    soft = soft_out_of_bounds(cases, config)
    for name, value, why, blocks in soft:
        reasons.append(f"{name} {value:.2f} is {why}" + (" (blocking)" if blocks else " (warning)"))
    if verdict == "pass" and any(blocks for *_, blocks in soft):
        verdict = "fail"

    unscored, total = unscored_share(cases)
    if total and unscored / total > config.judge.inconclusive_unscored_share:
        reasons.insert(0 if verdict != "fail" else len(counts),
                       f"{unscored} of {total} claims unscored (judge unavailable or unparseable); "
                       f"more than {config.judge.inconclusive_unscored_share:.0%} makes the run inconclusive")
        if verdict == "pass":
            verdict = "inconclusive"
    if verdict == "pass" and not reasons:
        reasons.append("no hard check failed")
    return verdict, tuple(reasons)
