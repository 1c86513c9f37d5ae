"""The JSON report (``sourcegate-report/1``), which also serves as the baseline format."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from gate import __version__
from gate.jsonio import dump_json
from gate.results import CaseResult, Report


def case_to_dict(c: CaseResult) -> dict[str, Any]:
    """One case as JSON data."""
    return {
        "id": c.id,
        "question": c.question,
        "hard_failures": [{"check": f.check, "url": f.url, "message": f.message} for f in c.hard_failures],
        "checks": {s.check: {"status": s.status, "reason": s.reason} for s in c.checks},
        "figures": asdict(c.figures),
        "notes": list(c.notes),
        "regime": c.regime,
        "shape": c.shape,
    }


def report_to_dict(r: Report) -> dict[str, Any]:
    """The whole report as JSON data (no clock, no paths of this machine: reproducible)."""
    by_check: dict[str, int] = {}
    for c in r.cases:
        for f in c.hard_failures:
            by_check[f.check] = by_check.get(f.check, 0) + 1
    return {
        "format": "sourcegate-report/1",
        "verdict": r.verdict,
        "reasons": list(r.reasons),
        "golden": {"name": r.golden_name, "version": r.golden_version},
        "tool": {"name": "sourcegate", "version": __version__},
        "config": r.config_source,
        "summary": {
            "cases": len(r.cases),
            "failed_cases": sum(1 for c in r.cases if c.failed),
            "hard_failures": r.hard_failure_count,
            "by_check": dict(sorted(by_check.items())),
        },
        "cases": [case_to_dict(c) for c in r.cases],
    }


class JsonReporter:
    """Renders the report as JSON text."""

    def render(self, report: Report) -> str:
        """The report as indented JSON."""
        return dump_json(report_to_dict(report))
