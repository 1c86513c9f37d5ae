"""``--case ID`` and ``--failed``: ``check`` and ``run`` on fewer cases at a time, as ``pytest -k`` and
``--lf`` do (:mod:`gate.load.subset` says what a subset is and is not).

``--failed`` reads the cases that failed from the report of the previous run: the file ``--json``
names (``{name}`` replaced), which this run's report then replaces, so ``--failed`` again takes what
still fails. Without ``--json FILE``, or with no report there yet, it is refused, saying so.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable

from gate.errors import InputError
from gate.load.goldensets import per_set_file
from gate.load.subset import Pick, failed_in
from gate.store.baseline import read_artifact

__all__ = ["add_case_options", "case_pick", "refuse_case_options"]


def add_case_options(p: argparse.ArgumentParser) -> None:
    """``--case ID`` (repeatable, a glob) and ``--failed``, one or the other."""
    g = p.add_mutually_exclusive_group()
    g.add_argument("--case", action="append", metavar="ID",
                   help="only cases matching ID, a glob (repeatable; a subset)")
    g.add_argument("--failed", action="store_true",
                   help="only the cases that failed in the last --json report")


def refuse_case_options(args: argparse.Namespace, sets: int, folder: bool) -> None:
    """What a subset cannot do: run on several sets or loose traces, be a shard, post the PR comment."""
    given = "--case" if getattr(args, "case", None) else "--failed" if getattr(args, "failed", False) else None
    if given is None:
        return
    if sets != 1 or not folder:
        raise InputError(f"{given} takes the cases of one golden set: give one golden-set folder")
    if getattr(args, "shard", None) is not None:
        raise InputError(f"{given} and --shard: a shard is a share of every case; give one or the other")
    if args.comment:
        raise InputError(f"{given} runs a subset of the cases, which is no verdict on the pull request: "
                         "it posts no comment (run every case for that)")


def case_pick(args: argparse.Namespace, name: Callable[[], str]) -> Pick | None:
    """The cases ``args`` ask for (None: every case); ``--failed``'s are read from the ``--json``
    report now, of the set ``name()`` names (asked only then: without ``--failed`` no file is read)."""
    if getattr(args, "case", None):
        return Pick(tuple(args.case), " ".join(f"--case {c}" for c in args.case))
    if not getattr(args, "failed", False):
        return None
    set_name = name()
    file = per_set_file(args.json, set_name) if args.json not in (None, "-") else None
    if file is None:
        raise InputError("--failed reads the cases that failed from the report of the previous run: give "
                         "that report with --json FILE (this run's report then takes its place)")
    if not os.path.isfile(file):
        raise InputError("--failed: no report here to take the failed cases from; run once with "
                         f"--json {file} first", file=file)
    report = read_artifact(file)
    ids = failed_in(((c.id, len(c.hard_failures)) for c in report.cases), set_name, report.golden_name, file)
    return Pick(ids, f"--failed: the case(s) that failed in {file}", strict=False)
