"""``sourcegate merge GOLDEN PARTIAL... --json report.json``: shards back into the report of one run.

    sourcegate check cached-snapshots/example --shard 1/4 --json shard-1.json   # one per matrix job
    sourcegate merge cached-snapshots/example shard-*.json --json report.json --baseline-ref "$BASE"

The rules (configuration, baseline, trusted judge-cache entries) are resolved from the golden set
as ``check`` resolves them, and every partial report must have run under the same configuration
and would have been compared with the same baseline (:mod:`gate.merge` refuses anything else,
naming the file). The cases are put back in the run's order, the report is built, compared with
the baseline and decided once: the result is the report an unsharded ``check`` writes.
``gate.cli`` registers this through :func:`add_parser` and calls :func:`run`.
"""

from __future__ import annotations

import argparse
import os
from datetime import UTC, datetime
from typing import Any

from gate.errors import InputError

__all__ = ["add_parser", "run"]


def add_parser(sub: Any, parser_class: type[argparse.ArgumentParser], options: Any) -> None:
    """Add ``merge`` to the sub-parsers ``sub``; ``options`` adds the report and baseline flags of ``check``."""
    del parser_class  # no sub-commands of its own
    m = sub.add_parser("merge", help="combine the partial reports of `check --shard i/n` into one report",
                       description="Combine the partial reports of every shard of one golden set into the "
                                   "report an unsharded `sourcegate check` writes, then compare and decide.")
    m.add_argument("golden", metavar="GOLDEN", help="the golden-set folder the shards ran on")
    m.add_argument("partials", nargs="+", metavar="PARTIAL",
                   help="partial reports written by `sourcegate check GOLDEN --shard i/n --json FILE`")
    m.add_argument("--config", help="sourcegate.yaml (default: the one beside the golden set)")
    m.add_argument("--json", metavar="FILE", help="write the merged JSON report here ('-' for stdout)")
    m.add_argument("--markdown", metavar="FILE", help="write the markdown report here ('-' for stdout)")
    options(m)


def run(args: argparse.Namespace) -> int:
    """Read the partial reports, merge them, compare and decide once, write the reports."""
    from gate.baseline import attach_baseline
    from gate.checkrun import Outputs, deliver
    from gate.console import terminal_mode
    from gate.evaluate import build_report
    from gate.jsonio import load_json
    from gate.load import load_golden
    from gate.merge import Partial, baseline_digest, merge_cases, parse_partial
    from gate.publish import comment_authors
    from gate.rules import resolve_rules
    from gate.shards import config_digest

    if not os.path.isdir(args.golden):
        raise InputError("expected the golden-set folder the shards ran on", file=args.golden)
    authors = comment_authors(args.comment_author, os.environ) if args.comment else ()
    golden = load_golden(args.golden)
    out = Outputs.of(argparse.Namespace(otlp_json=None, **vars(args)), golden.name,
                     default_markdown=not terminal_mode(args))
    rules = resolve_rules([args.golden], args.config, baseline=out.baseline, ref=args.baseline_ref,
                          trust_config=args.trust_config)
    partials = [Partial(f, parse_partial(load_json(f), f)) for f in args.partials]
    merged = merge_cases(partials, golden_name=golden.name, golden_version=golden.version,
                         config=config_digest(rules.config),
                         baseline=baseline_digest(rules.baseline, rules.origin.commit if rules.origin else None))
    report = build_report(merged.golden_name, merged.golden_version, merged.cases, rules.config,
                          judge_mode=merged.judge_mode, warnings=merged.warnings)
    report = attach_baseline(report, rules, now=datetime.now(UTC))
    return deliver(report, [args.golden], out, argparse.Namespace(otlp_endpoint=None, **vars(args)), authors)
