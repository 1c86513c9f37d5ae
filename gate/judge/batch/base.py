"""The values and the seam of the Message Batches API, provider-neutral.

A :class:`Batches` implementation (:mod:`gate.judge.providers.anthropic_batches`) sends rendered
:class:`gate.judge.base.ToolCall` values as one batch, each under its cache key as ``custom_id``,
and gives back a :class:`BatchStatus` and, once the batch has ended, one :class:`BatchResult` per
request: the reply, or why there is none. Failures left after the SDK's retries are raised as
:class:`gate.errors.JudgeUnavailable` (a refused key: :class:`gate.errors.JudgeAuthError`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from gate.judge.base import ToolCall, ToolReply

MAX_REQUESTS = 100_000
"""The API's limit on requests in one batch."""
MAX_BYTES = 256 * 1024 * 1024
"""The API's limit on the size of one batch's request body, in bytes (256 MB)."""


@dataclass(frozen=True)
class BatchStatus:
    """Where one batch is: ``in_progress``, ``canceling`` or ``ended``, and its requests by state."""

    id: str
    processing_status: str
    counts: Mapping[str, int] = field(default_factory=dict)
    """requests by state: processing, succeeded, errored, canceled, expired"""

    @property
    def ended(self) -> bool:
        """True once every request has a result (succeeded, errored, canceled or expired)."""
        return self.processing_status == "ended"

    def describe(self) -> str:
        """One line for the progress output."""
        counts = ", ".join(f"{n} {state}" for state, n in self.counts.items() if n)
        line = f"message batch {self.id}: {self.processing_status.replace('_', ' ')}"
        return f"{line} ({counts})" if counts else line


@dataclass(frozen=True)
class BatchResult:
    """One request's result: the reply (``succeeded``), else why there is none."""

    key: str
    reply: ToolReply | None
    error: str | None = None


class Batches(Protocol):
    """A provider's Message Batches API."""

    def size(self, call: ToolCall) -> int:
        """The bytes ``call`` adds to a batch's request body."""
        ...

    def create(self, calls: Sequence[ToolCall]) -> BatchStatus:
        """A new batch of ``calls``, each under its key as ``custom_id``."""
        ...

    def retrieve(self, batch_id: str) -> BatchStatus:
        """Where the batch is now."""
        ...

    def results(self, batch_id: str, calls: Mapping[str, ToolCall]) -> Sequence[BatchResult]:
        """The results of an ended batch for the requests in ``calls`` (by key); others are skipped."""
        ...

    def cancel(self, batch_id: str) -> BatchStatus:
        """Ask the API to cancel the batch; it ends once the requests in flight are done."""
        ...

    def close(self) -> None:
        """Close the client's connections."""
        ...
