"""``sourcegate comment REPORT``: render the PR comment from a JSON report artifact, and post it.

The report is untrusted data: validated against its schema, then escaped by the renderer. Posting
is this command's whole job: unlike ``check --comment``, GitHub refusing the comment is its failure,
exit 5 (:attr:`gate.exitcodes.ExitCode.PUBLISH`).
"""

from __future__ import annotations

import argparse
import os
import sys

from gate.baseline import parse_report
from gate.commands.base import Subparsers, add_comment_author
from gate.exitcodes import ExitCode
from gate.jsonio import load_json
from gate.publish import comment_authors, emit, post_comment, run_url
from gate.report.registry import REPORTERS

__all__ = ["add_parser", "run"]


def add_parser(sub: Subparsers) -> None:
    """Add ``comment`` to the main parser."""
    m = sub.add_parser("comment", help="render (and post) the PR comment from a JSON report artifact")
    m.add_argument("report", metavar="REPORT", help="a JSON report written by `sourcegate check --json`")
    m.add_argument("--pr", type=int, metavar="NUMBER",
                   help="the pull request in $GITHUB_REPOSITORY (default: the one of this run's event)")
    m.add_argument("--output", metavar="FILE",
                   help="write the comment here ('-' for stdout) instead of posting it "
                        "(outside a pull request it is printed)")
    add_comment_author(m)


def run(args: argparse.Namespace) -> int:
    """Render the comment; write it to ``--output``, or post it (exit 5 when it could not be posted)."""
    authors = comment_authors(args.comment_author, os.environ) if args.output is None else ()
    report = parse_report(load_json(args.report), args.report)
    body = REPORTERS["comment"].make(run_url(os.environ)).render(report)
    if args.output is not None:
        emit(args.output, body)
        return ExitCode.PASS
    from gate.github import pr_context_from_env  # the HTTP client is slow to import: only when posting

    if args.pr is None and pr_context_from_env(os.environ) is None:
        print("sourcegate: not a pull request (no --pr, no pull_request event): the comment is printed, "
              "not posted", file=sys.stderr)
        emit("-", body)
        return ExitCode.PASS
    posted = post_comment(body, report.golden_name, os.environ, number=args.pr, authors=authors)
    return ExitCode.PASS if posted else ExitCode.PUBLISH
