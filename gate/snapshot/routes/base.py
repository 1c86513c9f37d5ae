"""The values a replay route works with: the request, its reply, what it served, and the route itself.

A route answers one method and path of one provider's API (:class:`Route`); a provider's API is its
routes, its error shape and the paths it owns that the server does not implement (:class:`Api`).
Answering is pure but for the snapshot lookups (:class:`gate.snapshot.routes.frozen.FrozenWeb`):
a route gets a :class:`Request` and gives a :class:`Reply`, with every search and page it served,
hit or miss, as :class:`Served` values the server passes on to the case's scope.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from gate.errors import FetchRefused, FetchTimeout, LiveWebError

if TYPE_CHECKING:
    from gate.snapshot.routes.frozen import FrozenWeb

JSON_TYPE = "application/json; charset=utf-8"
ROUTE_LAYER = "route"
"""The layer of a request no route answers (a ``replay_miss`` that names the route)."""


def live_status(error: LiveWebError) -> int:
    """The status a live failure is answered with: 403 refused, 504 timed out, 502 otherwise."""
    return 403 if isinstance(error, FetchRefused) else 504 if isinstance(error, FetchTimeout) else 502


class BadRequest(Exception):
    """A request its provider would refuse too (no query, a body that is not JSON): its 400, never a miss."""


@dataclass(frozen=True)
class Request:
    """One HTTP request as a route reads it: the path without the case's prefix, the query string's
    parameters, the JSON body (None without one) and the headers (names in lower case)."""

    method: str
    path: str
    query: Mapping[str, list[str]] = field(default_factory=lambda: MappingProxyType({}))
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def target(self) -> str:
        """``POST /search``: what a miss names (never the query string, which may hold a key)."""
        return f"{self.method} {self.path}"

    def param(self, name: str) -> str | None:
        """The one value of query parameter ``name``, None when absent; BadRequest when repeated."""
        values = self.query.get(name, [])
        if len(values) > 1:
            raise BadRequest(f"expected at most one {name!r} parameter, got {len(values)}")
        return values[0] if values else None

    def json_object(self) -> dict[str, Any]:
        """The body, which must be a JSON object."""
        if not isinstance(self.body, dict):
            raise BadRequest("expected a JSON object as the request body")
        return self.body


@dataclass(frozen=True)
class Served:
    """One search or page a case was answered (``hit``), or asked for and not answered (a miss).

    ``layer``: ``search``, ``pages``, ``extractions`` or ``route`` (no route answers the request);
    ``key``: the query or the URL (the request, for a route); ``body``: what was served, in a shape
    :mod:`gate.runner.assemble` reads; ``request`` and ``reason`` say what was asked and why it
    was not answered; ``offset_ms`` and ``duration_ms``, when the server began to answer it (ms since
    the case's agent started) and how long it took, stamped by the case's scope."""

    layer: str
    key: str
    provider: str | None
    body: Any
    hit: bool
    request: str | None = None
    reason: str | None = None
    offset_ms: float | None = None
    duration_ms: float | None = None


class Unrecorded(Exception):
    """Record mode: a search the live web gave nothing to record; ``served`` is the miss the case keeps."""

    def __init__(self, error: LiveWebError, served: Served) -> None:
        super().__init__(str(error))
        self.error, self.served = error, served


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


RouteAnswer = Callable[[Request, "FrozenWeb"], Reply]


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
        if method != self.method:
            return False
        return path == self.path if isinstance(self.path, str) else self.path.fullmatch(path) is not None


@dataclass(frozen=True)
class Api:
    """One provider's API as the replay server speaks it.

    ``error(status, message)`` is the body of an error in the provider's own shape, so that its
    client raises its own error type; ``miss_status`` the status of a request the snapshot cannot
    answer; ``owns``: the prefixes of its paths the server does not implement (a miss naming it)."""

    id: str
    routes: tuple[Route, ...]
    error: Callable[[int, str], Any]
    miss_status: int = 404
    owns: tuple[str, ...] = ()

    def refuse(self, status: int, message: str, *served: Served) -> Reply:
        """An error reply in this API's shape."""
        return Reply(status, self.error(status, message), served=served)

    def owns_path(self, path: str) -> bool:
        """Whether ``path`` belongs to this API (a route of it, or a prefix it owns)."""
        if any(path.startswith(prefix) for prefix in self.owns):
            return True
        return any(r.path == path if isinstance(r.path, str) else r.path.fullmatch(path) for r in self.routes)
