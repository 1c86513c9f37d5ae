"""The per-query vector: four axes plus the judged rates, as named soft figures. Pure.

Each axis of one case is an :class:`Axis`: its value and a line saying why (``docs/axes.md``):

- ``query_quality`` (1-5): judged constraint preservation and entity recall of the agent's queries,
  an over-broad rewrite scored as low as a drop (:mod:`gate.judge`);
- ``freshness`` (1 or 0): the **median** age of the dated cited sources, from the run's
  ``started_at``, within the regime's limit (what ``stale_sources`` decides); undated sources are
  counted as unknown. The set figure, the mean, is the share of cases within their limit;
- ``diversity`` (1 or 0): all three of its checks pass: unique registered domains against the class
  floor, the per-domain cap (the case's ``about_domains`` exempt), and the share of primary sources
  (unknown sources never primary) against ``checks.min_primary_share``. The note names what failed;
- ``citation_validity`` (0-1): of the (claim, cited URL) pairs, the share passing all three
  sub-checks (:mod:`gate.score.alignment`).

Judged rates: ``grounding_rate``, ``hallucination_rate``, ``primary_share``.

Of the agent's own loop: ``regeneration_rate`` (1 or 0): whether the first draft the agent guarded
was rejected, so the answer needed a regeneration (:meth:`gate.Recorder.regenerate`); none for a run
that records no attempts. The set figure is the share of such cases, lower is better.
"""

from __future__ import annotations

from dataclasses import dataclass

from gate.checks.base import Subject
from gate.checks.domains import cap_breaches, cited_domains
from gate.checks.no_primary_source import source_kinds
from gate.checks.stale_sources import median_age_days, source_dates
from gate.model import Run

AXES = ("query_quality", "freshness", "diversity", "citation_validity")
JUDGED = ("grounding_rate", "hallucination_rate", "primary_share")
REGENERATION = "regeneration_rate"
SOFT_FIGURES = (*AXES, *JUDGED, REGENERATION)
HIGHER_IS_BETTER = {name: name not in ("hallucination_rate", REGENERATION) for name in SOFT_FIGURES}

URL_CHECKS = frozenset({"fabricated_url", "unread_citation", "url_unresolved", "passage_missing"})


@dataclass(frozen=True)
class Axis:
    """One axis of one case: its value (None when it does not apply) and why, in a line."""

    value: float | None
    note: str


def freshness(subject: Subject) -> Axis:
    """1 when the median age of the dated cited sources is within the regime's limit, else 0."""
    regime = subject.regime
    if regime is None:
        return Axis(None, "no freshness regime")
    limit = subject.config.stale_days.get(regime)
    if limit is None:
        return Axis(None, f"the {regime} regime has no age limit")
    if subject.run.started_at is None:
        return Axis(None, "no started_at to measure ages from")
    if not subject.cited:
        return Axis(None, "no citations")
    dated, unknown = source_dates(subject)
    undated = f"; {len(unknown)} undated (unknown)" if unknown else ""
    age = median_age_days(subject)
    if age is None:
        return Axis(None, f"no dated cited source{undated}")
    within = age <= limit
    return Axis(1.0 if within else 0.0,
                f"median age {age:g} days {'within' if within else 'over'} the {regime} limit {limit:g} "
                f"({len(dated)} dated{undated})")


def diversity(subject: Subject) -> Axis:
    """1 when the floor, the per-domain cap and the primary share all pass, else 0; the note says which failed."""
    if not subject.cited:
        return Axis(None, "no citations")
    cfg = subject.config
    floor = cfg.floor_for(subject.case.cls)
    domains = len(cited_domains(subject))
    failed = []
    parts = [f"{domains} site(s), floor {floor}"]
    if domains < floor:
        failed.append("floor")
    over = cap_breaches(subject)
    parts.append(f"cap {cfg.domain_cap} broken on {', '.join(over)}" if over else f"cap {cfg.domain_cap} kept")
    if over:
        failed.append("cap")
    kinds = list(source_kinds(subject).values())
    unknown = sum(1 for k in kinds if k is None)
    if unknown == len(kinds):
        parts.append(f"primary share not measured ({unknown} unknown)")
    else:
        share = sum(1 for k in kinds if k == "primary") / len(kinds)
        parts.append(f"primary share {share:.2f}, least {cfg.min_primary_share:g}"
                     + (f" ({unknown} unknown, never primary)" if unknown else ""))
        if share < cfg.min_primary_share:
            failed.append("primary share")
    head = f"fails {', '.join(failed)}: " if failed else ""
    return Axis(0.0 if failed else 1.0, head + "; ".join(parts))


def needed_regeneration(run: Run) -> float | None:
    """1 when the first draft the agent guarded was rejected, 0 when it passed; None without attempts."""
    if not run.attempts:
        return None
    return 1.0 if run.attempts[0].findings else 0.0
