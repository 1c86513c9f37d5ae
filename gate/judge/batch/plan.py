"""Splitting a round's requests into batches within the API's limits. Pure.

Requests keep their order (the cache key order the caller gives); a batch closes when one more
request would pass :data:`MAX_REQUESTS` or :data:`MAX_BYTES`. A request larger than a whole batch
may be cannot be sent at all: it is returned apart, and its claims stay unscored.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from gate.judge.base import ToolCall
from gate.judge.batch.base import MAX_BYTES, MAX_REQUESTS

ENVELOPE_BYTES = 32
"""What the request body adds around the requests: ``{"requests":[`` and ``]}``, with room to spare."""


@dataclass(frozen=True)
class BatchPlan:
    """The batches to create, in order, and the requests too large for any batch."""

    batches: tuple[tuple[ToolCall, ...], ...]
    too_large: tuple[ToolCall, ...] = ()


def split(calls: Iterable[ToolCall], size: Callable[[ToolCall], int], *, max_requests: int = MAX_REQUESTS,
          max_bytes: int = MAX_BYTES) -> BatchPlan:
    """``calls`` in batches of at most ``max_requests`` requests and ``max_bytes`` bytes each."""
    batches: list[tuple[ToolCall, ...]] = []
    too_large: list[ToolCall] = []
    current: list[ToolCall] = []
    used = ENVELOPE_BYTES
    for call in calls:
        n = size(call) + 1  # the comma between requests
        if ENVELOPE_BYTES + n > max_bytes:
            too_large.append(call)
            continue
        if current and (len(current) >= max_requests or used + n > max_bytes):
            batches.append(tuple(current))
            current, used = [], ENVELOPE_BYTES
        current.append(call)
        used += n
    if current:
        batches.append(tuple(current))
    return BatchPlan(tuple(batches), tuple(too_large))
