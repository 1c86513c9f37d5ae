"""``sourcegate check`` and ``sourcegate baseline update`` over one golden set or several.

Each set runs in turn with its own config (beside it, unless ``--config``), baseline, judge cache,
comparison, reports and PR comment; :mod:`gate.goldensets` holds the rules (which paths form a
set, ``{name}`` in output paths, the exit code of the whole run). Everything that can be refused
without running (a missing path, folders mixed with trace files, two sets of one name, an output
path without ``{name}``) is refused before the first set runs. After that, one set's error is said
on stderr (naming the set) and the next set still runs; :func:`gate.cli.guarded` maps it to that
set's exit code.

With one set, nothing differs from what these commands always did.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING

from gate.console import show, terminal_mode
from gate.errors import EXIT_PASS, InputError
from gate.goldensets import GoldenSetPaths, combined_exit, default_paths, per_set_file, require_name_field, split_sets
from gate.outputs import is_stdout

if TYPE_CHECKING:
    from gate.results import Report

__all__ = ["FILE_FLAGS", "Outputs", "baseline_update", "check", "deliver"]

FILE_FLAGS = ("json", "markdown", "junit", "summary", "baseline", "otlp_json")
"""The ``check`` options that name a file: with several sets, each needs ``{name}`` (or is '-')."""


@dataclass(frozen=True)
class Outputs:
    """Where each rendering of one set goes (None: not written, '-': stdout)."""

    json: str | None = None
    markdown: str | None = None
    junit: str | None = None
    summary: str | None = None
    baseline: str | None = None
    otlp_json: str | None = None

    @classmethod
    def of(cls, args: argparse.Namespace, name: str | None, default_markdown: bool = True) -> Outputs:
        """The ``check`` flags with ``{name}`` replaced; markdown to stdout when no report is asked for
        (unless ``default_markdown`` is off: the terminal report takes its place)."""
        out = cls(*(per_set_file(getattr(args, f), name) for f in FILE_FLAGS))
        asked = out.json is not None or out.markdown is not None
        return replace(out, markdown="-") if default_markdown and not asked else out

    @property
    def stdout_taken(self) -> bool:
        """A report is written to stdout ('-', or stdout under another name such as /dev/stdout)."""
        return any(t is not None and (t == "-" or is_stdout(t))
                   for t in (self.json, self.markdown, self.junit, self.summary, self.otlp_json))


def _each(sets: Sequence[GoldenSetPaths], run: Callable[[GoldenSetPaths], int], command: str) -> int:
    """Run every set (an error in one is its own exit code); the whole run's code is the most severe."""
    from gate.cli import guarded

    several = len(sets) > 1
    codes = [guarded(partial(run, s), f"golden set {s.label!r}: " if several else "") for s in sets]
    if several:
        listed = ", ".join(f"{s.label} (exit {c})" for s, c in zip(sets, codes, strict=True))
        print(f"sourcegate: {command} ran {len(sets)} golden sets: {listed}; exit {combined_exit(codes)}",
              file=sys.stderr)
    return combined_exit(codes)


def check(args: argparse.Namespace) -> int:
    """Run the gate on each golden set and write its reports; the verdicts decide the exit code."""
    from gate.publish import comment_authors

    sets = split_sets(args.paths or default_paths())
    require_name_field({f"--{f.replace('_', '-')}": getattr(args, f) for f in FILE_FLAGS}, len(sets))
    # A malformed author (flag or variable) stops the run before any set runs, not after.
    authors = comment_authors(args.comment_author, os.environ) if args.comment else ()
    one_set = len(sets) == 1 and os.path.isdir(sets[0].paths[0])
    if getattr(args, "shard", None) is not None and (args.comment or not one_set):
        raise InputError("--shard takes one golden-set folder and no --comment: "
                         "`sourcegate merge` writes the comment once the shards are merged")
    return _each(sets, lambda s: _check_one(s, args, authors), "check")


def _check_one(golden: GoldenSetPaths, args: argparse.Namespace, authors: tuple[str, ...]) -> int:
    from gate.baseline import attach_baseline
    from gate.gaterun import run_paths, set_name
    from gate.rules import resolve_rules

    # {name} works with one set too; on a terminal the terminal report replaces the default markdown
    out = Outputs.of(args, golden.name or set_name(golden.paths), default_markdown=not terminal_mode(args))
    # The rules first (at the base revision with --baseline-ref), then one run under them.
    rules = resolve_rules(golden.paths, args.config, baseline=out.baseline, ref=args.baseline_ref,
                          trust_config=args.trust_config)
    shard = getattr(args, "shard", None)
    if shard is not None:
        from gate.shards import ShardSelection

        shard = ShardSelection(shard)
    report = run_paths(list(golden.paths), args.config, judge_mode=args.judge, config=rules.config,
                       trusted_judgements=rules.trusted_judgements, now=datetime.now(UTC), shard=shard)
    if shard is not None:
        from gate.merge import baseline_digest
        from gate.shards import config_digest

        # A shard is not compared with the baseline: `sourcegate merge` does that once, for all.
        mark = shard.mark(config_digest(rules.config), baseline_digest(
            rules.baseline, rules.origin.commit if rules.origin else None))
        deliver(replace(report, shard=mark), golden.paths, out, args, authors)
        return EXIT_PASS
    report = attach_baseline(report, rules, now=datetime.now(UTC))
    return deliver(report, golden.paths, out, args, authors)


def deliver(report: Report, paths: Sequence[str], out: Outputs, args: argparse.Namespace,
            authors: tuple[str, ...]) -> int:
    """Render and write the reports of one set, then publish; the verdict's exit code."""
    from gate.cli import VERDICT_EXIT
    from gate.publish import emit
    from gate.report.json import JsonReporter
    from gate.report.markdown import MarkdownReporter

    # Render everything before writing anything: a rendering error leaves no file behind.
    spans = None
    if out.otlp_json is not None or args.otlp_endpoint is not None:
        from gate.spans import prepare

        spans = prepare(report, paths, json_file=out.otlp_json, endpoint=args.otlp_endpoint)
    rendered: list[tuple[str, str]] = []
    if out.json is not None:
        rendered.append((out.json, JsonReporter().render(report)))
    if out.markdown is not None:
        rendered.append((out.markdown, MarkdownReporter().render(report)))
    if out.junit is not None:
        from gate.report.junit import JUnitReporter

        rendered.append((out.junit, JUnitReporter().render(report)))
    for target, text in rendered:
        emit(target, text)
    if spans is not None:
        spans()
    _publish(report, out.summary, args.comment, authors)
    show(report, args, out.stdout_taken)
    return VERDICT_EXIT[report.verdict]


def _publish(report: Report, summary: str | None, comment: bool, authors: tuple[str, ...]) -> None:
    """Job summary, then the PR comment (keyed by the set's name): neither changes the exit code."""
    from gate.publish import post_comment, run_url, summary_target, write_summary

    target, append = summary_target(summary, os.environ)
    if target is not None:
        from gate.report.summary import SummaryReporter

        write_summary(SummaryReporter().render(report), target, append)
    if comment:
        from gate.report.comment import CommentReporter

        body = CommentReporter(run_url=run_url(os.environ)).render(report)
        post_comment(body, report.golden_name, os.environ, authors=authors)


def baseline_update(args: argparse.Namespace) -> int:
    """Write each golden set's baseline.json; only from a passing run, unless ``--force``."""
    for p in args.paths:
        if not os.path.isdir(p):
            raise InputError("expected a golden-set folder", file=p)
    sets = split_sets(args.paths)
    require_name_field({"--baseline": args.baseline}, len(sets))
    return _each(sets, lambda s: _update_one(s, args), "baseline update")


def _update_one(golden: GoldenSetPaths, args: argparse.Namespace) -> int:
    from gate.baseline import baseline_file, refusal, stamped, write_baseline
    from gate.cli import VERDICT_EXIT
    from gate.gaterun import run_paths

    [path] = golden.paths
    report = run_paths([path], args.config, judge_mode=args.judge)
    why = refusal(report, args.force)
    if why is not None:
        print(f"sourcegate: baseline not written: {why}", file=sys.stderr)
        return VERDICT_EXIT[report.verdict]
    target = per_set_file(args.baseline, golden.name or report.golden_name) or baseline_file(path)
    out = stamped(report, datetime.now(UTC), args.force)
    write_baseline(target, out, within=path)
    forced = " (FORCED over a failing run: the baseline says so)" if out.stamp and out.stamp.forced else ""
    print(f"sourcegate: baseline written to {target}: {len(report.cases)} cases, "
          f"verdict {report.verdict}{forced}",
          file=sys.stderr)
    return EXIT_PASS
