"""The values between the replay server and a route: the request as a route reads it (and the case it
is under), what it served (a hit or a miss), and the two refusals a route may raise (a bad request, a
search the live web gave nothing to record).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

from gate.errors import LiveWebError
from gate.model import Citation, Finding


@dataclass(frozen=True)
class Guarded:
    """What a case's guard found in one draft (``POST /guard``, :mod:`gate.replay.routes.guard`)."""

    attempt: int
    """the draft's place among the case's guarded drafts (1 for the first)"""
    findings: tuple[Finding, ...]
    rejected_so_far: tuple[str, ...]
    """every URL rejected in the case's drafts, this one's included, each once"""


class RouteCase(Protocol):
    """The case a request is under (``/case/<token>``), as a route may ask it."""

    def guard(self, answer: str, citations: tuple[Citation, ...] | None) -> Guarded | None:
        """The gate's hard checks on a draft, against what the case was served so far (None: the case has
        no guard)."""
        ...


class BadRequest(Exception):
    """A request its provider would refuse too (no query, a body that is not JSON): its 400, never a miss."""


@dataclass(frozen=True)
class Request:
    """One HTTP request as a route reads it: the path without the case's prefix, the query string's
    parameters, the JSON body (None without one; its bytes when it is not JSON), the headers (names in
    lower case), the body's bytes as they came (``raw``) and the case it is under."""

    method: str
    path: str
    query: Mapping[str, list[str]] = field(default_factory=lambda: MappingProxyType({}))
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    raw: bytes = b""
    case: RouteCase | None = field(default=None, compare=False, repr=False)
    """the case it is under (None: a request to the server's own routes, unscoped)"""

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


_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class Origin:
    """The scheme, host and port a request was sent to when it came through the server as a proxy
    (``https://api.tavily.com``, a page's own site), not to the server's own address."""

    scheme: str
    host: str
    port: int

    def url(self, target: str) -> str:
        """The absolute URL of ``target`` (an origin-form path and query) at this origin."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        port = "" if _DEFAULT_PORTS.get(self.scheme) == self.port else f":{self.port}"
        return f"{self.scheme}://{host}{port}{target}"
