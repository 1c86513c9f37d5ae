"""The JSON reporter: the report in its JSON format (``sourcegate-report/1``, :mod:`gate.report.serialise`)."""

from __future__ import annotations

from gate.report.serialise import dump_report
from gate.results import Report

__all__ = ["JsonReporter"]


class JsonReporter:
    """Renders the report as JSON text."""

    def render(self, report: Report) -> str:
        """The report as indented JSON."""
        return dump_report(report)
