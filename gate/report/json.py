"""The JSON reporter: the report in its JSON format (``sourcegate-report/1``, :mod:`gate.store.serialise`)."""

from __future__ import annotations

from collections.abc import Iterator

from gate.store.casestore import records_of
from gate.store.serialise import report_chunks
from gate.verdict.report import Report

__all__ = ["JsonReporter"]


class JsonReporter:
    """Renders the report as JSON text."""

    def render(self, report: Report) -> str:
        """The report as indented JSON."""
        return "".join(self.chunks(report))

    def chunks(self, report: Report) -> Iterator[str]:
        """The same text in pieces, one case at a time: a report of many cases is written as it is
        read from its :class:`gate.store.casestore.CaseStore`, never held whole."""
        return report_chunks(report, records_of(report.cases))
