"""A cited URL's verdict from what was recorded and what the live web answers now. Pure.

    error    no answer to judge: refused by the guard, nothing within the deadline, a network
             error, or rate-limited (408, 429) through every retry
    gone     answers 4xx or 5xx now, where the recording had a 2xx (or no status)
    moved    now ends on another registered domain than the cited URL's and the recorded
             final URL's (a redirect that already left the site when recorded is not drift)
    changed  with ``--content``: 2xx then and now, and the page's extracted text differs
    ok       answers as it did: a page that failed when recorded and fails now is not drift

The checks are tried in that order, so a redirect to another site that answers 404 is ``gone``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from typing import Literal

from gate.drift.model import DRIFTED, VERDICTS, Answer, CitedUrl, DriftReport, DriftVerdict, UrlDrift
from gate.text.suggest import did_you_mean
from gate.urls import host, registered_domain

__all__ = ["drift_report", "failing", "parse_fail_on", "verdict"]


def _ok(status: int | None) -> bool:
    return status is not None and 200 <= status < 300


def _site(url: str) -> str:
    return registered_domain(host(url))


def _then(status: int | None) -> str:
    return "no status recorded" if status is None else f"HTTP {status} when recorded"


def verdict(cited: CitedUrl, answer: Answer, content: bool = False) -> UrlDrift:
    """The verdict on one cited URL (see the module docstring)."""
    kind, reason, same = _judge(cited, answer, content)
    if answer.note:
        reason = f"{reason} ({answer.note})"
    return UrlDrift(url=cited.url, verdict=kind, reason=reason, cases=cited.cases,
                    recorded_status=cited.recorded_status, recorded_final_url=cited.recorded_final_url,
                    status=answer.status, final_url=answer.final_url, method=answer.method, content=same,
                    attempts=answer.attempts)


def _judge(cited: CitedUrl, answer: Answer, content: bool
           ) -> tuple[DriftVerdict, str, Literal["same", "changed"] | None]:
    recorded, status = cited.recorded_status, answer.status
    if answer.error is not None or status is None:
        return "error", answer.error or "no answer", None
    failed_then = recorded is not None and not _ok(recorded)
    if status >= 400:
        if failed_then:
            return "ok", f"answers HTTP {status}; it failed when recorded too (HTTP {recorded})", None
        return "gone", f"answers HTTP {status} now; {_then(recorded)}", None
    final = answer.final_url or cited.url
    if _site(final) not in (_site(cited.url), _site(cited.recorded_final_url or cited.url)):
        return "moved", f"now redirects to another site: {final}", None
    if not (content and _ok(status) and not failed_then):
        return "ok", f"answers HTTP {status}; {_then(recorded)}", None
    if cited.recorded_hash is None or answer.text_hash is None:
        why = cited.unhashed if cited.recorded_hash is None else "no text to compare today"
        return "ok", f"answers HTTP {status}; text not compared: {why}", None
    if cited.recorded_hash != answer.text_hash:
        return "changed", f"answers HTTP {status}, but the page's text changed since it was recorded", "changed"
    return "ok", f"answers HTTP {status} with the text recorded", "same"


def drift_report(golden_name: str, golden_version: int, cited: Iterable[CitedUrl], answers: Mapping[str, Answer],
                 *, content: bool, checked_at: str, baseline: str | None = None) -> DriftReport:
    """The report of one set: every cited URL judged against its answer (by URL), drifted first."""
    rows = [verdict(c, answers[c.url], content) for c in cited]
    order = {v: i for i, v in enumerate(VERDICTS)}
    rows.sort(key=lambda r: (order[r.verdict], r.url))
    return DriftReport(golden_name, golden_version, checked_at, content, tuple(rows), baseline)


def parse_fail_on(text: str) -> tuple[DriftVerdict, ...]:
    """The verdicts of ``--fail-on gone,moved``; ValueError naming an unknown one (with "did you mean")."""
    found: list[DriftVerdict] = []
    for word in (w.strip() for w in text.split(",")):
        match = next((v for v in DRIFTED if v == word), None)
        if match is None:
            raise ValueError(f"{word!r} is not a verdict{did_you_mean(word, DRIFTED)}; "
                             f"choose from {', '.join(DRIFTED)}")
        if match not in found:
            found.append(match)
    return tuple(found)


def failing(report: DriftReport, fail_on: Collection[str]) -> tuple[UrlDrift, ...]:
    """The URLs whose verdict is one of ``fail_on``: the run exits 1 when there is any."""
    return tuple(u for u in report.urls if u.verdict in fail_on)
