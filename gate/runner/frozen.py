"""The frozen web a ``sourcegate run`` talks to: the replay server over the golden set's snapshot.

Replaying (``record`` None), the server answers from the snapshot alone and logs nowhere: what the
agent missed is in its case's trace. Recording (``new-episodes``, or ``record`` for ``--record all``),
it answers from a :class:`gate.replay.recording.RecordingSource` (the live web behind the snapshot,
under ``record:`` in ``sourcegate.yaml``: its providers, the SSRF guard, the redaction of every key),
logs what it could not record, and when the run ends the session is finished
(:func:`gate.replay.recording.finish`): what was recorded listed in ``snapshot/RECORDED.json`` and the
golden set's version bumped, even when the run was stopped, since the entries are stored by then.
"""

from __future__ import annotations

import io
import os
import typing
from collections.abc import Callable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, TextIO

from gate.config import Config
from gate.replay.serve import ReplayServer
from gate.snapshot.store import SnapshotStore, snapshot_dir

if TYPE_CHECKING:
    from gate.replay.recording import RecordingSource, Session

__all__ = ["RunServer"]


class _Lines(io.TextIOBase):
    """A text stream that hands each line written to ``log`` (the server writes whole lines)."""

    def __init__(self, log: Callable[[str], None]) -> None:
        super().__init__()
        self._log = log

    def write(self, text: str) -> int:
        for line in text.splitlines():
            self._log(line)
        return len(text)

    def writable(self) -> bool:
        return True


class RunServer:
    """A context manager: the replay server for one run (not yet serving), replaying or recording."""

    def __init__(self, golden_root: str, record: str | None, config: Config, environ: Mapping[str, str],
                 log: Callable[[str], None]) -> None:
        """The snapshot of ``golden_root``; ``record``: None, ``new-episodes`` or ``record``; ``config``
        and ``environ`` (its keys) reach the live web when recording; ``log`` takes the lines said."""
        self.golden_root, self.record, self.config, self.environ, self.log = golden_root, record, config, environ, log
        self.session: Session | None = None
        """what the recording session recorded, once it is finished (None: replaying)"""
        self._source: RecordingSource | None = None
        self._server: ReplayServer | None = None
        self._quiet: TextIO | None = None

    def __enter__(self) -> ReplayServer:
        """The server, bound to a free loopback port; a damaged entry is an InputError now."""
        store = SnapshotStore(snapshot_dir(self.golden_root))
        if os.path.isdir(store.root) or self.record is None:
            store.index()  # a damaged entry is an input error now, not a miss in every case
        if self.record is None:
            self._quiet = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 (closed on exit)
            self._server = ReplayServer(store, log=self._quiet)
            return self._server
        # Here, not at the top: recording loads the live web's HTTP client, slow to import.
        from gate.live import LiveWeb
        from gate.replay.recording import RECORD, RecordingSource

        self._source = RecordingSource(store, LiveWeb.from_config(self.config, environ=self.environ), self.record)
        self._server = ReplayServer(store, log=typing.cast(TextIO, _Lines(self.log)), source=self._source,
                                    secrets=self._source.secrets, afresh=self.record == RECORD)
        return self._server

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        """Close the server; a recording session is finished, and what it recorded said."""
        if self._server is not None:
            self._server.server_close()
        if self._quiet is not None:
            self._quiet.close()
        if self._source is not None:
            from gate.replay.recording import finish

            self.session = finish(self._source, self.golden_root)
            for line in self.session.summary().splitlines():
                self.log(line)
