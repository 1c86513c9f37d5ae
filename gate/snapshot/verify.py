"""Is every run of a golden set covered by its snapshot? A pure check, runs and an index in.

A run is covered when each of its queries is in the search layer and each page it read is in the
page layer, or was recorded as a provider read it (the contents layer: Tavily's extract, Exa's
contents); a fetch that failed transiently, HTTP 408, 429 or 5xx, read nothing and is never
recorded, so it is not asked for: re-running the agent against ``sourcegate snapshot serve`` can
then ask for nothing the snapshot lacks, unless the agent itself changed (and that is what the
gate is there to see).
A query counts whichever provider recorded it, unless a provider is named. Extractions are not
required: an agent that does its own extraction never asks for them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from gate.model import Run
from gate.snapshot.records import normalise_query
from gate.snapshot.store import SnapshotIndex, page_failure
from gate.text.escape import plain
from gate.urls import canonical


@dataclass(frozen=True)
class CaseCoverage:
    """What one run needs that the snapshot does not hold."""

    case: str
    source: str
    missing_queries: tuple[str, ...] = ()
    missing_pages: tuple[str, ...] = ()

    @property
    def covered(self) -> bool:
        """True when nothing is missing."""
        return not self.missing_queries and not self.missing_pages


@dataclass(frozen=True)
class Coverage:
    """Coverage of every run checked, in the order given."""

    cases: tuple[CaseCoverage, ...]
    provider: str | None = None

    @property
    def covered(self) -> bool:
        """True when every run is covered."""
        return all(c.covered for c in self.cases)

    @property
    def misses(self) -> tuple[CaseCoverage, ...]:
        """The runs that are not covered."""
        return tuple(c for c in self.cases if not c.covered)


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(items))


def verify(runs: Iterable[Run], index: SnapshotIndex, provider: str | None = None) -> Coverage:
    """Check each run's queries against the search layer and its read pages against the page and contents layers."""
    cases = []
    for run in runs:
        queries = _unique(q for q in map(normalise_query, run.queries) if not index.has_query(q, provider))
        pages = _unique(canonical(p.url) for p in run.pages
                        if page_failure(p.status) is None and not index.has_read(p.url))
        cases.append(CaseCoverage(case=run.case, source=run.source, missing_queries=queries,
                                  missing_pages=pages))
    return Coverage(cases=tuple(cases), provider=provider)


def render(coverage: Coverage, folder: str) -> str:
    """Plain text for the terminal: a one-line verdict, then each miss by case."""
    by = f" by provider {coverage.provider!r}" if coverage.provider else ""
    if coverage.covered:
        return f"snapshot {folder} covers all {len(coverage.cases)} run(s){by}"
    misses = coverage.misses
    lines = [f"snapshot {folder} does not cover {len(misses)} of {len(coverage.cases)} run(s){by}:"]
    for c in misses:
        # Case ids, queries and URLs come from the traces: one line each, no workflow command.
        lines.append(f"  {plain(c.case)} ({plain(c.source)}):")
        lines += [f"    search not recorded: {plain(repr(q))}" for q in c.missing_queries]
        lines += [f"    page not recorded: {plain(u)}" for u in c.missing_pages]
    lines.append("record what is missing, or rebuild from the runs with `sourcegate snapshot build`")
    return "\n".join(lines)
