"""The spans of one golden-set run as plain values, before any OpenTelemetry type is involved.

Building spans (:mod:`gate.deliver.spans.tree`) is pure and needs no optional package; only encoding and
sending them (:mod:`gate.deliver.spans.otel`) imports the OpenTelemetry SDK.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

AttributeValue = str | bool | int | float | tuple[str, ...]
Attributes = Mapping[str, AttributeValue]

__all__ = ["AttributeValue", "Attributes", "SpanEvent", "SpanSpec"]


@dataclass(frozen=True)
class SpanEvent:
    """A named moment in a span: a hard failure or a warning, with its details."""

    name: str
    time_ns: int
    attributes: Attributes


@dataclass(frozen=True)
class SpanSpec:
    """One span: where it sits in the tree, when it ran, and what it carries.

    ``error`` is the status description of a span that failed (a case with hard failures, a page
    that answered 4xx/5xx); None leaves the status unset, as OpenTelemetry recommends for success.
    """

    name: str
    trace_id: int
    span_id: int
    parent_id: int | None
    start_ns: int
    end_ns: int
    attributes: Attributes
    events: tuple[SpanEvent, ...] = ()
    error: str | None = None
