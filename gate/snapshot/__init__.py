"""The snapshot: recorded search calls, page fetches and extractions, so an agent can be re-run.

``records`` holds the three formats and their keys, ``store`` reads and records them (one small
JSON file per entry, content-addressed), ``build`` derives them from a golden set's recorded
runs, ``verify`` checks that every run is covered, and ``serve`` answers the agent under test
from them over loopback HTTP, on sourcegate's own routes and each search provider's real API
(``routes``, one module per provider; ``parsers`` reads the results out of their JSON). In
replay a missing recording is a :class:`gate.errors.SnapshotMiss`, never a live call;
``recording`` (record mode) fetches it from the live web (``live``), stores it with its
extraction (``extract``), lists what it added and bumps the set's version (``version``).
See docs/snapshots.md. Names load on first use, so the CLI's parser stays cheap.
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
    "ReplayServer": "gate.snapshot.serve",
    "ReplaySource": "gate.snapshot.routes.frozen",
    "serve": "gate.snapshot.serve",
    "MODES": "gate.snapshot.recording",
    "RecordingSource": "gate.snapshot.recording",
    "Session": "gate.snapshot.recording",
    "serve_recording": "gate.snapshot.recording",
    "extract_page": "gate.snapshot.extract",
    "VersionBump": "gate.snapshot.version",
    "bump_version": "gate.snapshot.version",
}

__all__ = [
    "MODES",
    "Anchor",
    "BuildResult",
    "CaseCoverage",
    "Coverage",
    "ExtractionRecord",
    "PageRecord",
    "BuildPlan",
    "RecordingSource",
    "ReplayServer",
    "SearchRecord",
    "Session",
    "SnapshotIndex",
    "SnapshotStore",
    "ReplaySource",
    "VersionBump",
    "build",
    "bump_version",
    "extract_page",
    "normalise_query",
    "build_plan",
    "search_key",
    "serve",
    "serve_recording",
    "snapshot_dir",
    "url_key",
    "verify",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


if TYPE_CHECKING:
    from gate.snapshot.build import BuildPlan, BuildResult, build, build_plan
    from gate.snapshot.extract import extract_page
    from gate.snapshot.recording import MODES, RecordingSource, Session, serve_recording
    from gate.snapshot.records import (
        ExtractionRecord,
        PageRecord,
        SearchRecord,
        normalise_query,
        search_key,
        url_key,
    )
    from gate.snapshot.routes.frozen import ReplaySource
    from gate.snapshot.serve import ReplayServer, serve
    from gate.snapshot.store import SnapshotIndex, SnapshotStore, snapshot_dir
    from gate.snapshot.verify import CaseCoverage, Coverage, verify
    from gate.snapshot.version import VersionBump, bump_version
    from gate.urls.anchors import Anchor
