"""Spans -> OpenTelemetry SDK spans -> OTLP: the JSON lines a collector's file exporter writes, or
OTLP/HTTP to an endpoint. The only module that imports OpenTelemetry, and only when called.

The SDK's own encoder builds the protobuf ``ExportTraceServiceRequest``; its own OTLP/HTTP exporter
sends it. OTLP/JSON is that message in protobuf's JSON mapping with the two differences the OTLP
specification makes: trace and span ids are hex, not base64, and enums are integers.

The exporter times out each read, not the export: a collector that trickles its reply a byte at a
time would hold the gate for as long as it likes. :func:`send` watches the export from outside
(:func:`gate.deadline.call_by`) and gives up at :data:`DEFAULT_DEADLINE` seconds, or the deadline
it is given. Nothing it prints holds a credential: the endpoint is shown without its userinfo and
secret query parameters, and the exporter's own log lines (which can quote a header of
``OTEL_EXPORTER_OTLP_HEADERS``) pass through a handler that blanks every header value and userinfo.
"""

from __future__ import annotations

import base64
import json
import logging
import os
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from gate.deadline import DeadlineExceeded, call_by
from gate.deliver.spans.model import SpanSpec
from gate.errors import GateError, InputError
from gate.exitcodes import ExitCode
from gate.urls.parse import split_rest
from gate.version import __version__

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan

__all__ = ["DEFAULT_DEADLINE", "SCOPE", "SpanExportError", "encode_json_lines", "require_extra", "send",
           "shown_endpoint"]

SCOPE = "sourcegate"
# sourcegate is not on a package index: the command installs the extra from a checkout, never by name
_EXTRA = ("OpenTelemetry spans need the optional extra sourcegate[otel]: pip install '.[otel]' in a sourcegate "
          "checkout")
_IDS = ("traceId", "spanId", "parentSpanId")

DEFAULT_DEADLINE = 30.0
"""Seconds one OTLP/HTTP export may take in all: connecting, the exporter's retries and the reply,
however slowly it comes (``SOURCEGATE_OTLP_DEADLINE`` sets another: :func:`gate.deliver.spans.otlp_deadline`)."""
RETRY_SECONDS = 10.0
"""How long the exporter itself goes on retrying a transient error (within the deadline)."""
HEADER_VARIABLES = ("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_HEADERS")
"""Where the exporter reads its headers (API keys) from: never printed."""
_REDACTED = "REDACTED"
_HEADER_LOGGER = "opentelemetry.util.re"
"""The logger that quotes a header entry of OTEL_EXPORTER_OTLP_HEADERS it cannot read."""
_SHORTEST_SECRET = 4


class SpanExportError(GateError):
    """The endpoint did not take the spans (refused, unreachable, or answered an error).

    ``sourcegate check`` says it and keeps the verdict's exit code; raised to the CLI by other
    callers, it is exit 2, like the live web's errors: something outside did not answer.
    """

    exit_code = ExitCode.INPUT


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


def send(specs: Sequence[SpanSpec], endpoint: str, *, deadline_seconds: float = DEFAULT_DEADLINE,
         environ: Mapping[str, str] | None = None) -> None:
    """Send the spans to an OTLP/HTTP endpoint (``.../v1/traces``) with the SDK's exporter, all of it
    within ``deadline_seconds``; :class:`SpanExportError` (the endpoint shown without credentials)
    when it refuses, fails or is not done by then.

    Headers (an API key for Langfuse or Phoenix) come from ``OTEL_EXPORTER_OTLP_HEADERS`` or
    ``OTEL_EXPORTER_OTLP_TRACES_HEADERS``, as with every OpenTelemetry exporter (``environ``, default
    ``os.environ``, says only which values are secrets: the exporter reads the process's own).
    """
    require_extra()
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace.export import SpanExportResult

    shown = shown_endpoint(endpoint)
    with _redacted_sdk_log(_secrets(endpoint, os.environ if environ is None else environ)) as log:
        exporter = OTLPSpanExporter(endpoint=endpoint, timeout=min(RETRY_SECONDS, deadline_seconds))
        try:
            result = call_by(time.monotonic() + deadline_seconds, lambda: exporter.export(_sdk_spans(specs)))
        except DeadlineExceeded:
            log.keep()  # the abandoned export may still log when its connection ends: redacted too
            raise SpanExportError(f"the OTLP endpoint {shown} did not take the {len(specs)} spans within "
                                  f"{deadline_seconds:g} s (SOURCEGATE_OTLP_DEADLINE); given up") from None
        finally:
            exporter.shutdown()  # type: ignore[no-untyped-call]
    if result is not SpanExportResult.SUCCESS:
        raise SpanExportError(f"the OTLP endpoint {shown} did not take the {len(specs)} spans "
                              "(the exporter's log above says why)")


def shown_endpoint(endpoint: str) -> str:
    """``endpoint`` as it may be printed: its userinfo and the values of secret query parameters as
    ``REDACTED`` (``https://REDACTED@host/v1/traces?api_key=REDACTED``)."""
    from gate.text.redact import redact  # loaded with the exporter, which loads requests anyway

    scheme, sep, rest = endpoint.partition("://")
    authority = split_rest(rest)[0] if sep else ""
    if "@" in authority:
        endpoint = f"{scheme}://{_REDACTED}@{authority.rpartition('@')[2]}{rest[len(authority):]}"
    return redact(endpoint)


def _secrets(endpoint: str, environ: Mapping[str, str]) -> list[str]:
    """Every value the exporter's log must not show: each header's value (and each entry whole, in
    case it is not ``name=value``) and the endpoint's userinfo, as written and percent-decoded."""
    found: set[str] = set()
    for variable in HEADER_VARIABLES:
        for entry in environ.get(variable, "").split(","):
            value = entry.partition("=")[2].strip()
            found.update({entry.strip(), value, value.strip('"')})
    scheme, sep, rest = endpoint.partition("://")
    userinfo, at, _ = split_rest(rest)[0].rpartition("@") if sep else ("", "", "")
    if at:
        found.update({userinfo, *userinfo.split(":", 1)})
    found |= {unquote(s) for s in found}
    # Shorter values would blank letters of every word (a user name "u"); the lines that quote a
    # header are blanked whole, and the exporter's other lines name the host and path only.
    return sorted((s for s in found if len(s) >= _SHORTEST_SECRET), key=len, reverse=True)


class _RedactedLog(logging.Handler):
    """The exporter's log lines on stderr, each secret value replaced (the longest first)."""

    def __init__(self, secrets: list[str]) -> None:
        super().__init__(logging.WARNING)
        self.secrets = secrets
        self.kept = False

    def keep(self) -> None:
        """Stay in place after the send: a call abandoned at its deadline may log later."""
        self.kept = True

    def emit(self, record: logging.LogRecord) -> None:
        if record.name == _HEADER_LOGGER:
            # A header entry it could not read, quoted whole: whatever it holds, it is not shown.
            line = f"{record.msg}".replace("%s", _REDACTED) if record.args else str(record.msg)
        else:
            try:
                line = record.getMessage()
            except (TypeError, ValueError):
                line = str(record.msg)
        for secret in self.secrets:
            line = line.replace(secret, _REDACTED)
        print(f"sourcegate: warning: OTLP exporter: {' '.join(line.split())}", file=sys.stderr)


_KEPT: list[_RedactedLog] = []
"""The handler left in place after a send was given up at its deadline (one at most, for the process)."""


@contextmanager
def _redacted_sdk_log(secrets: list[str]) -> Iterator[_RedactedLog]:
    """While the exporter runs, its loggers (``opentelemetry.*``) write through :class:`_RedactedLog` only."""
    if _KEPT:
        kept = _KEPT[0]
        kept.secrets = sorted({*kept.secrets, *secrets}, key=len, reverse=True)
        yield kept
        return
    logger = logging.getLogger("opentelemetry")
    handler = _RedactedLog(secrets)
    propagate = logger.propagate
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield handler
    finally:
        if handler.kept:
            _KEPT.append(handler)
        else:
            logger.removeHandler(handler)
            logger.propagate = propagate
