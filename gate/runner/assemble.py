"""A finished case -> its trace, as a :class:`gate.model.Run`. Pure.

An agent that saved its own trace (``$SOURCEGATE_TRACE_FILE``) keeps it, with a ``replay`` section
added: the command, the requests the snapshot did not hold, and what the gate saw of its
processes (output it dropped, processes left running, requests refused as crossing cases).
An agent that printed one JSON object on stdout instead,
``{"answer": "...", "citations": [{"url": "...", "quote": "..."}]}``,
gets a trace assembled from what the replay server answered its case: the queries it asked, the
results parsed by provider (:mod:`gate.snapshot.parsers`), the pages and extractions as served,
and ``replay.served`` true, since a server cannot know what the model read of them. Each search and
page read is timed as the server answered it, from the run's ``started_at`` on: a page keeps the
``fetched_at`` the snapshot recorded, and its read starts inside the run.

An agent that exited non-zero, timed out, or gave no answer has an ``agent_error`` with the last
exception its stderr shows, whole (else the end of its stderr), and where the kept stderr was
written; what it was served is kept, the answer is empty.

Every trace is dated by the recording's clock (:mod:`gate.runner.clock`): its ``started_at`` is the
moment the case was given, whatever the agent wrote, and the calls its own trace timed move with it
(:func:`redate`), so none starts outside the run. A trace the agent saved that records searches
the replay server never answered says so (``unserved_searches``), as does one that records pages it
never served (``unserved_pages``), and so does every request the agent sent past the frozen web
through the proxy (``live_requests``).

Each draft the agent had the replay server guard (``POST /guard``) is an attempt of the trace
(:func:`gate.replay.routes.guard.attempts_of`), the one whose answer it printed kept; a trace the agent
saved keeps its own attempts, when it records any.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta
from typing import Any

from gate.errors import InputError
from gate.files.jsonio import parse_time
from gate.model import (
    STDOUT_KEPT,
    Case,
    Citation,
    Confinement,
    LiveRequest,
    Page,
    Replay,
    ReplayMiss,
    Run,
    SearchCall,
    SearchResult,
)
from gate.replay.routes.guard import GUARD_LAYER, attempts_of
from gate.runner.output import last_exception
from gate.runner.scope import MAX_REFUSALS, Served
from gate.snapshot.parsers import PARSERS, detect, parse_results
from gate.snapshot.records import normalise_query
from gate.snapshot.store import search_failure
from gate.text.units import byte_size
from gate.urls import canonical

__all__ = ["STDERR_TAIL", "Assembled", "Finished", "assemble", "redate", "served", "stdout_answer", "unserved_pages"]

STDERR_TAIL = 300
"""Characters of the end of an agent's stderr kept in its ``agent_error`` (the whole message then fits
in the markdown report's 400 characters per finding)."""


@dataclass(frozen=True)
class Finished:
    """How one agent process ended: ``failure`` says why it gave no result (None: it exited 0).

    ``stdout`` and ``stderr`` are the ends the gate kept (:mod:`gate.runner.output`), after the
    ``*_dropped`` bytes it counted and let go; ``left_running``: the processes the agent left
    running when it exited, which the gate ended.
    """

    failure: str | None
    stdout: str
    stderr: str
    stdout_dropped: int = 0
    stderr_dropped: int = 0
    left_running: int = 0


def stdout_answer(stdout: str, dropped: int = 0) -> tuple[str, tuple[Citation, ...] | None]:
    """The answer an agent printed: one JSON object (alone, or the last line of its output).

    ``dropped``: bytes of the start of stdout the gate did not keep (:mod:`gate.runner.output`); then
    only the last line can be the answer. Raises :class:`InputError` saying what was expected.
    """
    text = stdout.strip()
    last = [text.splitlines()[-1]] if "\n" in text or dropped else []
    candidates = last if dropped else [text, *last]
    for candidate in candidates:
        try:
            data = json.loads(candidate)
        except ValueError:
            continue
        if isinstance(data, dict):
            return _answer(data)
    cut = (f" (the gate kept its last {byte_size(STDOUT_KEPT)} and dropped the {byte_size(dropped)} before them, "
           "so the answer must be its last line)") if dropped else ""
    raise InputError('printed no answer: expected one JSON object {"answer": "...", "citations": '
                     '[{"url": "...", "quote": "..."}]} on stdout' + ("" if text else " (stdout was empty)") + cut)


def _answer(data: dict[str, Any]) -> tuple[str, tuple[Citation, ...] | None]:
    answer = data.get("answer")
    if not isinstance(answer, str):
        raise InputError('printed JSON without a string "answer" on stdout')
    given = data.get("citations")
    if given is None:
        return answer, None
    if not isinstance(given, list):
        raise InputError('printed "citations" that is not a list')
    out = []
    for i, c in enumerate(given):
        url = c.get("url") if isinstance(c, dict) else None
        quote = c.get("quote") if isinstance(c, dict) else None
        if not isinstance(url, str) or not url or (quote is not None and not isinstance(quote, str)):
            raise InputError(f"printed citation {i} without a string \"url\" (and an optional string \"quote\")")
        out.append(Citation(url=url, quote=quote))
    return answer, tuple(out)


def misses(calls: Sequence[Served]) -> tuple[ReplayMiss, ...]:
    """The requests the snapshot did not hold, each once, in the order first asked."""
    seen: dict[tuple[str, str, str | None], ReplayMiss] = {}
    for c in calls:
        if not c.hit:
            seen.setdefault((c.layer, c.key, c.provider), ReplayMiss(c.layer, c.key, c.provider, c.request, c.reason))
    return tuple(seen.values())


def unserved(agent_trace: Run, calls: Sequence[Served]) -> tuple[str, ...]:
    """The queries of the agent's own trace that the replay server never answered (whitespace aside)."""
    asked = {normalise_query(c.key) for c in calls if c.layer == "search"}
    missing = dict.fromkeys(q for q in agent_trace.queries if normalise_query(q) not in asked)
    return tuple(missing)[:MAX_REFUSALS]


def unserved_pages(agent_trace: Run, calls: Sequence[Served]) -> tuple[str, ...]:
    """The URLs of the agent's own trace's pages that the replay server never served, as a page or an
    extraction (any spelling of the same URL counts as served)."""
    served = {canonical(c.key) for c in calls if c.hit and c.layer in ("pages", "extractions")}
    missing = dict.fromkeys(p.url for p in agent_trace.pages if canonical(p.url) not in served)
    return tuple(missing)[:MAX_REFUSALS]


def assemble(case: Case, command: Sequence[str], finished: Finished, calls: Sequence[Served],
             agent_trace: Run | None, started_at: datetime, cross_case: Sequence[str] = (),
             outside_connections: int = 0, live_requests: Sequence[LiveRequest] = (),
             stderr_log: str | None = None, network: Confinement | None = None) -> Run:
    """The run of one case; ``agent_trace`` is the trace the agent saved, if it saved one;
    ``started_at`` the recording's time of the case; ``cross_case``: the requests refused because they
    crossed between cases, ``outside_connections`` those served from a process of no running case
    (:mod:`gate.runner.owners`); ``live_requests`` those past the frozen web; ``stderr_log``: where
    the kept stderr of a failed agent is written (named in its ``agent_error``); ``network``: whether
    the agent ran confined to the replay server."""
    missed = misses(calls)
    failure = finished.failure
    facts = Replay(command=tuple(command), misses=missed, stdout_dropped=finished.stdout_dropped,
                   stderr_dropped=finished.stderr_dropped, left_running=finished.left_running,
                   cross_case=tuple(cross_case), outside_connections=outside_connections,
                   live_requests=tuple(live_requests), network=network)
    if failure is None and agent_trace is not None:
        return replace(redate(agent_trace, started_at), case=case.id,
                       attempts=agent_trace.attempts or attempts_of(calls, agent_trace.answer, started_at),
                       replay=replace(facts, unserved_searches=unserved(agent_trace, calls),
                                      unserved_pages=unserved_pages(agent_trace, calls)))
    answer, citations = "", None
    if failure is None:
        try:
            answer, citations = stdout_answer(finished.stdout, finished.stdout_dropped)
        except InputError as e:
            failure = str(e)
    if failure is not None:
        failure += _stderr_said(finished.stderr, finished.stderr_dropped, stderr_log)
    got = served(calls, started_at)
    return Run(case=case.id, question=case.question, answer=answer, queries=got.queries,
               results=got.results, pages=got.pages, citations=citations, started_at=started_at,
               source="<sourcegate run>", replay=replace(facts, served=True, agent_error=failure),
               searches=got.searches,
               attempts=attempts_of(calls, answer if failure is None else None, started_at))


def redate(run: Run, started_at: datetime) -> Run:
    """``run`` dated ``started_at``, the recording's time of its case, with every search, page read and
    model call it timed moved by as much, so they keep their order and lengths and stay inside the run.

    The times move from the run's own ``started_at`` (an agent that read the wall clock instead of
    ``SOURCEGATE_NOW``), else from the first call it timed; a page's ``fetched_at`` (the snapshot's time)
    stays as it is."""
    timed = [at for at in (*(c.started_at for c in run.searches), *(p.started_at for p in run.pages),
                           *(c.started_at for c in run.model_calls)) if at is not None]
    origin = run.started_at or min(timed, default=None)
    if origin is None or origin == started_at:
        return replace(run, started_at=started_at)
    shift = started_at - origin

    def moved(at: datetime | None) -> datetime | None:
        return None if at is None else at + shift

    return replace(run, started_at=started_at,
                   searches=tuple(replace(c, started_at=moved(c.started_at)) for c in run.searches),
                   pages=tuple(replace(p, started_at=moved(p.started_at)) for p in run.pages),
                   model_calls=tuple(replace(c, started_at=moved(c.started_at)) for c in run.model_calls))


def _stderr_said(stderr: str, dropped: int, log: str | None) -> str:
    """What a failed agent's stderr says: its last exception whole, else its last lines; and where it is kept."""
    if not stderr.strip():
        return "; its stderr was empty"
    exception = last_exception(stderr)
    said = (f"; its last exception: {exception}" if exception is not None
            else f"; the end of its stderr: {stderr[-STDERR_TAIL:].strip()}")
    kept = f", its last {byte_size(len(stderr.encode()))}" if dropped else ""
    return said + (f" (its stderr{kept}: {log})" if log else "")


@dataclass(frozen=True)
class Assembled:
    """What a case was served, as a run's queries, results, pages and timed searches."""

    queries: tuple[str, ...]
    results: tuple[SearchResult, ...]
    pages: tuple[Page, ...]
    searches: tuple[SearchCall, ...]


def served(calls: Sequence[Served], started_at: datetime) -> Assembled:
    """What the server answered, in order, each call timed as the server answered it (from the run's start);
    a draft it guarded is an attempt, not a page (:func:`gate.replay.routes.guard.attempts_of`)."""
    queries: list[str] = []
    results: list[SearchResult] = []
    pages: list[Page] = []
    searches: list[SearchCall] = []
    for c in calls:
        at = None if c.offset_ms is None else started_at + timedelta(milliseconds=c.offset_ms)
        if c.layer == "search":
            queries.append(c.key)
            if at is not None:
                searches.append(SearchCall(len(queries) - 1, at, c.duration_ms))
            if c.hit:
                results.extend(replace(r, query=len(queries) - 1) for r in _results(c))
        elif c.hit and isinstance(c.body, dict) and c.layer != GUARD_LAYER:
            pages.append(replace(_page(c), started_at=at, duration_ms=c.duration_ms if at is not None else None))
    return Assembled(tuple(queries), tuple(results), tuple(pages), tuple(searches))


def _results(call: Served) -> tuple[SearchResult, ...]:
    """The results of a served search; none for a recorded failure or a shape no parser knows."""
    if search_failure(call.body) is not None:
        return ()
    try:
        provider = call.provider if call.provider in PARSERS else detect(call.body)
        return parse_results(call.body, provider)
    except InputError:
        return ()


def _page(call: Served) -> Page:
    body = call.body
    fetched = body.get("fetched_at")
    published = body.get("published")
    text = body.get("body") if call.layer == "pages" else body.get("text")
    status = body.get("status")
    # an extraction serves the page's links beside its text: the agent was shown them
    anchors = body.get("anchors") if call.layer == "extractions" else None
    links = tuple(a["href"] for a in anchors if isinstance(a, dict) and isinstance(a.get("href"), str)
                  and a["href"]) if isinstance(anchors, list) else ()
    return Page(url=call.key, text=text if isinstance(text, str) else "", links=links,
                final_url=body.get("final_url") if isinstance(body.get("final_url"), str) else None,
                status=status if isinstance(status, int) else None,
                truncated=body.get("truncated") is True,
                fetched_at=parse_time(fetched) if isinstance(fetched, str) else None,
                published=date.fromisoformat(published) if isinstance(published, str) else None)
