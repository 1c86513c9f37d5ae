"""One case's view of the replay server: every search, fetch and extraction it was answered, in order.

A :class:`CaseScope` is registered in :attr:`gate.snapshot.serve.ReplayServer.scopes` under a
random token; the agent of that case reaches the server under ``/case/<token>``, so the calls of
cases run in parallel never mix.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gate.model import LiveRequest

__all__ = ["ENDPOINT_LAYERS", "MAX_REFUSALS", "Admit", "CaseScope", "Served"]

MAX_REFUSALS = 20
"""Refused requests said one by one in a case's trace; any more are counted in one last line."""

Admit = Callable[[tuple[str, int], str], "str | None"]
"""(the client's address, the request) -> None to serve it, or why it is refused."""

ENDPOINT_LAYERS = {"/search": "search", "/fetch": "pages", "/extract": "extractions"}
"""Endpoint -> the snapshot layer it reads (the names a trace's ``replay.misses`` use)."""


@dataclass(frozen=True)
class Served:
    """One request of the case: its layer, the query or URL, and the body when the snapshot held it;
    when the server began to answer it (ms since the case's agent started) and how long it took."""

    layer: str
    key: str
    provider: str | None
    body: Any
    hit: bool
    offset_ms: float | None = None
    duration_ms: float | None = None


class CaseScope:
    """Collects what the server answered one case (thread-safe: one server thread per connection)."""

    def __init__(self, admit: Admit | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        """An empty record; ``admit`` decides whose requests it takes (None: everyone's). Requests are
        timed on ``clock`` (the server's, in seconds) from now: create the scope as its case starts."""
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

    def saw(self, endpoint: str, params: Mapping[str, list[str]], status: int, body: Any,
            began: float | None = None) -> None:
        """Keep a hit (200), or a miss: a 404 with ``miss``, or a live request that failed while recording
        (``live``: nothing recorded, so the case lacks it); bad requests and unknown endpoints are not calls.

        ``began``: when the server began to answer, on the scope's clock (None: now)."""
        now = self._clock()
        start = now if began is None else began
        layer = ENDPOINT_LAYERS.get(endpoint)
        if layer is None:
            return
        hit = status == 200
        unanswered = isinstance(body, dict) and (body.get("miss") is True and status == 404 or body.get("live") is True)
        if not hit and not unanswered:
            return
        name = "q" if layer == "search" else "url"
        provider = params.get("provider", [None])[0] if layer == "search" else None
        call = Served(layer=layer, key=params[name][0], provider=provider, body=body if hit else None, hit=hit,
                      offset_ms=round((start - self._zero) * 1000, 3), duration_ms=round((now - start) * 1000, 3))
        with self._lock:
            self._calls.append(call)

    def calls(self) -> tuple[Served, ...]:
        """Every call so far, in the order they were answered."""
        with self._lock:
            return tuple(self._calls)
