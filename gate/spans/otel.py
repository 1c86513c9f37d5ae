"""Spans -> OpenTelemetry SDK spans -> OTLP: the JSON lines a collector's file exporter writes, or
OTLP/HTTP to an endpoint. The only module that imports OpenTelemetry, and only when called.

The SDK's own encoder builds the protobuf ``ExportTraceServiceRequest``; its own OTLP/HTTP exporter
sends it. OTLP/JSON is that message in protobuf's JSON mapping with the two differences the OTLP
specification makes: trace and span ids are hex, not base64, and enums are integers.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from gate.errors import EXIT_INPUT, GateError, InputError
from gate.spans.model import SpanSpec
from gate.version import __version__

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan

__all__ = ["SCOPE", "SpanExportError", "encode_json_lines", "require_extra", "send"]

SCOPE = "sourcegate"
# sourcegate is not on a package index: the command installs the extra from a checkout, never by name
_EXTRA = ("OpenTelemetry spans need the optional extra sourcegate[otel]: pip install '.[otel]' in a sourcegate "
          "checkout")
_IDS = ("traceId", "spanId", "parentSpanId")


class SpanExportError(GateError):
    """The endpoint did not take the spans (refused, unreachable, or answered an error).

    ``sourcegate check`` says it and keeps the verdict's exit code; raised to the CLI by other
    callers, it is exit 2, like the live web's errors: something outside did not answer.
    """

    exit_code = EXIT_INPUT


def require_extra() -> None:
    """An :class:`InputError` saying how to install the optional extra when OpenTelemetry is missing."""
    try:
        import opentelemetry.exporter.otlp.proto.http  # noqa: F401
        import opentelemetry.proto  # noqa: F401
        import opentelemetry.sdk  # noqa: F401
    except ImportError as e:
        raise InputError(_EXTRA) from e


def _sdk_spans(specs: Sequence[SpanSpec]) -> list[ReadableSpan]:
    from opentelemetry.sdk.resources import OTELResourceDetector, Resource
    from opentelemetry.sdk.trace import Event, ReadableSpan
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope
    from opentelemetry.trace import SpanContext, SpanKind, Status, StatusCode, TraceFlags

    # Not Resource.create: it adds a random service.instance.id, and the same run must give the same
    # bytes. OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME still apply (a Phoenix project name, say).
    ours = Resource({"service.name": "sourcegate", "service.version": __version__})
    resource = ours.merge(OTELResourceDetector().detect())
    scope = InstrumentationScope(SCOPE, __version__)
    flags = TraceFlags(TraceFlags.SAMPLED)
    out = []
    for s in specs:
        parent = None if s.parent_id is None else SpanContext(s.trace_id, s.parent_id, False, flags)
        status = Status(StatusCode.ERROR, s.error) if s.error is not None else Status(StatusCode.UNSET)
        out.append(ReadableSpan(
            name=s.name, context=SpanContext(s.trace_id, s.span_id, False, flags), parent=parent,
            resource=resource, attributes=dict(s.attributes),
            events=[Event(e.name, dict(e.attributes), e.time_ns) for e in s.events],
            kind=SpanKind.INTERNAL, status=status, start_time=s.start_ns, end_time=s.end_ns,
            instrumentation_scope=scope))
    return out


def _hex_ids(request: dict[str, Any]) -> dict[str, Any]:
    """Protobuf's JSON mapping writes bytes as base64; OTLP/JSON writes trace and span ids as hex.

    Ids are fields of spans and of their links only: those are rewritten in place, the rest of the
    request (attributes, events) is not walked.
    """
    for resource in request.get("resourceSpans", []):
        for scope in resource.get("scopeSpans", []):
            for span in scope.get("spans", []):
                for node in (span, *span.get("links", [])):
                    for key in _IDS:
                        if isinstance(node.get(key), str):
                            node[key] = base64.b64decode(node[key]).hex()
    return request


def encode_json_lines(specs: Sequence[SpanSpec]) -> str:
    """OTLP/JSON: one ``ExportTraceServiceRequest`` per line, one line per trace (per case)."""
    require_extra()
    from google.protobuf.json_format import MessageToDict
    from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans

    by_trace: dict[int, list[SpanSpec]] = {}
    for s in specs:
        by_trace.setdefault(s.trace_id, []).append(s)
    lines = []
    for group in by_trace.values():
        request = MessageToDict(encode_spans(_sdk_spans(group)), use_integers_for_enums=True)
        lines.append(json.dumps(_hex_ids(request), ensure_ascii=False, separators=(",", ":")))
    return "".join(line + "\n" for line in lines)


def send(specs: Sequence[SpanSpec], endpoint: str, *, timeout: float = 10.0) -> None:
    """Send the spans to an OTLP/HTTP endpoint (``.../v1/traces``) with the SDK's exporter.

    Headers (an API key for Langfuse or Phoenix) come from ``OTEL_EXPORTER_OTLP_HEADERS`` or
    ``OTEL_EXPORTER_OTLP_TRACES_HEADERS``, as with every OpenTelemetry exporter.
    """
    require_extra()
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import SpanExportResult

    exporter = OTLPSpanExporter(endpoint=endpoint, timeout=timeout)
    try:
        result = exporter.export(_sdk_spans(specs))
    finally:
        exporter.shutdown()  # type: ignore[no-untyped-call]
    if result is not SpanExportResult.SUCCESS:
        raise SpanExportError(f"the OTLP endpoint {endpoint} did not take the {len(specs)} spans "
                              "(the exporter's log above says why)")
