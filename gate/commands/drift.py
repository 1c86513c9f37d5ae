"""``sourcegate drift GOLDEN``: every URL the golden set cites, checked on the live web now.

A report for a schedule, never part of the merge gate (docs/drift.md says why). Everything that can
be refused is refused before the first request (exit 2): the set, the configuration and its
``record.allow``, the baseline, ``--fail-on``, and every output path. Then the URLs are collected
(:mod:`gate.drift.cited`), looked at live (:mod:`gate.drift.checker`), judged once
(:func:`gate.drift.verdict.drift_report`) and the reports written all or nothing. The exit code is
0, or 1 when a URL has a verdict ``--fail-on`` names.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from datetime import UTC, datetime

from gate.commands.base import Subparsers
from gate.config import load_config
from gate.deliver.delivery import write_all
from gate.deliver.targets import Target, check_targets, reads_of
from gate.drift.cited import cited_urls
from gate.drift.hosts import Limits
from gate.drift.model import DriftVerdict
from gate.drift.render import drift_json, drift_markdown, summary_line
from gate.drift.verdict import drift_report, failing, parse_fail_on
from gate.errors import InputError
from gate.exitcodes import ExitCode
from gate.load.golden import load_golden
from gate.pipeline import SetRequest
from gate.store.baseline import read_baseline
from gate.term.progress import for_cli

__all__ = ["add_parser", "run"]

_DEFAULTS = Limits()


def _verdicts(text: str) -> tuple[DriftVerdict, ...]:
    try:
        return parse_fail_on(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from e


def _count(low: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        if not text.isdigit() or int(text) < low:
            raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number, at least {low}")
        return int(text)
    return parse


def add_parser(sub: Subparsers) -> None:
    """Add ``drift`` to the main parser."""
    d = sub.add_parser("drift", help="check every cited URL on the live web now (a report, never a gate)")
    d.add_argument("golden", metavar="GOLDEN", help="a golden-set folder")
    d.add_argument("--config", metavar="FILE",
                   help="sourcegate.yaml: its record: section (allow, max_bytes, deadline_seconds, "
                        "max_redirects) applies (default: the one beside the set)")
    d.add_argument("--baseline", metavar="FILE", help="also check the URLs this baseline's cases cite")
    d.add_argument("--content", action="store_true",
                   help="GET every page and compare its extracted text with the recorded one (changed)")
    d.add_argument("--json", metavar="FILE", help="write the JSON report (sourcegate-drift/1)")
    d.add_argument("--markdown", metavar="FILE",
                   help="write the markdown report (default: to stdout when no report is asked for)")
    d.add_argument("--fail-on", type=_verdicts, default=(), metavar="VERDICTS",
                   help="exit 1 when a URL is one of these, e.g. gone,moved (gone, moved, changed, error)")
    d.add_argument("--max-concurrency", type=_count(1), default=_DEFAULTS.max_concurrency, metavar="N",
                   help=f"URLs checked at once (default {_DEFAULTS.max_concurrency})")
    d.add_argument("--host-concurrency", type=_count(1), default=_DEFAULTS.host_concurrency, metavar="N",
                   help=f"URLs of one host checked at once (default {_DEFAULTS.host_concurrency})")
    d.add_argument("--max-retries", type=_count(0), default=_DEFAULTS.max_retries, metavar="N",
                   help=f"retries of a 408, 429, 5xx or cut connection (default {_DEFAULTS.max_retries})")
    d.add_argument("-q", "--quiet", action="store_true", help="no progress and no summary line on stderr")


def run(args: argparse.Namespace) -> int:
    """Check the set's cited URLs live, write the reports; 1 when ``--fail-on`` matches, else 0."""
    root = args.golden
    if not os.path.isdir(root):
        raise InputError("expected a golden-set folder", file=root)
    if "changed" in args.fail_on and not args.content:
        raise InputError("usage: --fail-on changed needs --content (the text is compared only then)")
    outputs = {"--json": args.json, "--markdown": args.markdown}
    if args.json is None and args.markdown is None:
        outputs["--markdown"] = "-"
    reads = reads_of(SetRequest((root,), args.config, baseline=args.baseline, compare=args.baseline is not None))
    check_targets([Target(flag, path) for flag, path in outputs.items() if path is not None], reads)
    config = load_config(args.config, beside=root)
    golden = load_golden(root)
    baseline = None
    if args.baseline is not None:
        baseline = read_baseline(args.baseline)
        if baseline is None:
            raise InputError("no such file (--baseline)", file=args.baseline)
    cited = cited_urls(golden, baseline=baseline, content=args.content)
    limits = Limits(max_concurrency=args.max_concurrency, host_concurrency=args.host_concurrency,
                    max_retries=args.max_retries)
    from gate.drift.checker import check_live  # the HTTP client is slow to import: only when checking

    started = datetime.now(UTC)
    answers = check_live(cited, config.record, limits=limits, content=args.content, source=config.source,
                         progress=for_cli(quiet=args.quiet))
    report = drift_report(golden.name, golden.version, cited, answers, content=args.content,
                          checked_at=started.strftime("%Y-%m-%dT%H:%M:%SZ"), baseline=args.baseline)
    rendered = {"--json": drift_json, "--markdown": drift_markdown}
    write_all([(path, rendered[flag](report)) for flag, path in outputs.items() if path is not None])
    hits = failing(report, args.fail_on)
    if not args.quiet:
        print(summary_line(report), file=sys.stderr)
        if hits:
            print(f"sourcegate drift: exit 1: {len(hits)} URL(s) are {', '.join(args.fail_on)} (--fail-on)",
                  file=sys.stderr)
    return ExitCode.FAIL if hits else ExitCode.PASS
