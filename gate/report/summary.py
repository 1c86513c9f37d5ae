"""The GitHub job summary (``$GITHUB_STEP_SUMMARY``): the PR comment's sections in its order, untrimmed,
the known failures listed one by one (the comment folds them), plus all cases.

GitHub shows up to 1 MiB of summary per step, counted in UTF-8 bytes, and drops the whole summary
when it is larger; the comment points here for what it had to leave out, so this keeps every
section whole and adds the four-axis vector of every case, trimming only to stay under that limit
(measured in bytes: text from pages in most scripts takes two to four bytes a character). Pure.
"""

from __future__ import annotations

from gate.report.comment import body_sections, read_cases, vectors
from gate.report.sections import fit, utf8_len
from gate.verdict.report import Report

__all__ = ["SUMMARY_LIMIT", "SUMMARY_OMISSION", "SummaryReporter"]

SUMMARY_LIMIT = 1024 * 1024 - 4096
"""GitHub refuses a step summary over 1 MiB (UTF-8 bytes): this much, with a margin for the notes around it."""
SUMMARY_OMISSION = ("_This job summary was trimmed to fit GitHub's 1 MiB limit{left}. The full report is "
                    "in the report artifact of this workflow run._")


class SummaryReporter:
    """Renders the job summary."""

    def __init__(self, limit: int = SUMMARY_LIMIT) -> None:
        """``limit`` in UTF-8 bytes."""
        self.limit = limit

    def render(self, report: Report) -> str:
        """Verdict, summary, notes, changed cases, failures, flips, all cases, details, footer."""
        read = read_cases(report, every=True)  # the cases read once, for every section
        sections = body_sections(report, max_notes=None, read=read, fold=False)
        sections.insert(-2, vectors(read.every or [], title="All cases"))
        return fit([s for s in sections if s.head and (s.keep or s.rows)], self.limit, measure=utf8_len,
                   omission=SUMMARY_OMISSION)
