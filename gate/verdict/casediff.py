"""What a pull request changes in the cases' bar: the fields of each case the base has, compared. Pure.

A case the base revision has is checked under the base's class, freshness, domains, constraints and
entities (:mod:`gate.load.basecases`); the pull request's apply once it is merged, as a changed
setting of ``sourcegate.yaml`` does. So they are listed beside the configuration's changes, under
``cases.<id>.<field>``, each marked as :mod:`gate.verdict.configdiff` marks a setting, under the base's
configuration:

- ``class``: ``weakening`` when the new class has a lower ``domain_floor`` or drops out of
  ``require_primary``, ``tightening`` the other way, else ``neutral``;
- ``freshness``: ``weakening`` when the new regime's ``stale_days`` is longer (no limit, or a regime
  left to the judge where there was a limit, is the longest), ``tightening`` when shorter;
- ``about_domains``: ``weakening`` when a domain is added (its citations are exempt from
  ``domain_cap`` and count as primary), ``tightening`` when domains are only removed;
- ``constraints``, ``entities``: ``weakening`` when one is removed (the queries need not keep it),
  ``tightening`` when they are only added;
- a case the pull request removes: ``cases.<id>`` from ``defined`` to ``removed``, a weakening (its
  failures stop counting after the merge).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence

from gate.config import Config
from gate.model import Case
from gate.verdict.configdiff import ConfigChange, Effect, Value

__all__ = ["case_changes"]

_NAMES = {"cls": "class"}
"""How golden.yaml spells a field whose Case attribute has another name."""


def _shown(value: object) -> Value:
    if isinstance(value, tuple):
        return ", ".join(value) if value else None
    return value if isinstance(value, str) else None


def _by(weaker: bool, tighter: bool) -> Effect:
    return "weakening" if weaker else "tightening" if tighter else "neutral"


def _class(config: Config, base: Case, pr: Case) -> Effect:
    floor_base, floor_pr = config.floor_for(base.cls), config.floor_for(pr.cls)
    needs_base, needs_pr = base.cls in config.require_primary, pr.cls in config.require_primary
    return _by(floor_pr < floor_base or (needs_base and not needs_pr),
               floor_pr > floor_base or (needs_pr and not needs_base))


def _limit(config: Config, regime: str | None) -> float:
    days = config.stale_days.get(regime) if regime is not None else None
    return math.inf if days is None else days


def _freshness(config: Config, base: Case, pr: Case) -> Effect:
    before, after = _limit(config, base.freshness), _limit(config, pr.freshness)
    return _by(after > before, after < before)


def _listed(name: str) -> Callable[[Config, Case, Case], Effect]:
    def effect(config: Config, base: Case, pr: Case) -> Effect:
        del config  # the lists say what they say under any configuration
        before, after = set(getattr(base, name)), set(getattr(pr, name))
        if name == "about_domains":
            return _by(bool(after - before), bool(before - after))
        return _by(bool(before - after), bool(after - before))

    return effect


_EFFECTS: dict[str, Callable[[Config, Case, Case], Effect]] = {
    "cls": _class, "freshness": _freshness, "about_domains": _listed("about_domains"),
    "constraints": _listed("constraints"), "entities": _listed("entities"),
}
"""How each field of the bar (:data:`gate.load.basecases.BAR_FIELDS`) moves it."""


def _changed(config: Config, base: Case, pr: Case) -> Iterator[ConfigChange]:
    for name, effect in _EFFECTS.items():
        before, after = getattr(base, name), getattr(pr, name)
        if before != after:
            yield ConfigChange(f"cases.{pr.id}.{_NAMES.get(name, name)}", _shown(before), _shown(after),
                               effect(config, base, pr))


def case_changes(config: Config, base: Sequence[Case], pr: Sequence[Case]) -> tuple[ConfigChange, ...]:
    """The bar's fields the pull request's cases (``pr``) change from the base's (``base``), in the pull
    request's order, then the base's cases it removes, in the base's order; ``config`` is the base's."""
    by_id = {c.id: c for c in base}
    ids = {c.id for c in pr}
    changed = [ch for c in pr if c.id in by_id for ch in _changed(config, by_id[c.id], c)]
    removed = [ConfigChange(f"cases.{c.id}", "defined", "removed", "weakening") for c in base if c.id not in ids]
    return (*changed, *removed)
