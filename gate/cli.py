"""``sourcegate`` command line: argv -> settings -> run -> exit code.

This is the one place where exceptions become exit codes:

    0 pass · 1 the gate failed · 2 usage or input error · 3 inconclusive · 4 internal error

With several golden sets, each set's errors are mapped on their own (:func:`guarded`) and the run
exits with the most severe code of all: 2, then 4, 1, 3, 0 (see ``gate.goldensets``).
"""

from __future__ import annotations

import argparse
import re
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import Any

from gate import __version__, init_command
from gate.console import add_options as add_console_options
from gate.errors import (
    EXIT_FAIL,
    EXIT_INCONCLUSIVE,
    EXIT_INTERNAL,
    EXIT_PASS,
    GateError,
    InputError,
)
from gate.helptext import add_examples
from gate.suggest import did_you_mean

VERDICT_EXIT = {"pass": EXIT_PASS, "fail": EXIT_FAIL, "inconclusive": EXIT_INCONCLUSIVE}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse exits by itself; raise instead so the exit-code mapping stays in one place.
        raise InputError(f"usage: {_with_suggestion(message)} (see `{self.prog} --help`)")


def _with_suggestion(message: str) -> str:
    """argparse's ``invalid choice: 'chek' (choose from 'check', ...)`` with "did you mean" added."""
    m = re.match(r"(argument [^:]+: invalid choice: '([^']*)') \(choose from (.*)\)$", message)
    if m is None:
        return message
    choices = re.findall(r"'([^']*)'", m.group(3))
    return f"{m.group(1)}{did_you_mean(m.group(2), choices)}; choose from {', '.join(choices)}"


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every sub-command."""
    p = _Parser(prog="sourcegate", description="Did the search agent read what it cites? A merge gate.")
    p.add_argument("--version", action="version", version=f"sourcegate {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    c = sub.add_parser("check", help="run the gate on golden sets or trace files")
    c.add_argument("paths", nargs="*", metavar="PATH",
                   help="golden-set folders (each in turn: outputs then need {name}) or trace files "
                        "(default: the sets under cached-snapshots/)")
    add_check_options(c)
    c.add_argument("--shard", type=_shard, metavar="I/N", help="check shard I of N only, for `merge`")
    _add_baseline_command(sub)
    _add_snapshot_command(sub)
    _add_import_command(sub)
    init_command.add_parser(sub, _Parser)
    _add_run_command(sub)
    _add_merge_command(sub)
    add_examples(p)
    return p


def add_check_options(c: argparse.ArgumentParser) -> None:
    """``check``'s report options (``run --check`` takes them too)."""
    c.add_argument("--config", metavar="FILE", help="sourcegate.yaml (default: the one beside the set)")
    c.add_argument("--json", metavar="FILE", help="write the JSON report ('-': stdout)")
    c.add_argument("--markdown", metavar="FILE", help="write the markdown report ('-': stdout)")
    c.add_argument("--judge", choices=("live", "replay", "off"), default=None, metavar="MODE",
                   help="live, replay (judge cache only) or off (default: judge.mode)")
    c.add_argument("--otlp-json", metavar="FILE",
                   help="write the runs as OTLP/JSON spans (docs/spans.md)")
    c.add_argument("--otlp-endpoint", metavar="URL", help="send the spans over OTLP/HTTP to a collector")
    _add_baseline_options(c)
    add_console_options(c)


def _add_baseline_options(c: argparse.ArgumentParser) -> None:
    c.add_argument("--baseline", metavar="FILE", help="baseline to compare with (default: SET/baseline.json)")
    c.add_argument("--baseline-ref", metavar="REF",
                   help="read baseline, golden.yaml, config and trusted judge cache at this git revision")
    c.add_argument("--trust-config", action="store_true",
                   help="use a --config the base revision lacks (docs/trust.md)")
    c.add_argument("--junit", metavar="FILE", help="write JUnit XML ('-': stdout)")
    c.add_argument("--summary", metavar="FILE", help="write the job summary (default: $GITHUB_STEP_SUMMARY)")
    c.add_argument("--comment", action="store_true",
                   help="post or update the PR comment (exit code unchanged)")
    _add_comment_author(c)


def _shard(value: str) -> object:
    from gate.shards import parse_shard

    try:
        return parse_shard(value)
    except InputError as e:
        raise argparse.ArgumentTypeError(str(e)) from e


def _add_merge_command(sub: Any) -> None:
    from gate.mergerun import add_parser

    def options(m: argparse.ArgumentParser) -> None:
        _add_baseline_options(m)
        add_console_options(m)

    add_parser(sub, _Parser, options)


def cmd_merge(args: argparse.Namespace) -> int:
    """``merge GOLDEN PARTIAL...``: shards back into one report, compared and decided once."""
    from gate.mergerun import run

    return run(args)


def _login(value: str) -> str:
    from gate.publish import LOGIN_FORM, is_login

    if not is_login(value):
        raise argparse.ArgumentTypeError(f"{value!r} is not a GitHub login ({LOGIN_FORM})")
    return value


def _add_comment_author(c: argparse.ArgumentParser) -> None:
    c.add_argument("--comment-author", action="append", type=_login, metavar="LOGIN",
                   help="also take LOGIN's comments as ours, e.g. my-app[bot] (repeatable; default: "
                        "$SOURCEGATE_COMMENT_AUTHORS)")


def _add_baseline_command(sub: Any) -> None:
    b = sub.add_parser("baseline", help="record the baseline that later runs are compared with")
    bsub = b.add_subparsers(dest="baseline_command", required=True, parser_class=_Parser)
    u = bsub.add_parser("update", help="run the gate on a golden set and write its baseline.json")
    u.add_argument("paths", nargs="+", metavar="PATH", help="golden-set folders (one baseline each)")
    u.add_argument("--config", help="sourcegate.yaml (default: the one beside the golden set)")
    u.add_argument("--baseline", metavar="FILE",
                   help="where to write it (default: PATH/baseline.json; with several sets it needs {name})")
    u.add_argument("--force", action="store_true",
                   help="write it even when the run does not pass (the baseline then says it was forced)")
    u.add_argument("--judge", choices=("live", "replay", "off"), default=None,
                   help="LLM judges for this run (default: judge.mode in the config)")
    m = sub.add_parser("comment", help="render (and post) the PR comment from a JSON report artifact")
    m.add_argument("report", metavar="REPORT", help="a JSON report written by `sourcegate check --json`")
    m.add_argument("--pr", type=int, metavar="NUMBER",
                   help="the pull request in $GITHUB_REPOSITORY (default: the one of this run's event)")
    m.add_argument("--output", metavar="FILE",
                   help="write the comment here ('-' for stdout) instead of posting it "
                        "(outside a pull request it is printed)")
    _add_comment_author(m)


def cmd_check(args: argparse.Namespace) -> int:
    """Run the gate on each golden set and write the reports; the verdicts decide the exit code."""
    from gate.checkrun import check

    return check(args)


def cmd_baseline(args: argparse.Namespace) -> int:
    """``baseline update``: write each set's baseline.json; only from a passing run, unless --force."""
    from gate.checkrun import baseline_update

    return baseline_update(args)


def cmd_comment(args: argparse.Namespace) -> int:
    """Render the PR comment from a JSON report (untrusted data: validated, then escaped) and post it."""
    import os

    from gate.baseline import parse_report
    from gate.github import pr_context_from_env
    from gate.jsonio import load_json
    from gate.publish import comment_authors, emit, post_comment, run_url
    from gate.report.comment import CommentReporter

    authors = comment_authors(args.comment_author, os.environ) if args.output is None else ()
    report = parse_report(load_json(args.report), args.report)
    body = CommentReporter(run_url=run_url(os.environ)).render(report)
    if args.output is not None:
        emit(args.output, body)
        return EXIT_PASS
    if args.pr is None and pr_context_from_env(os.environ) is None:
        print("sourcegate: not a pull request (no --pr, no pull_request event): the comment is printed, "
              "not posted", file=sys.stderr)
        emit("-", body)
        return EXIT_PASS
    # Posting is this command's whole job: unlike `check --comment`, a refusal is its failure.
    posted = post_comment(body, report.golden_name, os.environ, number=args.pr, authors=authors)
    return EXIT_PASS if posted else EXIT_INTERNAL


def _add_snapshot_command(sub: Any) -> None:
    from gate.snapshot.commands import add_parser

    add_parser(sub, _Parser)


def cmd_snapshot(args: argparse.Namespace) -> int:
    """``snapshot build|verify|serve``: the recorded search, fetch and extraction layers."""
    from gate.snapshot.commands import run

    return run(args)


def _add_import_command(sub: Any) -> None:
    from gate.importers.commands import add_parser

    add_parser(sub, _Parser)


def cmd_import(args: argparse.Namespace) -> int:
    """``import FORMAT INPUT... --out DIR``: runs recorded in other shapes -> trace files."""
    from gate.importers.commands import run

    return run(args)


def _add_run_command(sub: Any) -> None:
    from gate.runner.command import add_parser

    add_parser(sub, _Parser, add_check_options)


def cmd_run(args: argparse.Namespace) -> int:
    """``run GOLDEN -- CMD ARGS...``: the agent once per case against the snapshot; its traces."""
    from gate.runner.command import run

    return run(args)


COMMANDS = {"check": cmd_check, "baseline": cmd_baseline, "comment": cmd_comment, "snapshot": cmd_snapshot,
            "import": cmd_import, "init": init_command.run, "run": cmd_run, "merge": cmd_merge}


def guarded(run: Callable[[], int], label: str = "") -> int:
    """``run()``, with its exceptions mapped to exit codes: a GateError is its message and its code,
    anything else is our bug (the trace, exit 4). ``label`` names the golden set when a run has
    several, each guarded on its own so that one set's error does not stop the next."""
    try:
        return run()
    except GateError as e:
        print(f"sourcegate: error: {label}{e}", file=sys.stderr)
        return e.exit_code
    except Exception:  # the last resort: say it is our bug, with the trace
        print(f"sourcegate: {label}internal error (please report it):", file=sys.stderr)
        traceback.print_exc()
        return EXIT_INTERNAL


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: parse, run, map exceptions to exit codes."""
    def run() -> int:
        from gate.runner.command import split_argv

        own, agent = split_argv(sys.argv[1:] if argv is None else argv)
        try:
            args = build_parser().parse_args(own)
        except SystemExit as done:  # --help and --version: printed, and a success
            return done.code if isinstance(done.code, int) else EXIT_PASS
        args.agent = agent  # `run`'s command, after `--`: never parsed as options
        return COMMANDS[args.command](args)

    try:
        return guarded(run)
    except KeyboardInterrupt:
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
