"""Judging in message batches (judge mode ``batch``): the live judge's requests, at the batch price.

The flow, in rounds (:class:`gate.judge.session.JudgeSession` drives it):

1. the judge runs over every run with :class:`BatchReplies` as its provider, which answers nothing
   yet and notes each request the judge cache does not hold (claims, and the assessment);
2. those requests go out as message batches (:class:`BatchRunner`: split within the API's limits,
   created or resumed, polled with backoff, results read), and their replies go to :class:`BatchReplies`;
3. the judge runs again: the replies are validated and written to the judge cache exactly as live
   replies are (the same request, the same key), and the requests that depend on them (the claims'
   verdicts) are noted for the next round;
4. when a pass notes nothing new, the last pass judges every run from the cache, and the report
   charges each batched reply once, at the batch price, beside what it would have cost live.

A request whose batch errored, expired or was cancelled leaves its claims unscored with that reason.
"""

from __future__ import annotations

from gate.judge.batch.base import MAX_BYTES, MAX_REQUESTS, Batches, BatchResult, BatchStatus
from gate.judge.batch.pending import PendingBatch, PendingBatches
from gate.judge.batch.plan import BatchPlan, split
from gate.judge.batch.replies import BatchReplies
from gate.judge.batch.runner import BatchRunner, Polling

__all__ = ["MAX_BYTES", "MAX_REQUESTS", "BatchReplies", "BatchResult", "BatchRunner", "BatchStatus", "Batches",
           "PendingBatch", "PendingBatches", "BatchPlan", "Polling", "split"]
