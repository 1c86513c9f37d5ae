"""The recording's clock: the moment each case of a ``sourcegate run`` is dated. No clock is read here.

A re-run is dated when its web was recorded, so that every age the gate measures (a source's, from
the trace's ``started_at``) is the same a year later:

- a case whose run in ``runs/`` has a ``started_at`` keeps it (the case was recorded then, and every
  re-run since carried the time on);
- any other case takes the golden set's ``snapshot_at``;
- with neither, or when the run records everything afresh (``--record all``), the wall clock: the
  web the case meets is today's.

Entries recorded later for a case (``--record``, new episodes) keep their own ``recorded_at`` and
``fetched_at``; the case keeps its time. The time goes to the agent as ``$SOURCEGATE_NOW``
(:mod:`gate.record.clock`) and into the trace as its ``started_at``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from gate.errors import InputError
from gate.files.jsonio import load_json, parse_time
from gate.load.golden import RUNS_DIR, run_files, trace_case_id
from gate.model import GoldenSet

__all__ = ["CaseTimes", "case_times", "recorded_traces"]


@dataclass(frozen=True)
class CaseTimes:
    """When each case of a run is dated: its recorded time, else the snapshot's, else ``wall``."""

    recorded: Mapping[str, datetime]
    """case id -> the ``started_at`` of its run in ``runs/``"""
    snapshot_at: datetime | None
    wall: datetime
    fresh: bool = False
    """everything is recorded afresh: every case is dated ``wall``"""

    def of(self, case: str) -> datetime:
        """The moment ``case`` is dated."""
        if self.fresh:
            return self.wall
        return self.recorded.get(case) or self.snapshot_at or self.wall

    def undated(self, cases: list[str]) -> list[str]:
        """The cases dated by the wall clock although nothing is recorded afresh (their ages will move)."""
        if self.fresh:
            return []
        return [c for c in cases if c not in self.recorded and self.snapshot_at is None]


def case_times(golden: GoldenSet, wall: datetime, *, fresh: bool = False,
               traces: Mapping[str, Any] | None = None) -> CaseTimes:
    """The times of ``golden``'s cases; ``wall`` is now (read by the caller), ``fresh``: ``--record all``;
    ``traces``: its runs as :func:`recorded_traces` read them (read here when not given).

    A run in ``runs/`` that cannot be read, or has no ``started_at``, dates nothing (the run replaces it)."""
    if fresh:
        return CaseTimes({}, golden.snapshot_time, wall, fresh)
    found: dict[str, datetime] = {}
    for case, data in (recorded_traces(golden) if traces is None else traces).items():
        stamp = data.get("started_at") if isinstance(data, dict) else None
        if isinstance(stamp, str):
            try:
                found[case] = parse_time(stamp)
            except ValueError:
                continue
    return CaseTimes(found, golden.snapshot_time, wall, fresh)


def recorded_traces(golden: GoldenSet) -> dict[str, Any]:
    """The golden set's runs as JSON, by case (the first file of a case wins; one that cannot be read is
    left out): read once, for the cases' times and to tell a re-run that changed nothing."""
    found: dict[str, Any] = {}
    if not os.path.isdir(os.path.join(golden.root, RUNS_DIR)) and golden.runs_dir is None:
        return found
    try:
        files = run_files(golden.root, golden.runs_dir)
    except InputError:
        return found
    within = golden.runs_dir if golden.runs_dir is not None else golden.root
    for file in files:
        try:
            data = load_json(file, root=within)
        except InputError:
            continue
        case = trace_case_id(data, os.path.splitext(os.path.basename(file))[0])
        if case is not None:
            found.setdefault(case, data)
    return found
