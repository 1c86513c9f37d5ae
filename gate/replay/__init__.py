"""The frozen web the agent under test talks to: the replay server, its proxy and its routes.

``serve`` answers the agent from a snapshot (:mod:`gate.snapshot`) over loopback HTTP, on
sourcegate's own routes and each search provider's real API (``routes``, one module per provider);
``proxy`` makes it the agent's HTTP proxy, so a request past the frozen web is refused and seen;
``recording`` (record mode) answers what the snapshot lacks from the live web (:mod:`gate.live`)
and stores it. See docs/snapshots.md. Names load on first use, so the CLI's parser stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gate.lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "ReplayServer": "gate.replay.serve",
    "ReplaySource": "gate.replay.routes.frozen",
    "serve": "gate.replay.serve",
    "MODES": "gate.replay.recording",
    "RecordingSource": "gate.replay.recording",
    "Session": "gate.replay.recording",
    "serve_recording": "gate.replay.recording",
}

__all__ = ["MODES", "RecordingSource", "ReplayServer", "ReplaySource", "Session", "serve", "serve_recording"]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


if TYPE_CHECKING:
    from gate.replay.recording import MODES, RecordingSource, Session, serve_recording
    from gate.replay.routes.frozen import ReplaySource
    from gate.replay.serve import ReplayServer, serve
