"""``POST /guard``: the gate's hard checks on an agent's draft, for an agent in any language.

Under a case's URL (``$SOURCEGATE_REPLAY_URL/guard``), the body is the draft as the agent would print
it, ``{"answer": "...", "citations": [{"url": "...", "quote": "..."}]}`` (citations optional: without
them the answer's links are what it cites), and the reply is what :meth:`gate.Recorder.guard` would
say of it, checked against what the replay server served the case so far::

    {"passed": false, "attempt": 1,
     "findings": [{"check": "fabricated_url", "url": "https://...", "message": "cited https://... but ..."}],
     "rejected": ["https://..."], "rejected_so_far": ["https://..."],
     "message": "The guard rejected answer 1:\\n- https://...: fabricated_url: ...\\nDo not cite ..."}

``message`` is what to tell the model (None when the draft passed). Every draft guarded is an attempt
of the case's trace (:func:`attempts_of`), the one whose answer the agent prints kept, so the loop
(draft, guard, tell the model, draft again) needs no Python. Outside a case the route is refused: it
has nothing to check a draft against.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from gate.model import Attempt, Citation, Finding
from gate.record.regenerate import Rejection, rejected_urls
from gate.replay.routes.base import Api, Reply, Route
from gate.replay.routes.frozen import FrozenWeb
from gate.replay.routes.wire import BadRequest, Request, Served

__all__ = ["GUARD", "GUARD_LAYER", "attempts_of"]

GUARD_LAYER = "guard"
"""The layer of a case's calls that guarded a draft (an attempt, never a page or a miss)."""


def _draft(request: Request) -> tuple[str, tuple[Citation, ...] | None]:
    body = request.json_object()
    answer = body.get("answer")
    if not isinstance(answer, str):
        raise BadRequest('expected {"answer": "...", "citations": [{"url": "...", "quote": "..."}]}')
    given = body.get("citations")
    if given is None:
        return answer, None
    if not isinstance(given, list):
        raise BadRequest("expected 'citations' to be a list")
    cited = []
    for i, c in enumerate(given):
        url = c.get("url") if isinstance(c, dict) else c
        quote = c.get("quote") if isinstance(c, dict) else None
        if not isinstance(url, str) or not url or (quote is not None and not isinstance(quote, str)):
            raise BadRequest(f"citation {i}: expected a URL, or {{\"url\": \"...\", \"quote\": \"...\"}}")
        cited.append(Citation(url, quote))
    return answer, tuple(cited)


def _finding(f: Finding) -> dict[str, Any]:
    return {"check": f.check, "url": f.url, "message": f.message}


def _guard(request: Request, web: FrozenWeb) -> Reply:
    answer, citations = _draft(request)
    found = request.case.guard(answer, citations) if request.case is not None else None
    if found is None:
        return GUARD.refuse(404, "POST /guard answers under a case's URL ($SOURCEGATE_REPLAY_URL/guard): it checks "
                                 "a draft against what that case was served")
    findings = [_finding(f) for f in found.findings]
    rejected = list(rejected_urls(found.findings))
    message = Rejection(found.attempt, found.findings, found.rejected_so_far).message() if findings else None
    served = Served(GUARD_LAYER, f"attempt {found.attempt}", None,
                    {"answer": answer, "rejected": rejected, "findings": findings}, True, request.target)
    return Reply(200, {"passed": not findings, "attempt": found.attempt, "findings": findings, "rejected": rejected,
                       "rejected_so_far": list(found.rejected_so_far), "message": message}, served=(served,))


def attempts_of(calls: Sequence[Served], answer: str | None, started_at: datetime | None) -> tuple[Attempt, ...]:
    """The drafts a case guarded, as attempts of its trace: each from the end of the one before (the
    run's start, for the first) to the end of its guard, timed from ``started_at``; kept, the last
    whose answer is ``answer`` (None: none is kept yet)."""
    guarded = [c for c in calls if c.layer == GUARD_LAYER and c.hit and isinstance(c.body, dict)]
    kept = max((i for i, c in enumerate(guarded) if answer is not None and c.body.get("answer") == answer),
               default=None)
    out = []
    ended = 0.0  # ms from the run's start: where the next attempt begins
    for i, c in enumerate(guarded):
        attempt = Attempt(rejected=tuple(c.body["rejected"]), kept=i == kept,
                          findings=tuple(Finding(f["check"], f["message"], f["url"]) for f in c.body["findings"]))
        if c.offset_ms is not None:
            end = c.offset_ms + (c.duration_ms or 0.0)
            if started_at is not None:
                attempt = replace(attempt, started_at=started_at + timedelta(milliseconds=ended),
                                  duration_ms=round(end - ended, 3))
            ended = end
        out.append(attempt)
    return tuple(out)


GUARD = Api("guard", (Route("POST", "/guard", _guard),), error=lambda _status, message: {"error": message})
"""The guard's route (see the module docstring)."""
