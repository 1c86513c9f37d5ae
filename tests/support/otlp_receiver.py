"""Decoding OTLP with the OpenTelemetry protobuf definitions, and a loopback OTLP/HTTP receiver."""

from __future__ import annotations

import base64
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import lru_cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from google.protobuf.json_format import ParseDict
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue
from opentelemetry.proto.trace.v1.trace_pb2 import Span

from tests.support.loopback import ServerThread
from tests.support.loopback import trickle as send_trickling

IDS = ("traceId", "spanId", "parentSpanId")


def _base64_ids(node: Any) -> Any:
    """OTLP/JSON writes ids as hex; protobuf's JSON mapping reads bytes as base64."""
    if isinstance(node, dict):
        return {k: (base64.b64encode(bytes.fromhex(v)).decode() if k in IDS else _base64_ids(v))
                for k, v in node.items()}
    if isinstance(node, list):
        return [_base64_ids(v) for v in node]
    return node


def decode_json_lines(text: str) -> list[ExportTraceServiceRequest]:
    """Each line of an OTLP/JSON file as the protobuf message it encodes (strict: unknown fields fail).

    The same text is decoded once (protobuf's JSON parser is slow): callers get the same messages,
    to read, not to change.
    """
    return list(_decoded(text))


@lru_cache(maxsize=8)
def _decoded(text: str) -> tuple[ExportTraceServiceRequest, ...]:
    return tuple(ParseDict(_base64_ids(json.loads(line)), ExportTraceServiceRequest())
                 for line in text.splitlines() if line.strip())


def spans_of(requests: list[ExportTraceServiceRequest]) -> list[Span]:
    return [s for r in requests for rs in r.resource_spans for ss in rs.scope_spans for s in ss.spans]


def value(v: AnyValue) -> Any:
    kind = v.WhichOneof("value")
    if kind == "array_value":
        return tuple(value(x) for x in v.array_value.values)
    return getattr(v, kind) if kind else None


def attributes(span: Span) -> dict[str, Any]:
    return {kv.key: value(kv.value) for kv in span.attributes}


@dataclass
class Receiver:
    """What the loopback collector got: (path, content type, body) per request, its headers, and how
    many bytes of its replies' bodies it has sent so far."""

    url: str
    posts: list[tuple[str, str, bytes]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    sent: list[int] = field(default_factory=lambda: [0])

    def count_sent(self) -> None:
        """One more byte of a reply is out."""
        self.sent[0] += 1


@contextmanager
def otlp_receiver(status: int = 200, *, trickle: float = 0.0, reply_bytes: int = 0) -> Iterator[Receiver]:
    """An OTLP/HTTP receiver on 127.0.0.1 answering ``status`` to every ``POST``.

    ``trickle`` > 0 sends the reply's body one byte every ``trickle`` seconds (padded to
    ``reply_bytes``), a collector that never trips a read timeout, until the body is out or the
    receiver stops.
    """
    received = Receiver("")
    stopping = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go in two writes: each reply would wait on a delayed ACK

        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            received.posts.append((self.path, self.headers.get("Content-Type", ""), body))
            received.headers.append({k.lower(): v for k, v in self.headers.items()})
            reply = ExportTraceServiceResponse().SerializeToString() if status == 200 else b"refused"
            reply = reply.ljust(reply_bytes, b"\0")
            self.send_response(status)
            self.send_header("Content-Type", "application/x-protobuf")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            if not trickle:
                self.wfile.write(reply)
                return
            self.close_connection = True
            send_trickling(self.wfile, reply, trickle, stopping, sent=received.count_sent)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    with ServerThread(ThreadingHTTPServer(("127.0.0.1", 0), Handler), "otlp-receiver") as running:
        received.url = running.url
        try:
            yield received
        finally:
            stopping.set()
