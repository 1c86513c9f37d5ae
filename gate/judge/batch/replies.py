"""Batch results as a :class:`gate.judge.base.Provider`: the judge asks, the batches answered before.

The judge runs unchanged over the set in batch mode; only its provider differs. :class:`BatchReplies`
answers a request from the results of the batches so far: the reply (which the judge validates and,
when complete, writes to the judge cache as a live reply), or the reason there is none, raised as
:class:`gate.judge.base.Settled` (which leaves the claims unscored without tripping the judge's
breaker). A request no batch has answered yet is noted as *wanted* for the next round, until
:meth:`BatchReplies.close` says no round is coming.

:meth:`BatchReplies.billed` is what the last pass charges for a reply this run paid for but reads
from the judge cache: the batch's usage at the batch price, once per request.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import replace

from gate.judge.base import Settled, ToolCall, ToolReply
from gate.judge.batch.runner import BatchAnswer
from gate.judgement import Usage
from gate.usage.cost import priced

WAITING = "waiting for a message batch"


class BatchReplies:
    """A provider that answers from message-batch results and notes what it could not answer."""

    def __init__(self, prices: Mapping[str, Mapping[str, float]]) -> None:
        """Empty; ``prices`` is the configuration's price table."""
        self._prices = prices
        self._lock = threading.Lock()
        self._outcomes: dict[str, BatchAnswer] = {}
        self._wanted: dict[str, ToolCall] = {}
        self._billed: set[str] = set()
        self._closed: str | None = None

    def call(self, call: ToolCall, timeout: float) -> ToolReply:
        """The batch's reply to ``call``; :class:`Settled` when there is none (yet)."""
        with self._lock:
            outcome = self._outcomes.get(call.key)
            if outcome is None:
                if self._closed is not None:
                    raise Settled(self._closed)
                self._wanted.setdefault(call.key, call)
                raise Settled(WAITING)
            if isinstance(outcome, ToolReply) and self._closed is not None:
                # The last pass: the reply is charged once, however many runs ask for it.
                if call.key in self._billed:
                    return replace(outcome, usage=Usage(calls=0))
                self._billed.add(call.key)
        if isinstance(outcome, str):
            raise Settled(outcome)
        return outcome

    def take_wanted(self) -> dict[str, ToolCall]:
        """The requests asked for and not answered since the last call, by key, in the order asked."""
        with self._lock:
            wanted, self._wanted = self._wanted, {}
        return wanted

    def add(self, outcomes: Mapping[str, BatchAnswer]) -> None:
        """A round's results."""
        with self._lock:
            self._outcomes.update(outcomes)

    def reopen(self) -> None:
        """Rounds are coming: a request with no result yet is wanted again."""
        with self._lock:
            self._closed = None

    def close(self, reason: str) -> None:
        """No further round: a request with no result yet is unscored with ``reason``."""
        with self._lock:
            self._closed = reason

    def billed(self, call: ToolCall) -> Usage | None:
        """The batch price of the reply to ``call`` the first time it is read back, else None."""
        with self._lock:
            outcome = self._outcomes.get(call.key)
            if not isinstance(outcome, ToolReply) or call.key in self._billed:
                return None
            self._billed.add(call.key)
        return priced(replace(outcome.usage, calls=1), call.model, self._prices, batch=True)
