"""A :class:`gate.model.Run` written out as a ``sourcegate-trace/1`` document (pure)."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from gate.model import TRACE_FORMAT, Run


def _time(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat().replace("+00:00", "Z")


def _day(value: date | None) -> str | None:
    return None if value is None else value.isoformat()


def _present(pairs: dict[str, Any]) -> dict[str, Any]:
    """The timing and usage fields that were recorded: the others are left out, as the schema has them
    optional (a trace without them is what it always was)."""
    return {k: v for k, v in pairs.items() if v is not None}


def trace_dict(run: Run) -> dict[str, Any]:
    """The trace document of a run, in the schema's key order (``case`` left out when empty)."""
    data: dict[str, Any] = {"format": TRACE_FORMAT}
    if run.case:
        data["case"] = run.case
    data["question"] = run.question
    if run.started_at is not None:
        data["started_at"] = _time(run.started_at)
    data["queries"] = list(run.queries)
    data["results"] = [
        {"query": r.query, "position": r.position, "title": r.title, "url": r.url, "snippet": r.snippet,
         "published": _day(r.published)}
        for r in run.results
    ]
    data["pages"] = [
        {"url": p.url, "final_url": p.final_url, "status": p.status, "text": p.text, "truncated": p.truncated,
         "fetched_at": _time(p.fetched_at), "published": _day(p.published),
         **_present({"started_at": _time(p.started_at), "duration_ms": p.duration_ms, "provider": p.provider,
                     "depth": p.depth})}
        # links only when the reader gave some, so a page's entry is what it always was
        | ({"links": list(p.links)} if p.links else {})
        for p in run.pages
    ]
    if run.searches:
        data["searches"] = [_present({"query": c.query, "started_at": _time(c.started_at),
                                      "duration_ms": c.duration_ms, "cost_usd": c.cost_usd,
                                      "provider": c.provider, "depth": c.depth}) for c in run.searches]
    if run.model_calls:
        data["model_calls"] = [_present({
            "started_at": _time(c.started_at), "duration_ms": c.duration_ms, "model": c.model,
            "input_tokens": c.input_tokens, "output_tokens": c.output_tokens,
            "cache_read_tokens": c.cache_read_tokens, "cache_write_tokens": c.cache_write_tokens,
            "cost_usd": c.cost_usd}) for c in run.model_calls]
    data["answer"] = run.answer
    if run.citations is not None:
        data["citations"] = [{"url": c.url, "quote": c.quote} for c in run.citations]
    if run.attempts:
        data["attempts"] = [
            {"rejected": list(a.rejected),
             "findings": [{"check": f.check, "url": f.url, "message": f.message} for f in a.findings],
             **_present({"kept": a.kept or None, "started_at": _time(a.started_at), "duration_ms": a.duration_ms})}
            for a in run.attempts]
    if run.replay is not None:
        data["replay"] = {
            "command": list(run.replay.command), "served": run.replay.served,
            "misses": [{"layer": m.layer, "key": m.key, "provider": m.provider,
                        **{k: v for k, v in (("request", m.request), ("reason", m.reason)) if v is not None}}
                       for m in run.replay.misses],
            "agent_error": run.replay.agent_error,
        }
        # written only when there is something to say, so a quiet run's trace is what it always was
        extra = {"stdout_dropped": run.replay.stdout_dropped, "stderr_dropped": run.replay.stderr_dropped,
                 "left_running": run.replay.left_running, "cross_case": list(run.replay.cross_case),
                 "outside_connections": run.replay.outside_connections,
                 "golden": run.replay.golden,
                 "live_requests": [{"host": r.host, "request": r.request, "count": r.count}
                                   for r in run.replay.live_requests],
                 "unserved_searches": list(run.replay.unserved_searches),
                 "unserved_pages": list(run.replay.unserved_pages)}
        data["replay"].update({k: v for k, v in extra.items() if v})
        if run.replay.network is not None:
            data["replay"]["network"] = {"confined": run.replay.network.confined,
                                         **_present({"reason": run.replay.network.reason})}
    if run.agent:
        data["agent"] = dict(run.agent)
    return data
