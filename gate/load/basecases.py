"""The cases a pull request is checked with: its ``golden.yaml`` under the base revision's bar. Pure.

With ``--baseline-ref``, ``golden.yaml`` is the pull request's: it may add cases and reword their
questions. But a case's fields decide checks as much as ``sourcegate.yaml`` does (``class`` sets the
``domain_floor`` and whether ``no_primary_source`` applies, ``freshness`` the ``stale_sources`` limit,
``about_domains`` the ``domain_cap`` exemption and which sources count as primary, ``constraints`` and
``entities`` what the judge asks of the queries), so for a case the base revision has, those fields
(:data:`BAR_FIELDS`) are the base's; the pull request's apply once it is merged, and are listed
(:func:`gate.verdict.casediff.case_changes`). Its question is the pull request's: it is what the agent
was asked.

A case of the base that the pull request removes is still a case of this run, as the base defines
it: it fails when its run is missing, as any case does (:attr:`gate.model.GoldenSet.kept_from_base`).
A case the base had already dropped is not brought back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from gate.model import Case, GoldenSet

__all__ = ["BAR_FIELDS", "under_base"]

BAR_FIELDS = ("cls", "freshness", "about_domains", "constraints", "entities")
"""The fields of a :class:`gate.model.Case` that decide checks, read from the base revision."""


def _barred(case: Case, base: Case) -> Case:
    return replace(case, **{name: getattr(base, name) for name in BAR_FIELDS})


def under_base(golden: GoldenSet, base: Sequence[Case]) -> GoldenSet:
    """``golden`` (the pull request's) with each case the base revision has (``base``, its cases in its
    order) under the base's :data:`BAR_FIELDS`, then the base's cases it removes, as the base defines
    them."""
    by_id = {c.id: c for c in base}
    ids = {c.id for c in golden.cases}
    kept = tuple(c for c in base if c.id not in ids)
    cases = tuple(_barred(c, by_id[c.id]) if c.id in by_id else c for c in golden.cases)
    return replace(golden, cases=cases + kept, kept_from_base=frozenset(c.id for c in kept))
