"""The snapshot's data: recorded search calls, page fetches and extractions, so an agent can be re-run.

``records`` holds the formats and their keys, ``store`` reads and records them (one small
JSON file per entry, content-addressed), ``build`` derives them from a golden set's recorded
runs, ``verify`` checks that every run is covered, ``parsers`` reads a provider's results out of
its JSON, ``contents`` cuts a provider's reading of pages into one part per URL, ``extract`` makes a
page's extraction and ``version`` bumps the set's version (and moves its ``snapshot_at``). A missing
recording is a :class:`gate.errors.SnapshotMiss`, never a live call. The server that answers the
agent from them is :mod:`gate.replay`; the one door to the live web, :mod:`gate.live`. See
docs/snapshots.md. Names load on first use, so the CLI's parser stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gate.lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "Anchor": "gate.urls.anchors",
    "ExtractionRecord": "gate.snapshot.records",
    "PageRecord": "gate.snapshot.records",
    "SearchRecord": "gate.snapshot.records",
    "normalise_query": "gate.snapshot.records",
    "search_key": "gate.snapshot.records",
    "url_key": "gate.snapshot.records",
    "SnapshotIndex": "gate.snapshot.store",
    "SnapshotStore": "gate.snapshot.store",
    "snapshot_dir": "gate.snapshot.store",
    "BuildResult": "gate.snapshot.build",
    "BuildPlan": "gate.snapshot.build",
    "build": "gate.snapshot.build",
    "build_plan": "gate.snapshot.build",
    "CaseCoverage": "gate.snapshot.verify",
    "Coverage": "gate.snapshot.verify",
    "verify": "gate.snapshot.verify",
    "extract_page": "gate.snapshot.extract",
    "VersionBump": "gate.snapshot.version",
    "bump_version": "gate.snapshot.version",
    "SnapshotAtMove": "gate.snapshot.version",
    "move_snapshot_at": "gate.snapshot.version",
    "ContentsRecord": "gate.snapshot.records",
}

__all__ = [
    "Anchor",
    "BuildResult",
    "CaseCoverage",
    "ContentsRecord",
    "Coverage",
    "ExtractionRecord",
    "PageRecord",
    "BuildPlan",
    "SnapshotAtMove",
    "SearchRecord",
    "SnapshotIndex",
    "SnapshotStore",
    "VersionBump",
    "build",
    "bump_version",
    "extract_page",
    "normalise_query",
    "build_plan",
    "move_snapshot_at",
    "search_key",
    "snapshot_dir",
    "url_key",
    "verify",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


if TYPE_CHECKING:
    from gate.snapshot.build import BuildPlan, BuildResult, build, build_plan
    from gate.snapshot.extract import extract_page
    from gate.snapshot.records import (
        ContentsRecord,
        ExtractionRecord,
        PageRecord,
        SearchRecord,
        normalise_query,
        search_key,
        url_key,
    )
    from gate.snapshot.store import SnapshotIndex, SnapshotStore, snapshot_dir
    from gate.snapshot.verify import CaseCoverage, Coverage, verify
    from gate.snapshot.version import SnapshotAtMove, VersionBump, bump_version, move_snapshot_at
    from gate.urls.anchors import Anchor
