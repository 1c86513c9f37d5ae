"""The runs a report gated, named once by the door that ran the gate, so what is written about them (the
spans) is about those runs and no others.

    GatedRuns(("cached-snapshots/example",))                    # the set's own runs/
    GatedRuns(("cached-snapshots/example",), runs_dir="traces") # check --runs traces: the traces it gated
    GatedRuns(("cached-snapshots/example",), held=runs)         # run --check: the runs its agents gave
    GatedRuns(("a.json", "b.json"))                             # loose trace files

Reading them is an edge: :meth:`GatedRuns.load` reads each trace where the gate read it (traces kept
outside the set only inside their own folder, as the gate reads them), or hands back the runs held.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from gate.load.golden import load_trace, run_files
from gate.model import Run

__all__ = ["GatedRuns"]


@dataclass(frozen=True)
class GatedRuns:
    """Where the runs a report gated are: a golden-set folder (its ``runs/``, or ``runs_dir``), trace
    files, or the runs themselves, already in memory."""

    paths: tuple[str, ...]
    """one golden-set folder, or trace files (as the report's set was given)"""
    runs_dir: str | None = None
    """the folder its traces were read from instead of its ``runs/`` (``check --runs DIR``, the action's
    ``runs`` input)"""
    held: tuple[Run, ...] | None = None
    """the runs, when the gate took them from memory (``run --check``): not read again"""

    def load(self) -> dict[str, Run]:
        """The runs by case id."""
        if self.held is not None:
            return {run.case: run for run in self.held}
        if len(self.paths) == 1 and os.path.isdir(self.paths[0]):
            root = self.paths[0]
            within = root if self.runs_dir is None else self.runs_dir
            runs = (load_trace(f, within) for f in run_files(root, self.runs_dir))
        else:
            runs = (load_trace(f) for f in self.paths)
        return {run.case: run for run in runs}
