"""The three snapshot layers of a recording: what the web answered, frozen for replay.

Searches go in whole, under the provider that answered them (the replay server hands the agent
the same JSON it parsed when recording); pages and extractions come from the run's reads exactly
as :func:`gate.snapshot.build.build_plan` derives them from a recorded trace, so a recording and a
rebuilt snapshot agree. Failed searches and transient fetch failures are never written.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from gate.model import Run
from gate.snapshot.build import build_plan
from gate.snapshot.records import SearchRecord, search_key
from gate.snapshot.store import SnapshotStore, snapshot_dir


@dataclass(frozen=True)
class Searched:
    """One search call as it was answered: the provider, the literal query and its full JSON."""

    provider: str
    query: str
    response: Any
    recorded_at: datetime


def freeze(run: Run, searched: Iterable[Searched], golden_root: str) -> list[str]:
    """Write the layers of one recorded run into ``<golden_root>/snapshot/``; the notes to say."""
    store = SnapshotStore(snapshot_dir(golden_root))
    derived = build_plan([run])
    notes = list(derived.notes)
    first: dict[str, Searched] = {}
    for s in searched:
        key = search_key(s.provider, s.query)
        if key in first:
            # The same query asked twice: like the builder, keep the first answer and say so.
            if first[key].response != s.response:
                notes.append(f"search {s.query!r} ({s.provider}) was answered differently the second time; "
                             "kept the first answer")
            continue
        first[key] = s
        store.put_search(SearchRecord(s.provider, s.query, s.response, recorded_at=s.recorded_at))
    for page in derived.pages:
        store.put_page(page)
    for extraction in derived.extractions:
        store.put_extraction(extraction)
    return notes
