"""Loopback servers speaking the parts of Phoenix's and Langfuse's APIs the gate sends to.

Phoenix (its REST API as documented and as ``arize-phoenix`` serves it): ``POST /v1/traces`` (OTLP/HTTP
protobuf; the spans are stored a moment later, as Phoenix stores them), ``GET /arize_phoenix_version``,
``POST /v1/span_annotations?sync=true`` (``{"data": [...]}``; 404 while a span is not stored) and
``GET /v1/projects/{project}/span_annotations?span_ids=...``. Every reply carries
``x-phoenix-server-version``, as Phoenix's do.

Langfuse (its public API): ``POST /api/public/otel/v1/traces`` and ``POST /api/public/scores``, both
behind Basic auth with the project's public and secret key.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)

from tests.support.loopback import ServerThread

PHOENIX_VERSION = "20.26.1"


@dataclass
class Tool:
    """What a loopback tool holds: stored span ids, annotations or scores, and each request's path and headers."""

    url: str = ""
    spans: set[str] = field(default_factory=set)
    pending: list[set[str]] = field(default_factory=list)
    annotations: dict[tuple[str, str, str], dict[str, Any]] = field(default_factory=dict)
    scores: dict[str, dict[str, Any]] = field(default_factory=dict)
    requests: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)
    refusals: int = 0


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go in two writes: each reply would wait on a delayed ACK
    tool: Tool
    phoenix: bool
    auth: str | None

    def _reply(self, status: int, body: bytes, kind: str = "application/json") -> None:
        self.send_response(status)
        if self.phoenix:
            self.send_header("x-phoenix-server-version", PHOENIX_VERSION)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: int, data: Any) -> None:
        self._reply(status, json.dumps(data).encode())

    def _seen(self, method: str) -> bool:
        self.tool.requests.append((method, self.path, {k.lower(): v for k, v in self.headers.items()}))
        if self.auth is not None and self.headers.get("Authorization") != self.auth:
            self._json(401, {"message": "unauthorized"})
            return False
        return True

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if not self._seen("GET"):
            return
        parts = urlsplit(self.path)
        if self.phoenix and parts.path == "/arize_phoenix_version":
            self._reply(200, PHOENIX_VERSION.encode(), "text/plain")
        elif self.phoenix and parts.path.endswith("/span_annotations"):
            wanted = set(parse_qs(parts.query).get("span_ids", []))
            found = [a for (span, _, _), a in self.tool.annotations.items() if span in wanted]
            self._json(200, {"data": found, "next_cursor": None})
        else:
            self._json(404, {"detail": "Not Found"})

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if not self._seen("POST"):
            return
        path = urlsplit(self.path).path
        if path.endswith("/v1/traces"):
            request = ExportTraceServiceRequest.FromString(body)
            ids = {s.span_id.hex() for rs in request.resource_spans for ss in rs.scope_spans for s in ss.spans}
            self.tool.pending.append(ids)  # stored on a later request, as Phoenix stores them
            self._reply(200, ExportTraceServiceResponse().SerializeToString(), "application/x-protobuf")
        elif self.phoenix and path == "/v1/span_annotations":
            self._annotate(json.loads(body))
        elif not self.phoenix and path == "/api/public/scores":
            score = json.loads(body)
            self.tool.scores[score["id"]] = score
            self._json(200, {"id": score["id"]})
        else:
            self._json(404, {"detail": "Not Found"})

    def _annotate(self, body: dict[str, Any]) -> None:
        missing = {a["span_id"] for a in body["data"]} - self.tool.spans
        if missing:
            self.tool.refusals += 1
            for ids in self.tool.pending:
                self.tool.spans |= ids
            self.tool.pending.clear()
            self._json(404, {"detail": f"Spans with IDs {', '.join(sorted(missing))} do not exist."})
            return
        for a in body["data"]:
            self.tool.annotations[(a["span_id"], a["name"], a.get("identifier", ""))] = a
        self._json(200, {"data": [{"id": str(i)} for i, _ in enumerate(body["data"])]})

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@contextmanager
def _serve(phoenix: bool, auth: str | None) -> Iterator[Tool]:
    tool = Tool()
    handler = type("Handler", (_Handler,), {"tool": tool, "phoenix": phoenix, "auth": auth})
    with ServerThread(ThreadingHTTPServer(("127.0.0.1", 0), handler), "tracing-tool") as running:
        tool.url = running.url
        yield tool


def phoenix() -> Any:
    """A loopback Phoenix (no authentication)."""
    return _serve(True, None)


def langfuse(public: str, secret: str) -> Any:
    """A loopback Langfuse whose project has the keys ``public`` and ``secret``."""
    return _serve(False, "Basic " + base64.b64encode(f"{public}:{secret}".encode()).decode())
