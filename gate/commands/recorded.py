"""How a recording run (``sourcegate run --record``) ends, once its traces are written.

A recording whose agents asked for searches or pages it could not record (each a ``replay_miss`` of
its case: the live web failed, a provider could not read a page, a recording with other parameters
was kept) is inconclusive: :class:`gate.errors.RecordingIncomplete`, exit 3, its message the last
line, saying how many and the command that records them. A complete ``--record all`` of every case
moves ``snapshot_at`` in ``golden.yaml`` to the recording's time (:mod:`gate.snapshot.version`): the
set's web is today's, and its age warning starts again from there.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from gate.checks.run_findings import record_command
from gate.errors import RecordingIncomplete
from gate.model import NOT_IN_SNAPSHOT, NOT_RECORDED, ReplayMiss, Run
from gate.snapshot.version import move_snapshot_at

__all__ = ["end_recording", "left_unrecorded"]

_RECORDED_LAYERS = {"search": ("search", "searches"), "pages": ("page", "pages"),
                    "extractions": ("extraction", "extractions")}
"""The layers a recording records (a route no server answers cannot be), and how a count of them is said."""


def left_unrecorded(runs: Iterable[Run], golden: str, command: Sequence[str], *, afresh: bool) -> str | None:
    """What a recording run left unrecorded, in one line with the command that records it; None when
    every search and page its agents asked for is in the snapshot (pure).

    The command is ``--record all`` after ``--record all`` (its misses may be older recordings) or
    when a recording exists that cannot answer a request (``--record`` keeps it), else ``--record``."""
    missed: dict[tuple[str, str, str | None], ReplayMiss] = {}
    for run in runs:
        for miss in run.replay.misses if run.replay is not None else ():
            if miss.layer in _RECORDED_LAYERS:
                missed.setdefault((miss.layer, miss.key, miss.provider), miss)
    if not missed:
        return None
    counts = [(layer, sum(1 for m in missed.values() if m.layer == layer)) for layer in _RECORDED_LAYERS]
    said = " and ".join(f"{n} {_RECORDED_LAYERS[layer][n != 1]}" for layer, n in counts if n)
    kept = any(m.reason not in (None, NOT_IN_SNAPSHOT) and not (m.reason or "").startswith(NOT_RECORDED)
               for m in missed.values())
    again = record_command(golden, tuple(command), afresh=afresh or kept)
    return (f"the recording left {said} unrecorded (each case's replay_miss says which and why; the traces and "
            f"what was recorded are written): record them with `{again}`")


def end_recording(golden: str, runs: Sequence[Run], command: Sequence[str], *, afresh: bool, every_case: bool,
                  log: Callable[[str], None]) -> None:
    """End a recording run of ``golden`` (as the command was given it): RecordingIncomplete when it left
    something unrecorded; else, for ``--record all`` (``afresh``) of ``every_case``, ``snapshot_at`` moved
    to the recording's time, the ``started_at`` of its cases."""
    left = left_unrecorded(runs, golden, command, afresh=afresh)
    if left is not None:
        raise RecordingIncomplete(left)
    began = min((r.started_at for r in runs if r.started_at is not None), default=None)
    if afresh and every_case and began is not None:
        moved = move_snapshot_at(golden, began)
        if moved is not None:
            log(f"sourcegate run: {moved.describe()}")
