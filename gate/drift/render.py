"""The drift report as JSON (``sourcegate-drift/1``) and as markdown for the job summary or an issue. Pure.

The markdown starts with a hidden marker line (:func:`gate.text.marker.marker` of kind ``drift``),
by which a scheduled workflow finds the one issue it keeps up to date. Every URL, case id and reason
goes through the project's one escaping (:mod:`gate.text.escape`): a page's redirect target is
untrusted text, shown as code, never as a link.
"""

from __future__ import annotations

from typing import Any

from gate.drift.model import DRIFTED, VERDICTS, DriftReport, UrlDrift
from gate.files.jsonio import dump_json
from gate.text.escape import md, md_code, md_url
from gate.text.marker import marker
from gate.version import __version__

__all__ = ["DRIFT_FORMAT", "MAX_ROWS", "drift_data", "drift_json", "drift_markdown", "summary_line"]

DRIFT_FORMAT = "sourcegate-drift/1"
MAX_ROWS = 200
"""The most drifted URLs the markdown lists (an issue's body holds 65,536 characters); the JSON has all."""
_MAX_CASES = 5


def drift_data(report: DriftReport) -> dict[str, Any]:
    """The report as the JSON value of ``sourcegate-drift/1`` (gate/schemas/drift.json)."""
    return {
        "format": DRIFT_FORMAT,
        "golden": {"name": report.golden_name, "version": report.golden_version},
        "tool": {"name": "sourcegate", "version": __version__},
        "checked_at": report.checked_at,
        "content": report.content,
        "baseline": report.baseline,
        "counts": {v: report.count(v) for v in VERDICTS},
        "urls": [_url(u) for u in report.urls],
    }


def _url(u: UrlDrift) -> dict[str, Any]:
    return {"url": u.url, "verdict": u.verdict, "reason": u.reason, "recorded_status": u.recorded_status,
            "recorded_final_url": u.recorded_final_url, "status": u.status, "final_url": u.final_url,
            "method": u.method, "content": u.content, "attempts": u.attempts, "cases": list(u.cases)}


def drift_json(report: DriftReport) -> str:
    """The JSON report's text."""
    return dump_json(drift_data(report))


def _counts(report: DriftReport) -> str:
    return ", ".join(f"{report.count(v)} {v}" for v in VERDICTS)


def summary_line(report: DriftReport) -> str:
    """The one line said on stderr: how many URLs, and how many of each verdict."""
    total = len(report.urls)
    return (f"sourcegate drift: golden set {report.golden_name} v{report.golden_version}: "
            f"{total} cited URL{'' if total == 1 else 's'}: {_counts(report)}")


def drift_markdown(report: DriftReport) -> str:
    """The markdown report: a headline, the counts, and a table of every drifted URL."""
    drifted, total = report.drifted, len(report.urls)
    name = md_code(report.golden_name, in_table=False)
    if drifted:
        head = f"## sourcegate drift: {len(drifted)} of {total} cited URLs drifted · golden set {name}"
    else:
        head = f"## sourcegate drift: nothing drifted · golden set {name}"
    how = "HEAD, else GET" if not report.content else "GET, each page's text compared with the recorded one"
    lines = [marker(report.golden_name, "drift"), head, "",
             f"Every URL the golden set's runs cite{' and its baseline' if report.baseline else ''}, checked "
             f"on the live web at {md_code(report.checked_at, in_table=False)} ({how}): "
             + ", ".join(f"**{report.count(v)} {v}**" for v in DRIFTED) + f", {report.count('ok')} ok."]
    if drifted:
        lines += ["", "| verdict | URL | what changed | cited by |", "|---|---|---|---|"]
        lines += [f"| {u.verdict} | {md_url(u.url, max_len=300)} | {md(u.reason, max_len=400)} | {_cases(u)} |"
                  for u in drifted[:MAX_ROWS]]
        if len(drifted) > MAX_ROWS:
            lines += ["", f"… and {len(drifted) - MAX_ROWS} more drifted URLs: see the JSON report."]
    lines += ["", f"<sub>golden set {name} version {report.golden_version} · sourcegate {__version__} · "
                  "a report, never a gate: the merge gate replays the recorded snapshot, so a site that "
                  "moves on cannot fail a pull request. Re-snapshot the set, or change the cases that cite "
                  "these pages.</sub>", ""]
    return "\n".join(lines)


def _cases(u: UrlDrift) -> str:
    shown = ", ".join(md_code(c) for c in u.cases[:_MAX_CASES])
    more = len(u.cases) - _MAX_CASES
    return f"{shown} and {more} more" if more > 0 else shown
