"""A replay route and its reply: what a route answers (the request and what it served are in
:mod:`gate.replay.routes.wire`).

A route answers one method and path of one provider's API (:class:`Route`); a provider's API is its
routes, its error shape and the paths it owns that the server does not implement (:class:`Api`).
Answering is pure but for the snapshot lookups (:class:`gate.replay.routes.frozen.FrozenWeb`):
a route gets a :class:`Request` and gives a :class:`Reply`, with every search and page it served,
hit or miss, as :class:`Served` values the server passes on to the case's scope.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gate.errors import FetchRefused, FetchTimeout, LiveWebError
from gate.replay.routes.frozen import FrozenWeb
from gate.replay.routes.wire import Request, Served

JSON_TYPE = "application/json; charset=utf-8"
ROUTE_LAYER = "route"
"""The layer of a request no route answers (a ``replay_miss`` that names the route)."""


def live_status(error: LiveWebError) -> int:
    """The status a live failure is answered with: 403 refused, 504 timed out, 502 otherwise."""
    return 403 if isinstance(error, FetchRefused) else 504 if isinstance(error, FetchTimeout) else 502


@dataclass(frozen=True)
class Reply:
    """What the server answers: a status, a JSON value (or the bytes of a page), what it served."""

    status: int
    body: Any
    served: tuple[Served, ...] = ()
    content_type: str = JSON_TYPE
    headers: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()
    """lines for the server's log (a live request that failed); each miss in ``served`` is logged too"""

    def payload(self) -> bytes:
        """The body as sent: bytes as they are, anything else as JSON."""
        if isinstance(self.body, bytes):
            return self.body
        return json.dumps(self.body, ensure_ascii=False).encode("utf-8")


RouteAnswer = Callable[[Request, FrozenWeb], Reply]


@dataclass(frozen=True)
class Route:
    """One method and path of an API, and the function that answers it.

    ``path`` is the path itself, or a regular expression the whole path must match; ``claims``
    tells this API's request from another's on the same path (Tavily's and Exa's ``POST /search``)."""

    method: str
    path: str | re.Pattern[str]
    answer: RouteAnswer
    claims: Callable[[Request], bool] = lambda _request: True

    def fits(self, method: str, path: str) -> bool:
        """Whether this route serves ``method`` on ``path``."""
        return method == self.method and self.matches(path)

    def matches(self, path: str) -> bool:
        """Whether ``path`` is this route's, whatever the method."""
        return path == self.path if isinstance(self.path, str) else self.path.fullmatch(path) is not None


@dataclass(frozen=True)
class Api:
    """One provider's API as the replay server speaks it.

    ``error(status, message)`` is the body of an error in the provider's own shape, so that its
    client raises its own error type; ``miss_status`` the status of a request the snapshot cannot
    answer; ``owns``: the prefixes of its paths the server does not implement (a miss naming it);
    ``hosts``: the names its official clients send requests to by default (``api.tavily.com``), where
    the server answers it inside a tunnel (:mod:`gate.replay.routes.origin`)."""

    id: str
    routes: tuple[Route, ...]
    error: Callable[[int, str], Any]
    miss_status: int = 404
    owns: tuple[str, ...] = ()
    hosts: tuple[str, ...] = ()

    def refuse(self, status: int, message: str, *served: Served) -> Reply:
        """An error reply in this API's shape."""
        return Reply(status, self.error(status, message), served=served)

    def owns_path(self, path: str) -> bool:
        """Whether ``path`` belongs to this API (a route of it, or a prefix it owns)."""
        if any(path.startswith(prefix) for prefix in self.owns):
            return True
        return any(r.matches(path) for r in self.routes)
