"""How a recording run (``sourcegate run --record``) ends, once its traces are written.

A recording whose agents asked for searches or pages it could not record (each a ``replay_miss`` of
its case: the live web failed, a provider could not read a page, a recording with other parameters
was kept) is inconclusive: :class:`gate.errors.RecordingIncomplete`, exit 3, its message the last
line, saying how many and the command that records them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from gate.checks.run_findings import record_command
from gate.errors import RecordingIncomplete
from gate.model import NOT_IN_SNAPSHOT, NOT_RECORDED, ReplayMiss, Run

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


def end_recording(golden: str, runs: Sequence[Run], command: Sequence[str], *, afresh: bool) -> None:
    """End a recording run of ``golden`` (as the command was given it): RecordingIncomplete when it left
    something unrecorded."""
    left = left_unrecorded(runs, golden, command, afresh=afresh)
    if left is not None:
        raise RecordingIncomplete(left)
