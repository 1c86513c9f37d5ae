"""Reporters by name: one :class:`Reporter` seam, and :data:`REPORTERS`.

A reporter is a pure renderer, ``render(report) -> str``; writing the text is the caller's job
(:func:`gate.deliver.publish.emit`). Each entry says how the reporter is made and, for those ``sourcegate
check`` writes to a file, the option's help and the file name in the action's report folder: the
CLI's ``--json``, ``--markdown``, ``--junit``, ``--html`` and ``--summary`` and the action's report files
derive from this dict, so adding a reporter is one module plus one line here (docs/reporters.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from types import MappingProxyType
from typing import Protocol, runtime_checkable

from gate.report.comment import CommentReporter
from gate.report.html import HtmlReporter
from gate.report.json import JsonReporter
from gate.report.junit import JUnitReporter
from gate.report.markdown import MarkdownReporter
from gate.report.summary import SummaryReporter
from gate.report.terminal import TerminalReporter
from gate.verdict.report import Report

__all__ = ["REPORTERS", "PieceReporter", "Reporter", "ReporterEntry", "file_reporters", "rendering"]


class Reporter(Protocol):
    """Renders a report as text: pure, no I/O."""

    def render(self, report: Report) -> str:
        """The report as this reporter's text."""


@runtime_checkable
class PieceReporter(Reporter, Protocol):
    """A reporter that also gives its text in pieces, so that a report of many cases is written as
    its cases are read back, never held whole (:class:`gate.report.json.JsonReporter`)."""

    def chunks(self, report: Report) -> Iterator[str]:
        """The text of :meth:`render`, in pieces."""


def rendering(reporter: Reporter, report: Report) -> str | Iterator[str]:
    """What ``check`` writes: the reporter's pieces when it has them, else its text."""
    return reporter.chunks(report) if isinstance(reporter, PieceReporter) else reporter.render(report)


@dataclass(frozen=True)
class ReporterEntry:
    """How to make one reporter, and where ``check`` writes it."""

    make: Callable[[str | None], Reporter]
    """the reporter, given the URL of the CI run (None outside Actions) for those that link to it"""
    help: str | None = None
    """the help of its ``check --NAME FILE`` option (None: ``check`` writes no file of it)"""
    file_name: str | None = None
    """its file in the action's report folder (None: the action writes no file of it)"""


REPORTERS: MappingProxyType[str, ReporterEntry] = MappingProxyType({
    "json": ReporterEntry(lambda _: JsonReporter(),
                          "write the JSON report ('-': stdout)",
                          "report.json"),
    "markdown": ReporterEntry(lambda _: MarkdownReporter(),
                              "write the markdown report ('-': stdout)", "report.md"),
    "comment": ReporterEntry(lambda run_url: CommentReporter(run_url=run_url)),
    "summary": ReporterEntry(lambda _: SummaryReporter(),
                             "write the job summary (default: $GITHUB_STEP_SUMMARY)", "summary.md"),
    "junit": ReporterEntry(lambda _: JUnitReporter(), "write JUnit XML ('-': stdout)", "junit.xml"),
    "html": ReporterEntry(lambda _: HtmlReporter(),
                          "write the HTML report, one page ('-': stdout)", "report.html"),
    "terminal": ReporterEntry(lambda _: TerminalReporter()),
})
"""Reporter name -> entry; the name is also the ``check`` option (``--json``) and the ``{name}`` key."""


def file_reporters() -> tuple[str, ...]:
    """The reporters ``check`` can write to a file, in the registry's order."""
    return tuple(name for name, entry in REPORTERS.items() if entry.help is not None)
