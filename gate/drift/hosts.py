"""How hard one host is asked: a few checks at once, spaced out, and paused when it says so.

The limits are lychee's (``--host-concurrency``, ``--host-request-interval``, ``Retry-After``):

    concurrency   at most 10 checks of one host at once
    interval      a check of a host starts at least 50 ms after the previous one started
    pause         a host that answered 429 or sent ``Retry-After`` gets no new check until the time
                  it asked for has passed (up to :data:`MAX_RETRY_AFTER`; the URL is retried then)

A check is one attempt at a URL: its HEAD, the GET it may fall back to, and their redirect hops
(which may lead to other hosts; the slot held is the cited URL's host's). The clock and the sleep are
injected, so the schedule is tested without waiting.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from email.utils import parsedate_to_datetime

__all__ = ["MAX_RETRY_AFTER", "HostSlots", "Limits", "retry_after_seconds", "next_delay"]

MAX_RETRY_AFTER = 60.0
"""The longest ``Retry-After`` waited for, in seconds; a URL asked to wait longer is an ``error``."""


@dataclass(frozen=True)
class Limits:
    """How the live web is asked: the defaults are lychee's, but for the total, sized for threads."""

    max_concurrency: int = 32
    """checks at once, over every host"""
    host_concurrency: int = 10
    """checks of one host at once"""
    host_interval: float = 0.05
    """seconds between the starts of two checks of one host"""
    max_retries: int = 3
    """retries of a transient failure (408, 429, 5xx, a connection cut mid-answer)"""
    retry_wait: float = 1.0
    """the first wait before a retry, doubled for each next one (unless the server said how long)"""


def retry_after_seconds(value: str | None, now: datetime) -> float | None:
    """The seconds a ``Retry-After`` header asks for: a number of seconds, or an HTTP date after ``now``."""
    text = (value or "").strip()
    if not text:
        return None
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:  # an HTTP date is GMT; a malformed one may say no zone
        return None
    return max((when - now).total_seconds(), 0.0)


def next_delay(attempt: int, retry_after: float | None, limits: Limits) -> float | None:
    """How long to wait before retry ``attempt`` (1 for the first): what the server asked, else the
    doubling backoff; None when the server asked for more than :data:`MAX_RETRY_AFTER`."""
    if retry_after is not None:
        return retry_after if retry_after <= MAX_RETRY_AFTER else None
    return limits.retry_wait * 2.0 ** (attempt - 1)


@dataclass
class _Host:
    slots: threading.Semaphore
    next_start: float = 0.0
    paused_until: float = 0.0


class HostSlots:
    """Per-host concurrency, spacing and pauses, shared by every checking thread."""

    def __init__(self, limits: Limits, *, clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        """Hold ``limits``; ``clock`` gives seconds and ``sleep`` waits (both injected in tests)."""
        self.limits = limits
        self._clock, self._sleep = clock, sleep
        self._lock = threading.Lock()
        self._hosts: dict[str, _Host] = {}

    def _host(self, name: str) -> _Host:
        with self._lock:
            found = self._hosts.get(name)
            if found is None:
                found = self._hosts[name] = _Host(threading.Semaphore(self.limits.host_concurrency))
            return found

    @contextmanager
    def turn(self, name: str) -> Iterator[None]:
        """Hold one of ``name``'s slots, starting no sooner than its spacing and any pause allow."""
        host = self._host(name)
        with host.slots:
            with self._lock:
                now = self._clock()
                start = max(now, host.next_start, host.paused_until)
                host.next_start = start + self.limits.host_interval
            if start > now:
                self._sleep(start - now)
            yield

    def pause(self, name: str, seconds: float) -> None:
        """Start no new check of ``name`` for ``seconds`` (a 429, or the ``Retry-After`` it sent)."""
        host = self._host(name)
        with self._lock:
            host.paused_until = max(host.paused_until, self._clock() + seconds)
