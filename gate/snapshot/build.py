"""Build the snapshot layers of a golden set from its recorded runs.

Each run already holds what the web answered when it was recorded: its queries with their
results, and the pages it read. :func:`build_plan` turns runs into records (pure, deterministic);
:func:`build` writes them into ``<golden set>/snapshot/`` (idempotent: a second build changes no
file). The search layer gets a neutral response shape under the provider ``trace``::

    {"results": [{"position", "title", "url", "snippet", "published"}]}

Results name the query they answer (``results[].query``). A minimal trace does not: with one
query they are all its results; with several, positions that restart at 1 mark where the next
query's results begin, and when they do not split into one group per query the run's queries
are left out and a note says so (guessing would record results a query never returned).

The extraction layer gets the text the run read, its publication date and the links found in the
text (:func:`gate.urls.anchors.extract_anchors`: markdown inline, reference and angle-bracket links,
and HTML ``<a href>``; relative ones resolved), then those the reader showed beside the text
(``pages[].links``), with no link text.

Two runs that recorded the same key differently (the same query answered twice with different
results, a page fetched twice with different text) keep the first run's recording, by file name,
and a note names both. A transient failure (HTTP 408, 429, 5xx) is not recorded.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Generic, TypeVar

from gate.load.golden import iter_pairings, load_golden
from gate.model import Page, Run, SearchResult
from gate.snapshot.records import (
    EXTRACTIONS,
    PAGES,
    SEARCH,
    ExtractionRecord,
    PageRecord,
    SearchRecord,
    normalise_query,
    search_key,
    url_key,
)
from gate.snapshot.store import SnapshotStore, page_failure, snapshot_dir
from gate.urls.anchors import Anchor, extract_anchors

TRACE_PROVIDER = "trace"

_R = TypeVar("_R")

# ---------------------------------------------------------------------------------------------------
# Plan and build
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BuildPlan:
    """The records a set of runs gives, one per key, and what the build has to say about them."""

    searches: tuple[SearchRecord, ...]
    pages: tuple[PageRecord, ...]
    extractions: tuple[ExtractionRecord, ...]
    notes: tuple[str, ...] = ()


@dataclass
class _Layer(Generic[_R]):
    """Records of one layer by key: the first recording wins, a different later one is a note."""

    what: str
    kept: dict[str, tuple[_R, str]] = field(default_factory=dict)

    def add(self, key: str, record: _R, source: str, notes: list[str]) -> None:
        """Keep ``record`` under ``key`` unless one is kept already; a different one is noted."""
        first = self.kept.get(key)
        if first is None:
            self.kept[key] = (record, source)
        elif _identity(first[0]) != _identity(record):
            notes.append(f"{self.what}: {source} recorded it differently from {first[1]}; kept {first[1]}")


def _identity(record: Any) -> Any:
    """What makes two recordings the same answer (when and by which spelling it was asked do not)."""
    if isinstance(record, SearchRecord):
        return record.response
    if isinstance(record, PageRecord):
        return (record.status, record.final_url, record.body, record.truncated, record.content_type)
    assert isinstance(record, ExtractionRecord)
    return (record.text, record.published, record.anchors)


def _neutral(results: Sequence[SearchResult]) -> dict[str, Any]:
    return {"results": [
        {"position": r.position, "title": r.title, "url": r.url, "snippet": r.snippet,
         "published": None if r.published is None else r.published.isoformat()}
        for r in results
    ]}


def _by_query(run: Run) -> tuple[dict[int, list[SearchResult]], str | None]:
    """The results of each query of a run, or a note on why they cannot be told apart."""
    groups: dict[int, list[SearchResult]] = {i: [] for i in range(len(run.queries))}
    loose = [r for r in run.results if r.query is None]
    for r in run.results:
        if r.query is not None:
            groups[r.query].append(r)
    if not loose:
        return groups, None
    if len(run.queries) == 1 and len(loose) == len(run.results):
        groups[0] = loose
        return groups, None
    segments: list[list[SearchResult]] = []
    for r in loose:
        if not segments or r.position <= segments[-1][-1].position:
            segments.append([])
        segments[-1].append(r)
    if len(loose) == len(run.results) and len(segments) == len(run.queries):
        return dict(enumerate(segments)), None
    return {}, (f"{run.source}: {len(loose)} result(s) name no query and do not split into one group "
                f"per query (positions restart {len(segments)} time(s) for {len(run.queries)} queries); "
                "its queries are not recorded")


def _anchors(page: Page) -> tuple[Anchor, ...]:
    """The links of a read page: those of its text, then those its reader showed beside it (``Page.links``)."""
    found = extract_anchors(page.text, page.final_url or page.url)
    written = {a.href for a in found}
    return found + tuple(Anchor(href=h, text="") for h in dict.fromkeys(page.links) if h not in written)


def build_plan(runs: Iterable[Run]) -> BuildPlan:
    """The records that ``runs`` give, in a stable order (pure: no file is read or written)."""
    notes: list[str] = []
    searches: _Layer[SearchRecord] = _Layer("search")
    pages: _Layer[PageRecord] = _Layer("page")
    extractions: _Layer[ExtractionRecord] = _Layer("extraction")
    for run in runs:
        groups, note = _by_query(run)
        if note:
            notes.append(note)
        for i, results in sorted(groups.items()):
            query = normalise_query(run.queries[i])
            record = SearchRecord(TRACE_PROVIDER, query, _neutral(results), recorded_at=run.started_at)
            searches.add(search_key(TRACE_PROVIDER, query), record, run.source, notes)
        for page in run.pages:
            why = page_failure(page.status)
            if why is not None:
                notes.append(f"{run.source}: {page.url} not recorded: {why}")
                continue
            fetched = PageRecord(url=page.url, status=page.status, body=page.text, final_url=page.final_url,
                                 fetched_at=page.fetched_at, truncated=page.truncated)
            key = url_key(page.url)
            pages.add(key, fetched, run.source, notes)
            extracted = ExtractionRecord(url=page.url, text=page.text, published=page.published,
                                         anchors=_anchors(page))
            extractions.add(key, extracted, run.source, notes)
    return BuildPlan(
        searches=tuple(r for _, (r, _src) in sorted(searches.kept.items())),
        pages=tuple(r for _, (r, _src) in sorted(pages.kept.items())),
        extractions=tuple(r for _, (r, _src) in sorted(extractions.kept.items())),
        notes=tuple(notes),
    )


@dataclass(frozen=True)
class BuildResult:
    """What a build wrote, what it left alone, and entries no run produced (kept, listed)."""

    folder: str
    written: tuple[str, ...]
    unchanged: int
    stale: tuple[str, ...]
    notes: tuple[str, ...]
    counts: tuple[tuple[str, int], ...]

    def summary(self) -> str:
        """A few lines for the terminal."""
        layers = ", ".join(f"{n} {name}" for name, n in self.counts)
        lines = [f"snapshot {self.folder}: {layers}; {len(self.written)} file(s) written, "
                 f"{self.unchanged} unchanged"]
        lines += [f"note: {n}" for n in self.notes]
        lines += [f"not from these runs (kept; delete it if it is no longer wanted): {f}" for f in self.stale]
        return "\n".join(lines)


def runs_of(golden_root: str) -> list[Run]:
    """The recorded runs of a golden set, in file-name order."""
    golden = load_golden(golden_root)
    return [p.run for p in iter_pairings(golden) if p.run is not None]


def build(golden_root: str, snapshot_root: str | None = None) -> BuildResult:
    """Write the layers of ``golden_root``'s runs into its snapshot folder (or ``snapshot_root``)."""
    folder = snapshot_root or snapshot_dir(golden_root)
    store = SnapshotStore(folder)
    p = build_plan(runs_of(golden_root))
    puts: list[tuple[str, Callable[[], bool]]] = []
    for s in p.searches:
        puts.append((store.path(SEARCH, search_key(s.provider, s.query)), partial(store.put_search, s)))
    for g in p.pages:
        puts.append((store.path(PAGES, url_key(g.url)), partial(store.put_page, g)))
    for x in p.extractions:
        puts.append((store.path(EXTRACTIONS, url_key(x.url)), partial(store.put_extraction, x)))
    written = [file for file, put in puts if put()]
    produced = {os.path.abspath(file) for file, _ in puts}
    stale = tuple(f for layer in (SEARCH, PAGES, EXTRACTIONS) for f in store.files(layer)
                  if os.path.abspath(f) not in produced)
    counts = (("search", len(p.searches)), ("pages", len(p.pages)), ("extractions", len(p.extractions)))
    return BuildResult(folder=folder, written=tuple(written), unchanged=len(puts) - len(written),
                       stale=stale, notes=p.notes, counts=counts)
