"""Every cited URL looked at live, many at once, each host asked gently, transient failures retried.

    answers = check_live(cited, config.record, limits=Limits(), content=False)   # {url: Answer}

A pool of :attr:`Limits.max_concurrency` threads looks at the URLs, handed out host by host in turn
so that no host's queue holds up the others; :class:`~gate.drift.hosts.HostSlots` keeps each host to
its concurrency, spacing and pauses. A transient failure (408, 429, 5xx, a connection cut
mid-answer) is tried again up to :attr:`Limits.max_retries` times, after the ``Retry-After`` the
server sent or a doubling backoff; one still failing after them is said with its attempts: a 5xx
is then judged ``gone``, a 408 or 429 (asked to come back later) an ``error``. A retried failure
is never kept for another URL: nothing is cached, within a run or across runs.
"""

from __future__ import annotations

import socket
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import replace
from itertools import chain, zip_longest

from gate.config import RecordConfig
from gate.drift.hosts import MAX_RETRY_AFTER, HostSlots, Limits, next_delay
from gate.drift.live import Prober
from gate.drift.model import Answer, CitedUrl
from gate.live.transport import Resolve
from gate.term.progress import NullProgress, Progress
from gate.urls import host

__all__ = ["check_live", "checked", "interleaved"]


def interleaved(urls: Iterable[str]) -> list[str]:
    """``urls`` reordered host by host in turn (a, b, c, a, b, c, ...), each host's in their order."""
    by_host: dict[str, list[str]] = defaultdict(list)
    for url in urls:
        by_host[host(url)].append(url)
    return [u for u in chain.from_iterable(zip_longest(*by_host.values())) if u is not None]


def checked(url: str, look: Callable[[str], Answer], hosts: HostSlots, *,
            sleep: Callable[[float], None] = time.sleep, stop: threading.Event | None = None) -> Answer:
    """``look(url)`` in a turn of the URL's host, retried while the answer is transient (and ``stop``
    is not set: once it is, the last answer stands)."""
    name, limits = host(url), hosts.limits
    attempt = 0
    while True:
        attempt += 1
        with hosts.turn(name):
            answer = look(url)
        if not answer.transient:
            return replace(answer, attempts=attempt)
        delay = next_delay(attempt, answer.retry_after, limits)
        if answer.status == 429 or answer.retry_after is not None:  # the host said to slow down
            hosts.pause(name, MAX_RETRY_AFTER if delay is None else delay)
        if attempt > limits.max_retries or delay is None or (stop is not None and stop.is_set()):
            return _given_up(answer, attempt)
        sleep(delay)


def _given_up(answer: Answer, attempts: int) -> Answer:
    tries = f"{attempts} attempt{'s' if attempts > 1 else ''}"
    if answer.retry_after is not None and answer.retry_after > MAX_RETRY_AFTER:
        tries += f"; it asked to wait {answer.retry_after:g} s, over the {MAX_RETRY_AFTER:g} s waited at most"
    if answer.status in (408, 429):
        asked = "too many requests" if answer.status == 429 else "request timeout"
        return replace(answer, attempts=attempts, error=f"HTTP {answer.status} ({asked}) after {tries}")
    return replace(answer, attempts=attempts, note=f"still failing after {tries}")


def check_live(cited: Sequence[CitedUrl], settings: RecordConfig, *, limits: Limits | None = None,
               content: bool = False, source: str | None = None, resolve: Resolve = socket.getaddrinfo,
               progress: Progress | None = None) -> dict[str, Answer]:
    """Today's answer for each of ``cited``, by URL, under the ``record:`` ``settings`` and ``limits``.

    ``source`` names the configuration file in an error about ``record.allow``; ``progress`` is told
    each URL done. Ctrl-C stops handing out URLs and cuts every wait short; the looks under way end
    within their deadline.
    """
    prober = Prober(settings, source=source, resolve=resolve)  # a bad allow-list is refused before any look
    limits = limits or Limits()
    stop = threading.Event()

    def wait(seconds: float) -> None:  # a pause or a backoff that Ctrl-C cuts short
        stop.wait(seconds)

    hosts = HostSlots(limits, sleep=wait)
    shown = progress or NullProgress()
    urls = interleaved(c.url for c in cited)
    answers: dict[str, Answer] = {}
    if not urls:
        return answers
    shown.start(len(urls), "cited URLs checked live")
    pool = ThreadPoolExecutor(max_workers=min(limits.max_concurrency, len(urls)), thread_name_prefix="drift")
    try:
        futures = {pool.submit(checked, url, lambda u: prober.probe(u, content=content), hosts,
                               sleep=wait, stop=stop): url
                   for url in urls}
        for future in as_completed(futures):
            answers[futures[future]] = future.result()
            shown.advance()
    except BaseException:
        stop.set()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    finally:
        shown.close()
    pool.shutdown()
    return answers
