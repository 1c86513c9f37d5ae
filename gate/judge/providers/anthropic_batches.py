"""The ``anthropic`` Message Batches API through the official SDK (``client.messages.batches``).

Each request is exactly the live one (:func:`gate.judge.providers.anthropic.messages_body`) under its judge
cache key as ``custom_id`` (64 hex characters, within the API's ``^[a-zA-Z0-9_-]{1,64}$``). The SDK
retries what is retryable; what still fails is translated here, once, into
:class:`gate.errors.JudgeUnavailable` (chained), a refused key into :class:`gate.errors.JudgeAuthError`.
Each call (create, poll, read the results, cancel) ends within ``judge.deadline_seconds`` however
slowly the server answers: it is watched from outside (:func:`gate.deadline.call_by`), since the
SDK's timeouts bound each read, not the reply.

Results: ``succeeded`` carries a message, read as the live provider reads one; ``errored`` carries
the API's error; ``canceled`` and ``expired`` requests never ran. Each becomes a
:class:`gate.judge.batch.base.BatchResult`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from gate.config import JudgeConfig
from gate.deadline import DeadlineExceeded, call_by
from gate.errors import JudgeUnavailable
from gate.judge.base import ToolCall
from gate.judge.batch.base import BatchResult, BatchStatus
from gate.judge.providers.anthropic import client, messages_body, reply_of, status_error

if TYPE_CHECKING:
    import anthropic

_T = TypeVar("_T")
COUNTS = ("processing", "succeeded", "errored", "canceled", "expired")
WHY = {
    "canceled": "the message batch was cancelled before this request ran",
    "expired": "the message batch expired (24 hours) before this request ran",
}


def _status(batch: Any) -> BatchStatus:
    counts = batch.request_counts
    return BatchStatus(batch.id, batch.processing_status, {n: int(getattr(counts, n, 0) or 0) for n in COUNTS})


class AnthropicBatches:
    """Creates, polls, reads and cancels message batches through the official ``anthropic`` SDK."""

    def __init__(self, config: JudgeConfig, *, base_url: str | None = None, api_key: str | None = None) -> None:
        """Build the client as :class:`gate.judge.providers.anthropic.AnthropicProvider` does (on the
        process's one TLS context, :mod:`gate.judge.providers.transport`)."""
        self._client = client(config, base_url, api_key, "judging in message batches")
        self._deadline = config.deadline_seconds

    def _sdk(self, fn: Callable[[], _T]) -> _T:
        import anthropic

        try:
            return call_by(time.monotonic() + self._deadline, fn)
        except DeadlineExceeded as e:
            raise JudgeUnavailable(f"the Message Batches API did not finish its reply within {self._deadline:g} s "
                                   "(judge.deadline_seconds)") from e
        except anthropic.APIStatusError as e:
            raise status_error(e, self._client) from e
        except anthropic.APITimeoutError as e:
            raise JudgeUnavailable("the Message Batches API did not answer in time") from e
        except anthropic.APIConnectionError as e:
            raise JudgeUnavailable(f"cannot reach the API: {e.message}") from e
        except anthropic.AnthropicError as e:
            raise JudgeUnavailable(f"the SDK failed: {e}") from e
        except RecursionError as e:  # the SDK reads the replies' JSON with json, unbounded in depth
            raise JudgeUnavailable("the API's reply is nested too deeply to read") from e

    def close(self) -> None:
        """Close the SDK's connections."""
        self._client.close()

    def size(self, call: ToolCall) -> int:
        """The bytes of ``call`` as one request of a batch."""
        request = {"custom_id": call.key, "params": messages_body(call)}
        return len(json.dumps(request, ensure_ascii=False).encode("utf-8"))

    def create(self, calls: Sequence[ToolCall]) -> BatchStatus:
        """A new batch of ``calls``."""
        requests: list[Any] = [{"custom_id": c.key, "params": messages_body(c)} for c in calls]
        return _status(self._sdk(lambda: self._client.messages.batches.create(requests=requests)))

    def retrieve(self, batch_id: str) -> BatchStatus:
        """Where the batch is now."""
        return _status(self._sdk(lambda: self._client.messages.batches.retrieve(batch_id)))

    def cancel(self, batch_id: str) -> BatchStatus:
        """Ask for the batch to be cancelled."""
        return _status(self._sdk(lambda: self._client.messages.batches.cancel(batch_id)))

    def results(self, batch_id: str, calls: Mapping[str, ToolCall]) -> Sequence[BatchResult]:
        """The results of an ended batch for ``calls``; lines for other requests are skipped."""
        def read() -> list[BatchResult]:
            return [r for line in self._client.messages.batches.results(batch_id)
                    if (r := _result(line, calls)) is not None]

        return self._sdk(read)


def _result(line: anthropic.types.messages.MessageBatchIndividualResponse,
            calls: Mapping[str, ToolCall]) -> BatchResult | None:
    call = calls.get(line.custom_id)
    if call is None:
        return None
    result = line.result
    if result.type == "succeeded":
        return BatchResult(call.key, reply_of(result.message, call, batched=True))
    if result.type == "errored":
        error = result.error.error
        return BatchResult(call.key, None, f"the batch request errored: {error.type}: {error.message}")
    return BatchResult(call.key, None, WHY.get(result.type, f"the batch request ended {result.type}"))
