"""Drift: every URL a golden set cites, checked on the live web now. A report, never a gate.

The merge gate reads what was recorded (``url_unresolved`` judges the recorded status), so a
third-party site going down cannot fail a pull request. Nothing else tells a team that the pages its
golden set cites have since died, moved to another site or changed; ``sourcegate drift`` does, on a
schedule. The data walks down these modules once:

    cited     the set's runs (and baseline) -> one CitedUrl per canonical URL, with what was recorded
    checker   CitedUrls -> an Answer each, many at once, per-host limits, retries  (live: one look)
    verdict   CitedUrl + Answer -> UrlDrift (ok, gone, moved, changed, error); the report; --fail-on
    render    DriftReport -> JSON (sourcegate-drift/1) and markdown

``hosts`` holds the per-host limits (as lychee's), ``model`` the values. Everything but ``checker``
and ``live`` is pure; names load on first use, so the command line's parser stays cheap (the live
check imports the HTTP client).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gate.lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "DRIFTED": "gate.drift.model",
    "VERDICTS": "gate.drift.model",
    "Answer": "gate.drift.model",
    "CitedUrl": "gate.drift.model",
    "DriftReport": "gate.drift.model",
    "UrlDrift": "gate.drift.model",
    "cited_urls": "gate.drift.cited",
    "Limits": "gate.drift.hosts",
    "check_live": "gate.drift.checker",
    "drift_report": "gate.drift.verdict",
    "failing": "gate.drift.verdict",
    "parse_fail_on": "gate.drift.verdict",
    "verdict": "gate.drift.verdict",
    "DRIFT_FORMAT": "gate.drift.render",
    "drift_json": "gate.drift.render",
    "drift_markdown": "gate.drift.render",
}

__all__ = [
    "DRIFTED",
    "DRIFT_FORMAT",
    "VERDICTS",
    "Answer",
    "CitedUrl",
    "DriftReport",
    "Limits",
    "UrlDrift",
    "drift_report",
    "check_live",
    "cited_urls",
    "drift_json",
    "drift_markdown",
    "failing",
    "parse_fail_on",
    "verdict",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())

if TYPE_CHECKING:
    from gate.drift.checker import check_live
    from gate.drift.cited import cited_urls
    from gate.drift.hosts import Limits
    from gate.drift.model import DRIFTED, VERDICTS, Answer, CitedUrl, DriftReport, UrlDrift
    from gate.drift.render import DRIFT_FORMAT, drift_json, drift_markdown
    from gate.drift.verdict import drift_report, failing, parse_fail_on, verdict
