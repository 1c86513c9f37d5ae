"""The PR comment of a report artifact: rendered with a link to the gate's run, posted or updated in place."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import TYPE_CHECKING, TextIO

from gate.deliver.publish import gate_run_url, post_comment
from gate.report.registry import REPORTERS
from gate.verdict.report import Report

if TYPE_CHECKING:
    from gate.github import UpsertResult

__all__ = ["comment_body", "post_report"]


def comment_body(report: Report, env: Mapping[str, str]) -> str:
    """The PR comment of ``report``, linking to the run that made the report: in a ``workflow_run``
    event the gate's run it names, else the CI run that ``env`` describes (if any)."""
    return REPORTERS["comment"].make(gate_run_url(env)).render(report)


def post_report(report: Report, env: Mapping[str, str], *, number: int | None = None,
                authors: Collection[str] | None = None, err: TextIO | None = None) -> UpsertResult | None:
    """Post (or update) the report's comment on pull request ``number`` (None: this run's event).

    ``env`` holds the CI run's variables and ``GITHUB_TOKEN`` (:func:`gate.deliver.publish.post_comment`).
    Returns what GitHub did and where the comment is; None when it was not posted, said on ``err``
    (posting is this command's job: the caller then exits 5).
    """
    return post_comment(comment_body(report, env), report.golden_name, env, number=number, err=err,
                        authors=authors, fails=True)
