"""A clock that only moves when the code under test sleeps: schedules tested without waiting."""

from __future__ import annotations


class FakeTime:
    """A clock the injected sleep moves forward; every sleep is noted in ``slept``."""

    def __init__(self) -> None:
        """Start at 0 s, nothing slept."""
        self.now = 0.0
        self.slept: list[float] = []

    def clock(self) -> float:
        """The current time, in seconds."""
        return self.now

    def sleep(self, seconds: float) -> None:
        """Note the sleep and move the clock on by it."""
        self.slept.append(seconds)
        self.now += seconds
