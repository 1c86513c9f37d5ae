"""When a GitHub API call is tried again, and how long to wait first.

5xx, 429, secondary rate limits and connection failures are retried with exponential backoff,
honouring ``retry-after`` and ``x-ratelimit-reset``. A :class:`RetryBudget` counts the retries and
the sleep of one logical operation (one request, or one whole comment upsert), so that the total
wait of a call is capped: a wait that would go past the cap fails at once instead.
"""

from __future__ import annotations

import email.utils
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import requests

from gate.github.replies import github_message

__all__ = ["RetryBudget", "RetryPolicy", "parse_retry_after", "retry_delay"]

log = logging.getLogger(__name__)

# GitHub asks clients to wait at least a minute after a secondary rate limit without retry-after.
_SECONDARY_LIMIT_MIN_WAIT = 60.0


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long one operation may retry; ``sleep`` is there so tests need not wait."""

    max_retries: int = 4
    backoff: float = 1.0
    max_total_sleep: float = 120.0
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False)


class RetryBudget:
    """Counts the retries and the sleep of one logical operation, and sleeps when allowed."""

    def __init__(self, policy: RetryPolicy) -> None:
        self._policy = policy
        self.attempt = 0
        self.slept = 0.0

    def backoff_delay(self) -> float:
        return float(self._policy.backoff * (2**self.attempt))

    def wait(self, delay: float, what: str, reason: str) -> bool:
        """Sleep ``delay`` seconds and return True, or return False when the budget forbids it."""
        policy = self._policy
        delay = max(0.0, delay)
        if self.attempt >= policy.max_retries:
            log.warning("GitHub API %s: %s; giving up after %d retries", what, reason, self.attempt)
            return False
        if self.slept + delay > policy.max_total_sleep:
            log.warning(
                "GitHub API %s: %s; waiting %.1fs would exceed the %.0fs retry budget, giving up",
                what,
                reason,
                delay,
                policy.max_total_sleep,
            )
            return False
        self.attempt += 1
        log.warning(
            "GitHub API %s: %s; retry %d/%d in %.1fs", what, reason, self.attempt, policy.max_retries, delay
        )
        policy.sleep(delay)
        self.slept += delay
        return True


def retry_delay(
    response: requests.Response, budget: RetryBudget, clock: Callable[[], float]
) -> tuple[float, str, bool] | None:
    """Return (delay, reason, is_rate_limit) if the reply deserves a retry, else None."""
    status = response.status_code
    headers = response.headers
    retry_after = parse_retry_after(headers.get("retry-after"), clock)
    if status in (403, 429):
        message = github_message(response)[0].lower()
        if retry_after is not None:
            return retry_after, f"HTTP {status}, rate limited (retry-after {retry_after:g}s)", True
        reset = headers.get("x-ratelimit-reset")
        if headers.get("x-ratelimit-remaining") == "0" and reset:
            try:
                wait = float(reset) - clock()
            except ValueError:
                wait = budget.backoff_delay()
            # One second past the reset: the reset time is whole seconds and clocks drift.
            return wait + 1.0, f"HTTP {status}, rate limit exhausted until {reset}", True
        if "secondary rate limit" in message:
            delay = max(_SECONDARY_LIMIT_MIN_WAIT, budget.backoff_delay())
            return delay, f"HTTP {status}, secondary rate limit", True
        if status == 429:
            return budget.backoff_delay(), "HTTP 429", True
        return None
    if status >= 500:
        delay = retry_after if retry_after is not None else budget.backoff_delay()
        return delay, f"HTTP {status}", False
    return None


def parse_retry_after(value: str | None, clock: Callable[[], float]) -> float | None:
    """Seconds to wait from a ``retry-after`` header: delta-seconds or an HTTP date."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - clock())
