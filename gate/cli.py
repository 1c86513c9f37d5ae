"""``sourcegate`` command line: argv -> settings -> run -> exit code.

This is the one place where exceptions become exit codes:

    0 pass · 1 the gate failed · 2 usage or input error · 3 inconclusive · 4 internal error
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gate.errors import (
    EXIT_FAIL,
    EXIT_INCONCLUSIVE,
    EXIT_INTERNAL,
    EXIT_PASS,
    GateError,
    InputError,
)

if TYPE_CHECKING:
    from gate.results import Report

VERDICT_EXIT = {"pass": EXIT_PASS, "fail": EXIT_FAIL, "inconclusive": EXIT_INCONCLUSIVE}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse exits by itself; raise instead so the exit-code mapping stays in one place.
        raise InputError(f"usage: {message} (see `sourcegate --help`)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every sub-command."""
    p = _Parser(prog="sourcegate", description="Did the search agent read what it cites? A merge gate.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    c = sub.add_parser("check", help="run the gate on golden sets or trace files")
    c.add_argument("paths", nargs="+", metavar="PATH", help="a golden-set folder, or trace files")
    c.add_argument("--config", help="sourcegate.yaml (default: the one beside the golden set)")
    c.add_argument("--json", metavar="FILE", help="write the JSON report here ('-' for stdout)")
    c.add_argument("--markdown", metavar="FILE", help="write the markdown report here ('-' for stdout)")
    c.add_argument("--judge", choices=("live", "replay", "off"), default=None,
                   help="LLM judges: live (call the API, record), replay (judge cache only) or off "
                        "(default: judge.mode in the config, itself 'replay' by default)")
    _add_baseline_options(c)
    _add_baseline_command(sub)
    _add_snapshot_command(sub)
    return p


def _add_baseline_options(c: argparse.ArgumentParser) -> None:
    c.add_argument("--baseline", metavar="FILE",
                   help="the baseline report to compare with (default: baseline.json in the golden set)")
    c.add_argument("--baseline-ref", metavar="REF",
                   help="read the baseline and golden.yaml at this git revision (the PR's base), "
                        "not from the working tree")
    c.add_argument("--junit", metavar="FILE", help="write JUnit XML here ('-' for stdout)")
    c.add_argument("--summary", metavar="FILE",
                   help="write the job summary here ('-' for stdout; "
                        "default: append to $GITHUB_STEP_SUMMARY when it is set)")
    c.add_argument("--comment", action="store_true",
                   help="create or update the PR comment (GitHub Actions; never changes the exit code)")


def _add_baseline_command(sub: Any) -> None:
    b = sub.add_parser("baseline", help="record the baseline that later runs are compared with")
    bsub = b.add_subparsers(dest="baseline_command", required=True, parser_class=_Parser)
    u = bsub.add_parser("update", help="run the gate on a golden set and write its baseline.json")
    u.add_argument("path", metavar="PATH", help="a golden-set folder")
    u.add_argument("--config", help="sourcegate.yaml (default: the one beside the golden set)")
    u.add_argument("--baseline", metavar="FILE", help="where to write it (default: PATH/baseline.json)")
    u.add_argument("--force", action="store_true",
                   help="write it even when the run does not pass (the baseline then says it was forced)")
    u.add_argument("--judge", choices=("live", "replay", "off"), default=None,
                   help="LLM judges for this run (default: judge.mode in the config)")
    m = sub.add_parser("comment", help="render (and post) the PR comment from a JSON report artifact")
    m.add_argument("report", metavar="REPORT", help="a JSON report written by `sourcegate check --json`")
    m.add_argument("--pr", type=int, metavar="NUMBER",
                   help="the pull request in $GITHUB_REPOSITORY (default: the one of this run's event)")
    m.add_argument("--output", metavar="FILE",
                   help="write the comment here ('-' for stdout) instead of posting it")


@dataclass(frozen=True)
class Outputs:
    """Where each rendering goes (None: not written, '-': stdout)."""

    json: str | None = None
    markdown: str | None = None


def _emit(target: str | None, text: str) -> None:
    from gate.jsonio import write_atomic

    if target is None:
        return
    if target == "-":
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        write_atomic(target, text)


def cmd_check(args: argparse.Namespace) -> int:
    """Run the gate and write the reports; the verdict decides the exit code."""
    from gate.gaterun import run_paths
    from gate.report.json import JsonReporter
    from gate.report.markdown import MarkdownReporter

    report = run_paths(args.paths, args.config, judge_mode=args.judge)
    report = _compared(report, args)
    outputs = Outputs(json=args.json, markdown=args.markdown)
    if outputs.json is None and outputs.markdown is None:
        outputs = Outputs(markdown="-")
    # Render everything before writing anything: a rendering error leaves no file behind.
    rendered = {}
    if outputs.json is not None:
        rendered[outputs.json] = JsonReporter().render(report)
    if outputs.markdown is not None:
        rendered[outputs.markdown] = MarkdownReporter().render(report)
    rendered.update(_github_renderings(report, args))
    for target, text in rendered.items():
        _emit(target, text)
    _publish(report, args)
    return VERDICT_EXIT[report.verdict]


def _compared(report: Report, args: argparse.Namespace) -> Report:
    """The report compared with its baseline (if any) and decided again against it."""
    from datetime import UTC, datetime

    from gate.baseline import attach_baseline

    return attach_baseline(report, args.paths, args.config, file=args.baseline, ref=args.baseline_ref,
                           now=datetime.now(UTC))


def _github_renderings(report: Report, args: argparse.Namespace) -> dict[str, str]:
    rendered = {}
    if args.junit is not None:
        from gate.report.junit import JUnitReporter

        rendered[args.junit] = JUnitReporter().render(report)
    return rendered


def _publish(report: Report, args: argparse.Namespace) -> None:
    """Job summary, then the PR comment: neither can change the verdict or the exit code."""
    import os

    from gate.publish import post_comment, run_url, summary_target, write_summary

    target, append = summary_target(args.summary, os.environ)
    if target is not None:
        from gate.report.summary import SummaryReporter

        write_summary(SummaryReporter().render(report), target, append)
    if args.comment:
        from gate.report.comment import CommentReporter

        body = CommentReporter(run_url=run_url(os.environ)).render(report)
        post_comment(body, report.golden_name, os.environ)


def cmd_baseline(args: argparse.Namespace) -> int:
    """``baseline update``: run the gate and write baseline.json; only a passing run, unless --force."""
    import os
    from datetime import UTC, datetime

    from gate.baseline import baseline_file, refusal, stamped, write_baseline
    from gate.gaterun import run_paths

    if not os.path.isdir(args.path):
        raise InputError("expected a golden-set folder", file=args.path)
    report = run_paths([args.path], args.config, judge_mode=args.judge)
    why = refusal(report, args.force)
    if why is not None:
        print(f"sourcegate: baseline not written: {why}", file=sys.stderr)
        return VERDICT_EXIT[report.verdict]
    target = args.baseline or baseline_file(args.path)
    out = stamped(report, datetime.now(UTC), args.force)
    write_baseline(target, out)
    forced = " (FORCED over a failing run: the baseline says so)" if out.stamp and out.stamp.forced else ""
    print(f"sourcegate: baseline written to {target}: {len(report.cases)} cases, "
          f"verdict {report.verdict}{forced}",
          file=sys.stderr)
    return EXIT_PASS


def cmd_comment(args: argparse.Namespace) -> int:
    """Render the PR comment from a JSON report (untrusted data: validated, then escaped) and post it."""
    import os

    from gate.baseline import parse_report
    from gate.jsonio import load_json
    from gate.publish import post_comment, run_url
    from gate.report.comment import CommentReporter

    report = parse_report(load_json(args.report), args.report)
    body = CommentReporter(run_url=run_url(os.environ)).render(report)
    if args.output is not None:
        _emit(args.output, body)
        return EXIT_PASS
    # Posting is this command's whole job: unlike `check --comment`, a refusal is its failure.
    return EXIT_PASS if post_comment(body, report.golden_name, os.environ, number=args.pr) else EXIT_INTERNAL


def _add_snapshot_command(sub: Any) -> None:
    from gate.snapshot.commands import add_parser

    add_parser(sub, _Parser)


def cmd_snapshot(args: argparse.Namespace) -> int:
    """``snapshot build|verify|serve``: the recorded search, fetch and extraction layers."""
    from gate.snapshot.commands import run

    return run(args)


COMMANDS = {"check": cmd_check, "baseline": cmd_baseline, "comment": cmd_comment, "snapshot": cmd_snapshot}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: parse, run, map exceptions to exit codes."""
    try:
        args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
        return COMMANDS[args.command](args)
    except GateError as e:
        print(f"sourcegate: error: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        return EXIT_INTERNAL
    except Exception:  # the last resort: say it is our bug, with the trace
        print("sourcegate: internal error (please report it):", file=sys.stderr)
        traceback.print_exc()
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
