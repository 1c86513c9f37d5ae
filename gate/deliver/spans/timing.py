"""When each span ran: the trace's recorded times, or the run's start where it recorded none. Pure.

A search, page read or model call the trace timed (``started_at`` and ``duration_ms``) is a span of that
start and length. One it did not time is an instant at the best moment the trace knows (the run's start;
for a page, when it was fetched), and says so: ``sourcegate.timing`` is ``not_recorded`` rather than a
made-up duration. The case span then covers all of its children, so none starts before its parent.

:func:`restamp` moves a trace whole to the moment it is exported, durations and order kept, for the
tracing tools whose default views show only recent traces.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from types import MappingProxyType

from gate.deliver.spans.model import AttributeValue, SpanSpec

__all__ = ["RECORDED_AT", "SPAN_TIMES", "TIMING", "Window", "iso_time", "nanos", "restamp", "window"]

TIMING = "sourcegate.timing"
"""``recorded`` on a span whose start and duration the trace holds, ``not_recorded`` on one it places."""
RECORDED_AT = "sourcegate.recorded_at"
"""On a case span moved to its export time: when it started, as recorded."""
SPAN_TIMES = ("recorded", "export")
"""``SOURCEGATE_SPAN_TIME``: stamp spans with the recording's times (default), or move each trace to the export."""


def nanos(moment: datetime | None) -> int | None:
    """``moment`` in nanoseconds since 1970 (microseconds kept exactly), or None."""
    return None if moment is None else int(moment.timestamp()) * 1_000_000_000 + moment.microsecond * 1000


def iso_time(ns: int) -> str:
    """Nanoseconds since 1970 as RFC 3339 in UTC (to the microsecond)."""
    moment = datetime.fromtimestamp(ns // 1_000_000_000, UTC).replace(microsecond=(ns % 1_000_000_000) // 1000)
    return moment.isoformat().replace("+00:00", "Z")


@dataclass(frozen=True)
class Window:
    """A span's start and end (ns), and whether the trace recorded them."""

    start: int
    end: int
    recorded: bool

    @property
    def timing(self) -> str:
        """The value of ``sourcegate.timing``."""
        return "recorded" if self.recorded else "not_recorded"


def window(started_at: datetime | None, duration_ms: float | None, fallback: int) -> Window:
    """The span of a call that started at ``started_at`` and took ``duration_ms``; an instant at
    ``fallback`` (ns) when the trace did not say when it started."""
    start = nanos(started_at)
    if start is None:
        return Window(fallback, fallback, False)
    return Window(start, start + round((duration_ms or 0.0) * 1_000_000), duration_ms is not None)


def restamp(specs: Sequence[SpanSpec], now_ns: int) -> tuple[SpanSpec, ...]:
    """Each trace moved whole so that its case span ends at ``now_ns``; the case span keeps its recorded
    start in :data:`RECORDED_AT`."""
    ends: dict[int, tuple[int, int]] = {}
    for s in specs:
        if s.parent_id is None:
            ends[s.trace_id] = (s.start_ns, s.end_ns)
    out = []
    for s in specs:
        start, end = ends.get(s.trace_id, (s.start_ns, s.end_ns))
        shift = now_ns - end
        attributes: dict[str, AttributeValue] = dict(s.attributes)
        if s.parent_id is None:
            attributes[RECORDED_AT] = iso_time(start)
        out.append(replace(s, start_ns=s.start_ns + shift, end_ns=s.end_ns + shift,
                           attributes=MappingProxyType(attributes),
                           events=tuple(replace(e, time_ns=e.time_ns + shift) for e in s.events)))
    return tuple(out)
