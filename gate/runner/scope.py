"""One case's view of the replay server: every search, fetch and extraction it was answered, in order.

A :class:`CaseScope` is registered in :attr:`gate.snapshot.serve.ReplayServer.scopes` under a
random token; the agent of that case reaches the server under ``/case/<token>``, so the calls of
cases run in parallel never mix.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["ENDPOINT_LAYERS", "CaseScope", "Served"]

ENDPOINT_LAYERS = {"/search": "search", "/fetch": "pages", "/extract": "extractions"}
"""Endpoint -> the snapshot layer it reads (the names a trace's ``replay.misses`` use)."""


@dataclass(frozen=True)
class Served:
    """One request of the case: its layer, the query or URL, and the body when the snapshot held it."""

    layer: str
    key: str
    provider: str | None
    body: Any
    hit: bool


class CaseScope:
    """Collects what the server answered one case (thread-safe: one server thread per connection)."""

    def __init__(self) -> None:
        """An empty record."""
        self._lock = threading.Lock()
        self._calls: list[Served] = []

    def saw(self, endpoint: str, params: Mapping[str, list[str]], status: int, body: Any) -> None:
        """Keep a hit (200) or a miss (404 with ``miss``); bad requests and unknown endpoints are not calls."""
        layer = ENDPOINT_LAYERS.get(endpoint)
        if layer is None:
            return
        hit = status == 200
        if not hit and not (status == 404 and isinstance(body, dict) and body.get("miss") is True):
            return
        name = "q" if layer == "search" else "url"
        provider = params.get("provider", [None])[0] if layer == "search" else None
        call = Served(layer=layer, key=params[name][0], provider=provider, body=body if hit else None, hit=hit)
        with self._lock:
            self._calls.append(call)

    def calls(self) -> tuple[Served, ...]:
        """Every call so far, in the order they were answered."""
        with self._lock:
            return tuple(self._calls)
