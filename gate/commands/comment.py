"""``sourcegate comment REPORT``: render the PR comment from a JSON report artifact, and post it.

The report is untrusted data: validated against its schema, then escaped by the renderer. Posting
is this command's whole job: unlike ``check --comment``, GitHub refusing the comment is its failure,
exit 5 (:attr:`gate.exitcodes.ExitCode.PUBLISH`). The action's comment mode does the same job
through :func:`gate.store.baseline.read_artifact` and :func:`gate.deliver.comment.post_report`.
"""

from __future__ import annotations

import argparse
import os
import sys

from gate.commands.base import Subparsers, add_comment_author
from gate.deliver.comment import comment_body, post_report
from gate.deliver.publish import comment_authors, emit
from gate.deliver.targets import Target, check_targets
from gate.exitcodes import ExitCode
from gate.store.baseline import read_artifact

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
    if args.output is not None:
        check_targets([Target("--output", args.output)], {args.report: "the report (REPORT)"})
    report = read_artifact(args.report)
    if args.output is not None:
        emit(args.output, comment_body(report, os.environ))
        return ExitCode.PASS
    from gate.github import pr_context_from_env  # the HTTP client is slow to import: only when posting

    if args.pr is None and pr_context_from_env(os.environ) is None:
        print("sourcegate: not a pull request (no --pr, no pull_request event): the comment is printed, "
              "not posted", file=sys.stderr)
        emit("-", comment_body(report, os.environ))
        return ExitCode.PASS
    posted = post_report(report, os.environ, number=args.pr, authors=authors)
    return ExitCode.PASS if posted is not None else ExitCode.PUBLISH
