"""One case's view of the replay server: every search, page and extraction it was served or missed, in order,
and every host past the frozen web it asked the server, as its proxy, to reach.

A :class:`CaseScope` is registered in :attr:`gate.replay.serve.ReplayServer.scopes` under a
random token; the agent of that case reaches the server under ``/case/<token>``, so the calls of
cases run in parallel never mix.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from gate.model import Citation, LiveRequest
from gate.replay.routes import Served
from gate.replay.routes.wire import Guarded

__all__ = ["MAX_REFUSALS", "Admit", "CaseScope", "DraftGuard", "Served"]

MAX_REFUSALS = 20
"""Refused requests said one by one in a case's trace; any more are counted in one last line."""

Admit = Callable[[tuple[str, int], str], "str | None"]
"""(the client's address, the request) -> None to serve it, or why it is refused."""
DraftGuard = Callable[[Sequence[Served], str, "tuple[Citation, ...] | None"], Guarded]
"""(what the case was served so far, a draft, its citations) -> what the gate's guard finds in the draft
(:func:`gate.runner.guarding.case_guard`)."""


class CaseScope:
    """Collects what the server answered one case (thread-safe: one server thread per connection)."""

    def __init__(self, admit: Admit | None = None, clock: Callable[[], float] = time.monotonic,
                 guard: DraftGuard | None = None) -> None:
        """An empty record; ``admit`` decides whose requests it takes (None: everyone's). Requests are
        timed on ``clock`` (the server's, in seconds) from now: create the scope as its case starts.
        ``guard`` checks the case's drafts (``POST /guard``; None: the case has no guard)."""
        self._guard = guard
        self._clock = clock
        self._zero = clock()
        self._lock = threading.Lock()
        self._calls: list[Served] = []
        self._admit = admit
        self._refusals: list[str] = []
        self._more = 0
        self._outside = 0
        self._reached: dict[str, LiveRequest] = {}

    def admit(self, client: tuple[str, int], request: str) -> str | None:
        """None when the request from ``client`` is this case's to make; else why it is refused."""
        return None if self._admit is None else self._admit(client, request)

    def refused(self, message: str) -> None:
        """A request of or for this case was refused (:mod:`gate.runner.owners`), as ``message`` says."""
        with self._lock:
            if len(self._refusals) < MAX_REFUSALS:
                self._refusals.append(message)
            else:
                self._more += 1

    def outside(self) -> None:
        """A connection with this case's URL came from a process of no running case, and was served."""
        with self._lock:
            self._outside += 1

    def outside_connections(self) -> int:
        """How many connections :meth:`outside` counted."""
        with self._lock:
            return self._outside

    def refusals(self) -> tuple[str, ...]:
        """The refused requests, one line each, the ones past :data:`MAX_REFUSALS` counted in a last line."""
        with self._lock:
            more = (f"and {self._more} more request(s) refused the same way",) if self._more else ()
            return (*self._refusals, *more)

    def reached(self, host: str, request: str) -> None:
        """The case's agent asked the proxy for ``host``, and was refused; the first :data:`MAX_REFUSALS`
        hosts are kept, each with its first request and a count."""
        with self._lock:
            known = self._reached.get(host)
            if known is not None:
                self._reached[host] = LiveRequest(host, known.request, known.count + 1)
            elif len(self._reached) < MAX_REFUSALS:
                self._reached[host] = LiveRequest(host, request)

    def live_requests(self) -> tuple[LiveRequest, ...]:
        """The hosts past the frozen web the case asked for, in the order first asked."""
        with self._lock:
            return tuple(self._reached.values())

    def saw(self, served: Sequence[Served], began: float | None = None) -> None:
        """Keep what one request was served and missed (a bad request served nothing), each timed:
        ``began``, when the server began to answer, on the scope's clock (None: now)."""
        now = self._clock()
        start = now if began is None else began
        timed = [replace(s, offset_ms=round((start - self._zero) * 1000, 3), duration_ms=round((now - start) * 1000, 3))
                 for s in served]
        with self._lock:
            self._calls.extend(timed)

    def guard(self, answer: str, citations: tuple[Citation, ...] | None) -> Guarded | None:
        """What the case's guard finds in a draft, against what the case was served until now."""
        return None if self._guard is None else self._guard(self.calls(), answer, citations)

    def calls(self) -> tuple[Served, ...]:
        """Every call so far, in the order they were answered."""
        with self._lock:
            return tuple(self._calls)
