"""Batch mode's rounds: pass the judge over the runs, batch what it missed, until nothing is missing.

:meth:`Settler.settle` takes the runs to judge and returns the judge that judges them: an
:class:`gate.judge.llm.LLMJudge` reading the judge cache, and the batches' replies for what the cache
could not keep (a reply cut off, a refusal), each billed once at the batch price. Each round's pass
is the real judge with :class:`gate.judge.batch.replies.BatchReplies` as its provider, so the
requests are the live ones and the replies are validated and cached as live ones are.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from gate.config import Config
from gate.judge.base import JudgeRequest
from gate.judge.batch.replies import BatchReplies
from gate.judge.batch.runner import BatchRunner
from gate.judge.cache import JudgeCache
from gate.judge.llm import LLMJudge

MAX_ROUNDS = 4
"""Rounds of message batches at most: the judge needs two (claims and assessment, then verdicts)."""


class Settler:
    """Settles the requests of runs through rounds of message batches."""

    def __init__(self, config: Config, cache: JudgeCache | None, runner: BatchRunner, *, expected_runs: int = 1,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """Rounds through ``runner``, replies validated into ``cache`` (None: kept in memory only)."""
        self._config = config
        self._cache = cache
        self.runner = runner
        self._expected = expected_runs
        self._clock = clock
        self.replies = BatchReplies(config.judge.prices)
        self._rounds = 0

    def _judge(self, *, last: bool) -> LLMJudge:
        return LLMJudge(self._config, cache=self._cache, caller=self.replies, expected_runs=self._expected,
                        clock=self._clock, billed=self.replies.billed if last else None)

    def settle(self, requests: Sequence[JudgeRequest]) -> LLMJudge:
        """Rounds of batches until the judge cache (or a batch's failure) answers every request the judge
        makes of ``requests``; then the judge for them, its deadline starting now."""
        self.replies.reopen()
        for _ in range(MAX_ROUNDS):
            judge = self._judge(last=False)
            for request in requests:
                judge.judge(request)
            self.runner.consumed()  # the replies this pass read are in the judge cache now
            wanted = self.replies.take_wanted()
            if not wanted:
                break
            self.replies.add(self.runner.run(wanted, first_round=self._rounds == 0))
            self._rounds += 1
        self.replies.close(f"no message batch answered this request within {MAX_ROUNDS} rounds")
        return self._judge(last=True)
