"""``sourcegate merge GOLDEN PARTIAL...``: the shards of one golden set back into one report.

The partial reports of ``check GOLDEN --shard i/n --json FILE`` are merged, each case checked again
from its trace, compared with the baseline and decided once (:func:`gate.pipeline.merged_report`), then written
and published as ``check`` writes and publishes one set's report: the same report options, job
summary and PR comment.
"""

from __future__ import annotations

import argparse
import os
from datetime import UTC, datetime

from gate.commands.base import Subparsers
from gate.commands.check import add_report_options, add_runs_option, report_flags
from gate.deliver.console import terminal_mode
from gate.deliver.delivery import Delivery, Outputs, deliver
from gate.deliver.publish import comment_authors
from gate.deliver.targets import check_targets, reads_of, set_name
from gate.errors import InputError
from gate.load.gated import GatedRuns
from gate.pipeline import MergeRequest, merged_report
from gate.text.redact import secret_values

__all__ = ["add_parser", "run"]


def add_parser(sub: Subparsers) -> None:
    """Add ``merge`` to the main parser: the golden set, the partial reports, and check's report options."""
    m = sub.add_parser("merge", help="combine the partial reports of `check --shard i/n` into one report",
                       description="Combine the partial reports of every shard of one golden set into the "
                                   "report an unsharded `sourcegate check` writes, then compare and decide.")
    m.add_argument("golden", metavar="GOLDEN", help="the golden-set folder the shards ran on")
    m.add_argument("partials", nargs="+", metavar="PARTIAL",
                   help="partial reports written by `sourcegate check GOLDEN --shard i/n --json FILE`")
    add_report_options(m)
    add_runs_option(m)


def run(args: argparse.Namespace) -> int:
    """Merge the partial reports, compare and decide once, write the reports; the verdict's exit code."""
    if not os.path.isdir(args.golden):
        raise InputError("expected the golden-set folder the shards ran on", file=args.golden)
    # A malformed author (flag or variable) stops the merge before anything is read.
    authors = comment_authors(args.comment_author, os.environ) if args.comment else ()
    request = MergeRequest(args.golden, tuple(args.partials), args.config, args.baseline, args.baseline_ref,
                           args.trust_config, args.runs, secret_values(os.environ))
    flags = argparse.Namespace(otlp_json=None, **vars(args))
    report_flags(flags)
    # Every output path is checked before a partial report is read.
    check_targets(Outputs.of(flags, set_name((args.golden,)), default_markdown=False).targets(os.environ),
                  reads_of(request))
    report = merged_report(request, now=datetime.now(UTC))
    out = Outputs.of(flags, report.golden_name, default_markdown=not terminal_mode(args))
    return deliver(report, GatedRuns((args.golden,), args.runs), out, Delivery.of(args, authors))
