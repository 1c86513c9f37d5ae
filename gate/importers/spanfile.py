"""Span files -> plain spans: OTLP/JSON (what a collector's file exporter writes) and the JSON span
lists of OpenInference's and Phoenix's docs. Used by the ``otlp`` importer.

    OTLP/JSON     one ExportTraceServiceRequest per line (or one per file, pretty-printed):
                  resourceSpans[].scopeSpans[].spans[] with traceId, spanId, parentSpanId,
                  startTimeUnixNano and attributes [{key, value: {stringValue|intValue|...}}]
    span list     {"spans": [...]} or [...], each with context.trace_id/span_id, parent_id,
                  start_time (ISO) and attributes as an object (flat or nested by dots)

Attributes come out flat, dotted (``retrieval.documents.0.document.id``), whatever the input's
shape. Nothing here knows what a span means; :mod:`gate.importers.otlp` does.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from gate.files.where import Where, arr, obj, text, timestamp
from gate.importers.embedded import NOT_JSON, embedded, parse_at

__all__ = ["Span", "read_spans"]


@dataclass(frozen=True)
class Span:
    """One span: its trace, id, parent, name, start and end (RFC 3339, UTC) and flat attributes."""

    trace: str
    id: str
    parent: str | None
    name: str
    start: str | None
    attributes: dict[str, Any]
    at: Where
    end: str | None = None


def read_spans(raw: str, file: str) -> list[Span]:
    """Every span of the file, in file order."""
    at = Where(file)
    stripped = raw.strip()
    if not stripped:
        raise at.error("an empty file (expected OTLP/JSON or a JSON list of spans)")
    lines = [(n, line) for n, line in enumerate(raw.splitlines(), start=1) if line.strip()]
    if len(lines) > 1 and _is_json(lines[0][1], Where(file, line=lines[0][0])):
        # JSON lines, one ExportTraceServiceRequest each (a collector's file exporter)
        docs = [(Where(file, line=n), parse_at(line, Where(file, line=n))) for n, line in lines]
    else:
        docs = [(at, parse_at(stripped, at))]
    spans: list[Span] = []
    for here, doc in docs:
        if isinstance(doc, dict) and "resourceSpans" in doc:
            spans.extend(_otlp(doc, here))
        elif isinstance(doc, dict) and "spans" in doc:
            spans.extend(_listed(arr(doc["spans"], here.key("spans")), here.key("spans")))
        elif isinstance(doc, list):
            spans.extend(_listed(doc, here))
        else:
            raise here.error("expected OTLP/JSON (an object with resourceSpans) or a list of spans")
    return spans


def _is_json(line: str, at: Where) -> bool:
    return embedded(line, at, NOT_JSON) is not NOT_JSON


def _otlp(doc: dict[str, Any], at: Where) -> list[Span]:
    out: list[Span] = []
    rs_at = at.key("resourceSpans")
    for i, rs in enumerate(arr(doc["resourceSpans"], rs_at)):
        ss_at = rs_at.item(i).key("scopeSpans")
        for j, ss in enumerate(arr(obj(rs, rs_at.item(i)).get("scopeSpans", []), ss_at)):
            sp_at = ss_at.item(j).key("spans")
            for k, raw in enumerate(arr(obj(ss, ss_at.item(j)).get("spans", []), sp_at)):
                here = sp_at.item(k)
                span = obj(raw, here)
                attributes = _attributes(span.get("attributes", []), here.key("attributes"))
                parent = span.get("parentSpanId") or None
                out.append(Span(
                    trace=text(span.get("traceId"), here.key("traceId")),
                    id=text(span.get("spanId"), here.key("spanId")),
                    parent=None if parent is None else text(parent, here.key("parentSpanId")),
                    name=str(span.get("name", "")), start=_nanos(span.get("startTimeUnixNano"), here),
                    attributes=attributes, at=here,
                    end=_nanos(span.get("endTimeUnixNano"), here, "endTimeUnixNano")))
    return out


def _attributes(listed: Any, at: Where) -> dict[str, Any]:
    """OTLP attributes ``[{key, value: AnyValue}]`` as a flat dict.

    A span file holds thousands of pairs: a pair of one plain value is read directly, and the place
    of a pair (for an error's path) is worked out only for the others.
    """
    out: dict[str, Any] = {}
    for n, kv in enumerate(arr(listed, at)):
        plain = _plain_pair(kv)
        if plain is not None:
            out[plain[0]] = plain[1]
            continue
        kv_at = at.item(n)
        pair = obj(kv, kv_at)
        out[text(pair.get("key"), kv_at.key("key"))] = _any_value(pair.get("value"), kv_at.key("value"))
    return out


def _plain_pair(kv: Any) -> tuple[str, Any] | None:
    """``(key, value)`` of a pair whose value is one string, integer, number or boolean that reads
    without error (as :func:`_any_value` reads it); None for any other pair."""
    if type(kv) is not dict:
        return None
    key, value = kv.get("key"), kv.get("value")
    if type(key) is not str or type(value) is not dict or len(value) != 1:
        return None
    [(kind, v)] = value.items()
    if kind == "stringValue" and type(v) is str:
        return key, v
    if kind == "intValue" and type(v) in (str, int):
        try:
            return key, int(v)
        except ValueError:
            return None
    if kind == "doubleValue" and type(v) in (float, int):
        return key, float(v)
    if kind == "boolValue" and type(v) is bool:
        return key, v
    return None


def _any_value(value: Any, at: Where) -> Any:
    """An OTLP AnyValue as a Python value (int64 arrives as a string in OTLP/JSON)."""
    v = obj(value, at)
    if "stringValue" in v:
        return text(v["stringValue"], at.key("stringValue"))
    if "intValue" in v:
        try:
            return int(v["intValue"])
        except (TypeError, ValueError):
            raise at.key("intValue").error(f"expected an integer, got {v['intValue']!r}") from None
    if "doubleValue" in v:
        return float(v["doubleValue"])
    if "boolValue" in v:
        return bool(v["boolValue"])
    if "arrayValue" in v:
        values = obj(v["arrayValue"], at.key("arrayValue")).get("values", [])
        return [_any_value(x, at.key("arrayValue").key("values").item(i)) for i, x in enumerate(values)]
    return None


def _nanos(value: Any, at: Where, key: str = "startTimeUnixNano") -> str | None:
    if value is None:
        return None
    try:
        ns = int(value)
    except (TypeError, ValueError):
        raise at.key(key).error(f"expected nanoseconds since 1970, got {value!r}") from None
    moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=ns // 1000)
    return moment.isoformat().replace("+00:00", "Z")


def _flat(prefix: str, value: Any, out: dict[str, Any]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            _flat(f"{prefix}.{k}" if prefix else str(k), v, out)
    elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        for i, v in enumerate(value):
            _flat(f"{prefix}.{i}", v, out)
    else:
        out[prefix] = value


def _listed(items: list[Any], at: Where) -> list[Span]:
    out: list[Span] = []
    for i, raw in enumerate(items):
        here = at.item(i)
        span = obj(raw, here)
        context = obj(span.get("context"), here.key("context"))
        attributes: dict[str, Any] = {}
        _flat("", obj(span.get("attributes", {}), here.key("attributes")), attributes)
        start = span.get("start_time")
        end = span.get("end_time")
        parent = span.get("parent_id")
        out.append(Span(
            trace=str(context.get("trace_id", "")), id=text(context.get("span_id"), here.key("context.span_id")),
            parent=None if parent is None else text(parent, here.key("parent_id")),
            name=str(span.get("name", "")),
            start=None if start is None else timestamp(start, here.key("start_time")),
            attributes=attributes, at=here, end=None if end is None else timestamp(end, here.key("end_time"))))
    return out
