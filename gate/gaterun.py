"""Load -> check -> report for the paths the CLI was given. I/O lives here, not in the core."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence

from gate.config import Config, load_config
from gate.errors import InputError
from gate.evaluate import build_report, evaluate_pairing
from gate.load import Pairing, load_golden, load_trace
from gate.model import Case
from gate.results import Report


def _trace_pairings(files: Sequence[str]) -> Iterator[Pairing]:
    seen: set[str] = set()
    for f in files:
        run = load_trace(f)
        if run.case in seen:
            raise InputError(f"a second run for case {run.case!r}", file=f, path="$.case")
        seen.add(run.case)
        yield Pairing(Case(id=run.case, question=run.question), run)


def run_paths(paths: Sequence[str], config_file: str | None) -> Report:
    """Run the gate on one golden-set folder, or on a list of trace files."""
    dirs = [p for p in paths if os.path.isdir(p)]
    if dirs and len(paths) > 1:
        raise InputError("give one golden-set folder, or trace files, not both or several folders")
    for p in paths:
        if not os.path.exists(p):
            raise InputError("no such file or folder", file=p)
    if dirs:
        from gate.load import iter_pairings

        golden = load_golden(dirs[0])
        config = load_config(config_file, beside=golden.root)
        return build_report(golden.name, golden.version,
                            (evaluate_pairing(p, config) for p in iter_pairings(golden)), config)
    config = load_config(config_file) if config_file else Config()
    return build_report("traces", None, (evaluate_pairing(p, config) for p in _trace_pairings(paths)), config)
