"""``sourcegate baseline update PATH...``: record the baseline that later runs are compared with.

Each golden set gets its ``baseline.json``, only from a passing run unless ``--force`` (the
baseline then says it was forced). Several sets run in turn, as with ``check``; every set's target
is checked before the first set runs (:mod:`gate.deliver.targets`).
"""

from __future__ import annotations

import argparse
import os
import sys
from datetime import UTC, datetime

from gate.commands.base import Parser, Subparsers, add_judge_options
from gate.commands.sets import each_set
from gate.deliver.targets import Target, check_targets, reads_of, set_name
from gate.errors import InputError
from gate.exitcodes import ExitCode
from gate.load.goldensets import NAME_FIELD, GoldenSetPaths, per_set_file, require_name_field, split_sets
from gate.pipeline import SetRequest, run_set
from gate.store.baseline import baseline_file, refusal, stamped, write_baseline
from gate.text.redact import secret_values
from gate.verdict.report import report_exit

__all__ = ["add_parser", "run"]


def add_parser(sub: Subparsers) -> None:
    """Add ``baseline`` and its ``update`` sub-command to the main parser."""
    b = sub.add_parser("baseline", help="record the baseline that later runs are compared with")
    bsub = b.add_subparsers(dest="baseline_command", required=True, parser_class=Parser)
    u = bsub.add_parser("update", help="run the gate on a golden set and write its baseline.json")
    u.add_argument("paths", nargs="+", metavar="PATH", help="golden-set folders (one baseline each)")
    u.add_argument("--config", help="sourcegate.yaml (default: the one beside the golden set)")
    u.add_argument("--baseline", metavar="FILE",
                   help="where to write it (default: PATH/baseline.json; with several sets it needs {name})")
    u.add_argument("--force", action="store_true",
                   help="write it even when the run does not pass (the baseline then says it was forced)")
    add_judge_options(u)


def run(args: argparse.Namespace) -> int:
    """Write each golden set's baseline.json; only from a passing run, unless ``--force``."""
    for p in args.paths:
        if not os.path.isdir(p):
            raise InputError("expected a golden-set folder", file=p)
    sets = split_sets(args.paths)
    require_name_field({"--baseline": args.baseline}, len(sets))
    reads: dict[str, str] = {}
    targets = []
    for s in sets:
        reads.update(reads_of(_request(s, args)))
        targets.append(Target("--baseline", _target(s, args), owner=s.label if len(sets) > 1 else None,
                              within=s.paths[0]))
    check_targets(targets, reads)
    return each_set(sets, lambda s: _update_one(s, args), "baseline update")


def _request(golden: GoldenSetPaths, args: argparse.Namespace) -> SetRequest:
    return SetRequest(golden.paths, args.config, args.judge, compare=False, judge_provider=args.judge_provider,
                      secrets=secret_values(os.environ))


def _target(golden: GoldenSetPaths, args: argparse.Namespace, name: str | None = None) -> str:
    """Where the set's baseline goes: ``--baseline`` with ``{name}`` replaced, else SET/baseline.json."""
    if args.baseline is not None and NAME_FIELD in args.baseline:
        name = name or golden.name or set_name(golden.paths)
    return per_set_file(args.baseline, name) or baseline_file(golden.paths[0])


def _update_one(golden: GoldenSetPaths, args: argparse.Namespace) -> int:
    [path] = golden.paths
    report = run_set(_request(golden, args))
    why = refusal(report, args.force)
    if why is not None:
        print(f"sourcegate: baseline not written: {why}", file=sys.stderr)
        return report_exit(report)
    target = _target(golden, args, golden.name or report.golden_name)
    out = stamped(report, datetime.now(UTC), args.force)
    write_baseline(target, out, within=path)
    forced = " (FORCED over a failing run: the baseline says so)" if out.stamp and out.stamp.forced else ""
    print(f"sourcegate: baseline written to {target}: {len(report.cases)} cases, "
          f"verdict {report.verdict}{forced}",
          file=sys.stderr)
    return ExitCode.PASS
