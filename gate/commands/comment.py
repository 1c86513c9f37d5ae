"""``sourcegate comment REPORT``: render the PR comment from a JSON report artifact, and post it.

The report is untrusted data: validated against its schema, then escaped by the renderer. Posting
is this command's whole job: unlike ``check --comment``, GitHub refusing the comment is its failure,
exit 5 (:attr:`gate.exitcodes.ExitCode.PUBLISH`). The action's comment mode does the same job
through :func:`read_artifact` and :func:`post_report`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, TextIO

from gate.commands.base import Subparsers, add_comment_author
from gate.commands.targets import Target, check_targets
from gate.exitcodes import ExitCode
from gate.files.jsonio import load_json
from gate.publish import comment_authors, emit, gate_run_url, post_comment
from gate.report.registry import REPORTERS
from gate.store.baseline import parse_report
from gate.verdict.report import Report

if TYPE_CHECKING:
    from gate.github import UpsertResult

__all__ = ["add_parser", "comment_body", "post_report", "read_artifact", "run"]


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


def read_artifact(file: str) -> Report:
    """A JSON report artifact, validated against its schema (it may come from an untrusted workflow)."""
    return parse_report(load_json(file), file)


def comment_body(report: Report, env: Mapping[str, str]) -> str:
    """The PR comment of ``report``, linking to the run that made the report: in a ``workflow_run``
    event the gate's run it names, else the CI run that ``env`` describes (if any)."""
    return REPORTERS["comment"].make(gate_run_url(env)).render(report)


def post_report(report: Report, env: Mapping[str, str], *, number: int | None = None,
                authors: Collection[str] | None = None, err: TextIO | None = None) -> UpsertResult | None:
    """Post (or update) the report's comment on pull request ``number`` (None: this run's event).

    ``env`` holds the CI run's variables and ``GITHUB_TOKEN`` (:func:`gate.publish.post_comment`).
    Returns what GitHub did and where the comment is; None when it was not posted, said on ``err``
    (posting is this command's job: the caller then exits 5).
    """
    return post_comment(comment_body(report, env), report.golden_name, env, number=number, err=err,
                        authors=authors, fails=True)


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
