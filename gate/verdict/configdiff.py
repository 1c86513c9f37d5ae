"""What a pull request changes in the configuration: the effective settings, compared value by value. Pure.

The gate decides a pull request under the base revision's configuration; the PR's own configuration
applies from the next pull request after it is merged. :func:`config_changes` lists every effective
setting that differs between the two :class:`~gate.config.Config` values (defaults included, so
adding a file that only restates a default changes nothing), each marked:

- ``weakening``: the gate lets more through (a check disabled, a floor lowered, a cap, ceiling,
  tolerance or age limit raised, ``block`` switched off, ``block_on`` from ``all`` to ``new``, the
  judge switched off, a larger unscored share tolerated, more cases needed to block, a replay miss
  or a page the base's snapshot lacks made a warning or a listing instead of a failure);
- ``tightening``: the opposite change;
- ``neutral``: a setting that does not move the bar (the judge's model, prices, search prices,
  concurrency, ...).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, fields
from fnmatch import fnmatchcase
from typing import Literal

from gate.config import Config

__all__ = ["ConfigChange", "Effect", "Value", "config_changes"]

Effect = Literal["weakening", "tightening", "neutral"]
Value = str | int | float | bool | None


@dataclass(frozen=True)
class ConfigChange:
    """One effective setting the pull request changes: its dotted name, both values, and the effect."""

    setting: str
    base: Value
    pr: Value
    effect: Effect


# Settings where a larger value lets more through; None (no limit) counts as infinitely large.
_HIGHER_IS_WEAKER = ("checks.domain_cap", "checks.stale_days.*", "golden.resnapshot_days",
                     "judge.inconclusive_unscored_share",
                     "soft.*.ceiling", "soft.*.tolerance", "compare.max_baseline_age_days", "compare.min_cases")
# Settings where a smaller value lets more through; None (no floor) counts as infinitely small.
_LOWER_IS_WEAKER = ("checks.domain_floor.*", "checks.min_primary_share",
                    "soft.*.floor", "soft.*.block",
                    "compare.significance")
# Named values, weakest first.
_RANKED: dict[str, tuple[str, ...]] = {
    "checks.disabled.*": ("disabled", "enabled"),
    "checks.require_primary.*": ("not required", "required"),
    "compare.block_on": ("new", "all"),
    "replay.on_miss": ("warn", "fail"),
    "replay.unrecorded_pages": ("list", "fail"),
    "judge.mode": ("off", "replay", "live"),
}
_NEUTRAL = ("judge.provider", "judge.base_url", "judge.model", "judge.max_tokens", "judge.concurrency",
            "judge.deadline_seconds", "judge.max_retries", "judge.max_evidence_chars", "judge.prices.*", "retrieval.*",
            "search_prices.*")


def _settings(c: Config, checks: frozenset[str], classes: frozenset[str] = frozenset()) -> Iterator[tuple[str, Value]]:
    """Every effective setting of ``c`` under a dotted name, as the YAML spells it."""
    for check in sorted(checks):
        yield f"checks.disabled.{check}", "disabled" if check in c.disabled else "enabled"
    yield "checks.domain_cap", c.domain_cap
    yield from ((f"checks.domain_floor.{k}", v) for k, v in sorted(c.domain_floor.items()))
    yield from ((f"checks.stale_days.{k}", v) for k, v in sorted(c.stale_days.items()))
    yield from ((f"checks.require_primary.{k}", "required" if k in c.require_primary else "not required")
                for k in sorted(classes | set(c.require_primary)))
    yield "checks.min_primary_share", c.min_primary_share
    yield "golden.resnapshot_days", c.resnapshot_days
    yield "retrieval.min_relevance", c.min_relevance
    yield "retrieval.min_results", c.min_results
    yield "retrieval.min_pages", c.min_pages
    for f in fields(c.judge):
        if f.name != "prices":
            yield f"judge.{f.name}", getattr(c.judge, f.name)
    for model, price in sorted(c.judge.prices.items()):
        yield from ((f"judge.prices.{model}.{k}", v) for k, v in sorted(price.items()))
    for figure, bound in sorted(c.soft.items()):
        yield from ((f"soft.{figure}.{f.name}", getattr(bound, f.name)) for f in fields(bound))
    yield from ((f"compare.{f.name}", getattr(c.compare, f.name)) for f in fields(c.compare))
    for provider, search in sorted(c.search_prices.items()):
        yield f"search_prices.{provider}.credit_usd", search.credit_usd
        yield from ((f"search_prices.{provider}.credits.{k}", v) for k, v in sorted(search.credits.items()))
    yield "replay.on_miss", c.replay.on_miss
    yield "replay.unrecorded_pages", c.replay.unrecorded_pages


def _matches(setting: str, patterns: tuple[str, ...]) -> bool:
    return any(fnmatchcase(setting, p) for p in patterns)


def _number(value: Value, none: float) -> float:
    return none if value is None else float(value)


def _effect(setting: str, base: Value, pr: Value) -> Effect:
    """Whether moving ``setting`` from ``base`` to ``pr`` weakens or tightens the gate."""
    if _matches(setting, _NEUTRAL):
        return "neutral"
    for pattern, ranks in _RANKED.items():
        if fnmatchcase(setting, pattern) and base in ranks and pr in ranks:
            return "weakening" if ranks.index(str(pr)) < ranks.index(str(base)) else "tightening"
    if _matches(setting, _HIGHER_IS_WEAKER):
        weaker = _number(pr, math.inf) > _number(base, math.inf)
    elif _matches(setting, _LOWER_IS_WEAKER):
        weaker = _number(pr, -math.inf) < _number(base, -math.inf)
    else:
        return "neutral"
    return "weakening" if weaker else "tightening"


def config_changes(base: Config, pr: Config) -> tuple[ConfigChange, ...]:
    """Every effective setting that differs from ``base`` in ``pr``, in the order of ``sourcegate.yaml``."""
    checks = base.disabled | pr.disabled
    classes = frozenset(base.require_primary) | frozenset(pr.require_primary)
    before = dict(_settings(base, checks, classes))
    after = dict(_settings(pr, checks, classes))
    names = [*before, *(k for k in after if k not in before)]
    return tuple(ConfigChange(n, before.get(n), after.get(n), _effect(n, before.get(n), after.get(n)))
                 for n in names if before.get(n) != after.get(n) or (n in before) != (n in after))
