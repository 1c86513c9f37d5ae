"""A wall-clock deadline around a blocking network call: :func:`call_by`.

HTTP clients time out each read, not the whole exchange: a server that sends one byte every few
seconds never trips a read timeout and can hold a call for as long as it likes. :func:`call_by`
runs the call in a daemon thread and stops waiting at the deadline. The caller then goes on (and
translates :class:`DeadlineExceeded` into its own error); the abandoned thread ends when its
connection does, and never outlives the process.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

__all__ = ["DeadlineExceeded", "call_by"]

_T = TypeVar("_T")


class DeadlineExceeded(Exception):
    """The call did not finish by its deadline (translated at each boundary, never shown as is)."""


def call_by(deadline: float, fn: Callable[[], _T], *, clock: Callable[[], float] = time.monotonic) -> _T:
    """``fn()``'s value (or exception) if it is done by ``deadline`` on ``clock``, else :class:`DeadlineExceeded`."""
    outcome: list[tuple[bool, object]] = []
    done = threading.Event()

    def work() -> None:
        try:
            outcome.append((True, fn()))
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread, raised there
            outcome.append((False, exc))
        finally:
            done.set()

    threading.Thread(target=work, name="sourcegate-deadline", daemon=True).start()
    if not done.wait(max(0.0, deadline - clock())):
        raise DeadlineExceeded
    ok, value = outcome[0]
    if not ok:
        assert isinstance(value, BaseException)
        raise value
    return value  # type: ignore[return-value]
