"""``stale_sources``: cited sources too old for the question's freshness regime.

Ages are measured from the run's ``started_at``, never from today: a snapshot replayed a
year later must not turn stale.
"""

from __future__ import annotations

from datetime import date
from statistics import median

from gate.checks.base import Subject
from gate.model import Finding, Outcome
from gate.urls import canonical


def source_dates(subject: Subject) -> tuple[dict[str, date], list[str]]:
    """Publication date per cited URL (page first, then search result), and the undated ones."""
    result_dates: dict[str, date] = {}
    for r in subject.run.results:
        if r.published is not None:
            result_dates.setdefault(canonical(r.url), r.published)
    dated: dict[str, date] = {}
    unknown: list[str] = []
    for key, raw in subject.cited.items():
        page = subject.read.get(key)
        published = page.published if page is not None and page.published else result_dates.get(key)
        if published is None:
            unknown.append(raw)
        else:
            dated[raw] = published
    return dated, unknown


def median_age_days(subject: Subject) -> float | None:
    """Median age in days of the dated cited sources at the time of the run."""
    if subject.run.started_at is None:
        return None
    dated, _ = source_dates(subject)
    if not dated:
        return None
    run_day = subject.run.started_at.date()
    return float(median((run_day - d).days for d in dated.values()))


class StaleSources:
    """Median source age over the floor of the case's freshness regime."""

    id = "stale_sources"
    description = "The cited sources are too old for how fresh the question needs them."

    def run(self, subject: Subject) -> Outcome:
        """A finding when the median age exceeds the regime's floor."""
        regime = subject.regime
        if regime is None:
            return Outcome(not_checked="no freshness regime: set `freshness` on the case or run the judge")
        limit = subject.config.stale_days.get(regime)
        if limit is None:
            return Outcome(not_checked=f"the {regime} regime has no age limit")
        if subject.run.started_at is None:
            return Outcome(not_checked="the trace has no started_at to measure ages from")
        dated, unknown = source_dates(subject)
        notes = (f"undated sources (not counted): {', '.join(unknown)}",) if unknown else ()
        if not dated:
            return Outcome(not_checked="no cited source has a publication date", notes=notes)
        age = median_age_days(subject)
        assert age is not None
        if age <= limit:
            return Outcome(notes=notes)
        oldest = min(dated, key=lambda u: dated[u])
        return Outcome(findings=(Finding(
            self.id,
            f"median source age {age:.0f} days exceeds {limit:g} for a {regime} question "
            f"(oldest: {oldest}, {dated[oldest].isoformat()})",
            oldest,
        ),), notes=notes)
