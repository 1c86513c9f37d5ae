"""What a span says of one source: its registered domain, primary or secondary, and its age.

Ages are whole days from the run's ``started_at`` to the source's publication date (the page's,
else its search result's); a source without a date, or a run without a start, has no age.
Primary or secondary is what the judgement classified; a source it did not classify is
``unknown`` and never counts as primary.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

from gate.checks.base import citations_of
from gate.model import Run
from gate.results import CaseResult
from gate.urls import canonical, registered_domain

__all__ = ["SourceFacts", "source_facts"]


@dataclass(frozen=True)
class SourceFacts:
    """What the run and the judgement tell about the sources of one run, by canonical URL."""

    published: Mapping[str, date]
    kinds: Mapping[str, str]
    cited: frozenset[str]
    cited_urls: tuple[str, ...]
    """the cited URLs as cited, in order"""
    read: frozenset[str]
    run_day: date | None

    def describe(self, url: str) -> dict[str, str | int | bool]:
        """The source's facts as flat values: registered domain, type, published, age, cited, read."""
        key = canonical(url)
        out: dict[str, str | int | bool] = {
            "registered_domain": registered_domain(url),
            "source_type": self.kinds.get(key, "unknown"),
            "cited": key in self.cited,
            "read": key in self.read,
        }
        published = self.published.get(key)
        if published is not None:
            out["published"] = published.isoformat()
            if self.run_day is not None:
                out["age_days"] = (self.run_day - published).days
        return out


def source_facts(run: Run, result: CaseResult) -> SourceFacts:
    """Dates, classifications, citations and reads of one run's sources."""
    published: dict[str, date] = {}
    for page in run.pages:
        if page.published is not None:
            published.setdefault(canonical(page.url), page.published)
    for r in run.results:
        if r.published is not None:
            published.setdefault(canonical(r.url), r.published)
    kinds: dict[str, str] = {}
    if result.judgement is not None:
        for st in result.judgement.source_types:
            if st.kind is not None:
                kinds.setdefault(canonical(st.url), st.kind)
    cited_urls = [c.url for c in citations_of(run)]
    return SourceFacts(
        published=published,
        kinds=kinds,
        cited=frozenset(canonical(u) for u in cited_urls),
        cited_urls=tuple(dict.fromkeys(cited_urls)),
        read=frozenset(canonical(p.url) for p in run.pages),
        run_day=None if run.started_at is None else run.started_at.date(),
    )
