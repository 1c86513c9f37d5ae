"""One round of message batches: create (or resume), poll with backoff, collect the results.

:meth:`BatchRunner.run` takes the round's requests by cache key and answers each with its reply or
the reason it has none. Pending batches from an interrupted run whose requests are among this
round's are resumed (polled, not created again: they are paid for once); the rest is split within
the API's limits (:mod:`gate.judge.batch.plan`) and created, each batch noted in the pending-batch
file (:mod:`gate.judge.batch.pending`) before it is waited for.

Polling backs off from :attr:`Polling.first` to :attr:`Polling.most` seconds and reports each change
of a batch's status to the progress output. When ``deadline_seconds`` pass, the open batches are
cancelled; the requests that ran keep their results, the others come back ``canceled``. A batch that
has not ended :attr:`Polling.grace` seconds after that stays pending for the next run. The clock and
the sleep are injected, so tests never wait.

Nothing here raises for the API: a failure is the reason of the requests it touched, and a refused
key (:class:`gate.errors.JudgeAuthError`) stops the runner asking anything further.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

from gate.errors import JudgeAuthError, JudgeUnavailable
from gate.judge.base import ToolCall, ToolReply
from gate.judge.batch.base import MAX_BYTES, MAX_REQUESTS, Batches, BatchStatus
from gate.judge.batch.pending import PendingBatch, PendingBatches
from gate.judge.batch.plan import split
from gate.term.progress import NullProgress, Progress

BatchAnswer = ToolReply | str
"""A request's reply from its batch, or why there is none."""

POLL_FAILURES = 5
"""Polls that may fail in a row (each after the SDK's retries) before the round gives up waiting."""


@dataclass(frozen=True)
class Polling:
    """How often a batch is polled: ``first`` seconds, times ``factor`` each poll, at most ``most``."""

    first: float = 5.0
    factor: float = 1.5
    most: float = 60.0
    grace: float = 300.0
    """after cancelling at the deadline, how long to wait for the batch to end"""

    def delays(self) -> Iterator[float]:
        """The waits between polls."""
        delay = self.first
        while True:
            yield delay
            delay = min(self.most, delay * self.factor)


class BatchRunner:
    """Sends rounds of requests as message batches through ``batches``."""

    def __init__(self, batches: Batches, pending: PendingBatches | None, *, deadline_seconds: float,
                 progress: Progress | None = None, polling: Polling | None = None,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep,
                 max_requests: int = MAX_REQUESTS, max_bytes: int = MAX_BYTES) -> None:
        """Set up; ``pending`` None keeps no pending-batch file (no judge cache to keep it beside)."""
        self._batches = batches
        self._pending = pending
        self._deadline_seconds = deadline_seconds
        self._progress: Progress = progress or NullProgress()
        self._polling = polling or Polling()
        self._clock = clock
        self._sleep = sleep
        self._max_requests = max_requests
        self._max_bytes = max_bytes
        self.fatal: str | None = None
        """why the runner stopped asking the API (a refused key), or None"""
        self.created: list[str] = []
        """the ids of the batches this runner created"""
        self.resumed: list[str] = []
        """the ids of pending batches from an earlier run that it resumed"""
        self.ended: list[str] = []
        """batches that ended and whose results were handed out, not yet dropped from the pending file"""
        self.notes: list[str] = []

    def consumed(self) -> None:
        """The results handed out so far are in the judge cache: forget their batches."""
        if self._pending is not None:
            self._pending.drop(self.ended)
        self.ended = []

    def run(self, calls: Mapping[str, ToolCall], *, first_round: bool = False) -> dict[str, BatchAnswer]:
        """Each of ``calls`` (by key) answered: its reply, or why it has none.

        ``first_round``: pending batches that share no request with this round are from other
        requests (the set, the prompts or the model changed): they are dropped, with a note.
        """
        outcomes: dict[str, BatchAnswer] = {}
        if self.fatal is not None:
            return dict.fromkeys(calls, f"not sent: {self.fatal}")
        waiting = self._resume(calls, first_round)
        todo = [c for k, c in calls.items() if not any(k in keys for _, keys in waiting)]
        plan = split(todo, self._batches.size, max_requests=self._max_requests, max_bytes=self._max_bytes)
        for call in plan.too_large:
            outcomes[call.key] = f"the request is larger than a message batch may be ({self._max_bytes:,} bytes)"
        for chunk in plan.batches:
            keys = frozenset(c.key for c in chunk)
            try:
                status = self._batches.create(chunk)
            except JudgeUnavailable as e:
                self._failed(e)
                outcomes.update(dict.fromkeys(keys, f"the message batch could not be created: {e}"))
                continue
            self.created.append(status.id)
            if self._pending is not None:
                self._pending.add(PendingBatch(status.id, keys))
            self._progress.note(f"judge: {status.describe()} created with {len(chunk)} request(s)")
            waiting.append((status.id, keys))
        outcomes.update(self._wait(waiting, calls))
        return outcomes

    def _resume(self, calls: Mapping[str, ToolCall], first_round: bool) -> list[tuple[str, frozenset[str]]]:
        if self._pending is None:
            return []
        resumed: list[tuple[str, frozenset[str]]] = []
        stale: list[str] = []
        for batch in self._pending.load():
            if not batch.keys & calls.keys():
                if first_round:
                    stale.append(batch.id)
                continue
            try:
                self._batches.retrieve(batch.id)
            except JudgeUnavailable as e:  # not this key's, deleted, or the API is down: send afresh
                self._failed(e)
                self.notes.append(f"judge: the pending message batch {batch.id} of an earlier run could not be "
                                  f"resumed ({e}); its requests were sent again")
                self._pending.drop([batch.id])
                continue
            resumed.append((batch.id, batch.keys))
            self.resumed.append(batch.id)
            self._progress.note(f"judge: resuming message batch {batch.id} of an earlier run")
        if stale:
            self.notes.append(f"judge: dropped {len(stale)} pending message batch(es) of an earlier run that "
                              f"no request of this run matches: {', '.join(stale)}")
            self._pending.drop(stale)
        return resumed

    def _failed(self, e: JudgeUnavailable) -> None:
        if isinstance(e, JudgeAuthError):
            self.fatal = self.fatal or str(e)

    def _wait(self, waiting: list[tuple[str, frozenset[str]]], calls: Mapping[str, ToolCall]) -> dict[str, BatchAnswer]:
        """Poll until every batch has ended (or the deadline and its grace pass); collect the results."""
        outcomes: dict[str, BatchAnswer] = {}
        open_batches = dict(waiting)
        last: dict[str, str] = {}
        delays = self._polling.delays()
        deadline = self._clock() + self._deadline_seconds
        given_up: float | None = None
        failures = 0
        why_open = "the message batch had not ended when the judge stopped waiting; it stays pending for the next run"
        while open_batches:
            for batch_id in list(open_batches):
                try:
                    status = self._batches.retrieve(batch_id)
                except JudgeUnavailable as e:
                    self._failed(e)
                    failures += 1
                    why_open = f"the message batch could not be polled: {e}; it stays pending for the next run"
                    if self.fatal is not None or failures >= POLL_FAILURES:
                        return {**outcomes, **self._unanswered(open_batches, calls, why_open)}
                    continue
                failures = 0
                if last.get(batch_id) != (line := status.describe()):
                    last[batch_id] = line
                    self._progress.note(f"judge: {line}")
                if status.ended:
                    outcomes.update(self._collect(status, open_batches.pop(batch_id), calls))
            if not open_batches:
                break
            now = self._clock()
            if given_up is None and now >= deadline:
                given_up = now
                self._cancel(open_batches)
            elif given_up is not None and now >= given_up + self._polling.grace:
                break
            self._sleep(next(delays))
        return {**outcomes, **self._unanswered(open_batches, calls, why_open)}

    def _cancel(self, open_batches: Mapping[str, frozenset[str]]) -> None:
        self.notes.append(f"judge: the batch deadline of {self._deadline_seconds:g} s passed: cancelled "
                          f"{len(open_batches)} message batch(es); their unfinished requests are unscored")
        for batch_id in open_batches:
            try:
                self._batches.cancel(batch_id)
            except JudgeUnavailable as e:
                self._failed(e)

    def _collect(self, status: BatchStatus, keys: frozenset[str],
                 calls: Mapping[str, ToolCall]) -> dict[str, BatchAnswer]:
        wanted = {k: calls[k] for k in keys if k in calls}
        try:
            results = self._batches.results(status.id, wanted)
        except JudgeUnavailable as e:
            self._failed(e)
            return dict.fromkeys(wanted, f"the results of message batch {status.id} could not be read: {e}")
        self.ended.append(status.id)
        outcomes: dict[str, BatchAnswer] = {}
        for r in results:
            outcomes[r.key] = r.reply if r.reply is not None else (r.error or "the batch gave no result")
        for key in wanted.keys() - outcomes.keys():
            outcomes[key] = f"message batch {status.id} ended without a result for this request"
        return outcomes

    @staticmethod
    def _unanswered(open_batches: Mapping[str, frozenset[str]], calls: Mapping[str, ToolCall],
                    why: str) -> dict[str, BatchAnswer]:
        return {k: why for keys in open_batches.values() for k in keys if k in calls}
