"""Progress of long work (a live judge, ``snapshot record``, ``sourcegate run``) on stderr. An I/O edge.

A :class:`Progress` is a value the caller hands to the work; the work reports to it and never asks
where the output goes:

    progress = for_cli(quiet=args.quiet, color=args.color)   # at the CLI edge, once
    progress.start(len(cases), "judging")
    for case in cases:
        ...                                                   # one case's work
        progress.advance(calls=u.calls, tokens=u.tokens, cost=u.cost_usd)
    progress.close()

``advance(0, calls=..., ...)`` adds spending without a finished case. A command gets its progress
from :func:`gate.deliver.console.progress` (``-q`` and ``--color`` taken into account) and passes it on as a
value: ``run_set(request, progress=console.progress(args))`` or ``JudgeSession(..., progress=...)``,
which reports each run judged; any other long loop (``sourcegate run``'s agent runs) calls
``start``/``advance``/``close`` itself. Implementations are
thread-safe (the judge's pool threads report from their own threads).

- :class:`RichProgress` on a terminal: a bar (``rich``) with cases done, calls, tokens, cost and an ETA.
- :class:`PlainProgress` elsewhere (CI logs, a file): one plain line every ``every`` seconds or
  every 10% of the total, and a last line at the end. The clock is injected.
- :class:`NullProgress` with ``-q``, or when stderr must stay clean.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Mapping
from typing import Protocol, TextIO

from gate.term.color import use_color

__all__ = ["NullProgress", "PlainProgress", "Progress", "RichProgress", "for_cli"]


class Progress(Protocol):
    """Where long work reports how far it got."""

    def start(self, total: int | None, label: str) -> None:
        """Begin: ``total`` items (None: unknown), called ``label``."""

    def advance(self, n: int = 1, *, calls: int = 0, tokens: int = 0, cost: float | None = 0.0) -> None:
        """``n`` more items done, and what they spent (``cost`` None: no price known)."""

    def note(self, text: str) -> None:
        """A line to show above the progress (once)."""

    def close(self) -> None:
        """End: the last figures are shown, the bar removed."""


class NullProgress:
    """Shows nothing."""

    def start(self, total: int | None, label: str) -> None:
        """Nothing."""

    def advance(self, n: int = 1, *, calls: int = 0, tokens: int = 0, cost: float | None = 0.0) -> None:
        """Nothing."""

    def note(self, text: str) -> None:
        """Nothing."""

    def close(self) -> None:
        """Nothing."""


class _Figures:
    """Running totals, under a lock."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.total: int | None = None
        self.label = ""
        self.done = self.calls = self.tokens = 0
        self.cost: float | None = 0.0

    def add(self, n: int, calls: int, tokens: int, cost: float | None) -> None:
        self.done += n
        self.calls += calls
        self.tokens += tokens
        self.cost = None if self.cost is None or cost is None else self.cost + cost

    def spent(self) -> str:
        """Calls, tokens and cost; empty while nothing was spent (a judge cache, a recorder)."""
        if not self.calls and not self.tokens:
            return ""
        cost = "cost unknown" if self.cost is None else f"${self.cost:.4f}"
        return f"{self.calls} call{'' if self.calls == 1 else 's'}, {self.tokens:,} tokens, {cost}"


class PlainProgress:
    """One line every ``every`` seconds or every 10% of the total (CI logs keep every line)."""

    def __init__(self, stream: TextIO, *, every: float = 30.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """Write to ``stream``; ``clock`` gives seconds (injected in tests)."""
        self._stream, self._every, self._clock = stream, every, clock
        self._f = _Figures()
        self._started = self._last_time = 0.0
        self._last_tenth = 0
        self._open = False

    def start(self, total: int | None, label: str) -> None:
        """Remember the total and the time; print nothing yet."""
        with self._f.lock:
            self._f.total, self._f.label, self._open = total, label, True
            self._started = self._last_time = self._clock()

    def advance(self, n: int = 1, *, calls: int = 0, tokens: int = 0, cost: float | None = 0.0) -> None:
        """Count, and print a line when ``every`` seconds passed or a new tenth of the total is done."""
        with self._f.lock:
            self._f.add(n, calls, tokens, cost)
            now = self._clock()
            total = self._f.total
            tenth = self._f.done * 10 // total if total else 0
            if n and ((total and tenth > self._last_tenth) or now - self._last_time >= self._every):
                self._last_tenth, self._last_time = tenth, now
                self._line(now)

    def note(self, text: str) -> None:
        """Print ``text`` on its own line."""
        with self._f.lock:
            self._stream.write(f"sourcegate: {text}\n")
            self._stream.flush()

    def close(self) -> None:
        """Print the final figures once (nothing when nothing was started)."""
        with self._f.lock:
            if self._open:
                self._open = False
                self._line(self._clock(), final=True)

    def _line(self, now: float, final: bool = False) -> None:
        f = self._f
        of = f"/{f.total}" if f.total is not None else ""
        elapsed = now - self._started
        tail = f", {elapsed:.0f} s"
        if not final and f.total and f.done:
            tail += f", about {elapsed * (f.total - f.done) / f.done:.0f} s left"
        spent = f", {f.spent()}" if f.spent() else ""
        self._stream.write(f"sourcegate: {f.label}{' done' if final else ''}: {f.done}{of}{spent}{tail}\n")
        self._stream.flush()


class RichProgress:
    """A ``rich`` progress bar on a terminal: cases, calls, tokens, cost and the time left."""

    def __init__(self, stream: TextIO, *, color: bool) -> None:
        """Draw on ``stream`` (a terminal), coloured or not."""
        from rich.console import Console

        self._console = Console(file=stream, force_terminal=True, no_color=not color,
                                color_system="auto" if color else None, highlight=False)
        self._f = _Figures()
        self._bar: object | None = None
        self._task: object | None = None

    def start(self, total: int | None, label: str) -> None:
        """Show the bar."""
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                       TextColumn("{task.fields[spent]}"), TimeRemainingColumn(),
                       console=self._console, transient=False)
        with self._f.lock:
            self._f.total, self._f.label = total, label
            self._task = bar.add_task(label, total=total, spent=self._f.spent())
            self._bar = bar
        bar.start()

    def advance(self, n: int = 1, *, calls: int = 0, tokens: int = 0, cost: float | None = 0.0) -> None:
        """Move the bar and update the figures."""
        from rich.progress import Progress, TaskID

        with self._f.lock:
            self._f.add(n, calls, tokens, cost)
            if isinstance(self._bar, Progress) and isinstance(self._task, int):
                self._bar.update(TaskID(self._task), advance=n, spent=self._f.spent())

    def note(self, text: str) -> None:
        """Print ``text`` above the bar."""
        self._console.print(f"sourcegate: {text}", markup=False, highlight=False)

    def close(self) -> None:
        """Stop the bar, leaving its last state on screen."""
        from rich.progress import Progress

        with self._f.lock:
            bar, self._bar = self._bar, None
        if isinstance(bar, Progress):
            bar.stop()


def for_cli(*, quiet: bool = False, color: str = "auto", stream: TextIO | None = None,
            env: Mapping[str, str] | None = None) -> Progress:
    """The progress for a command: none with ``-q``, a bar on a terminal, plain lines elsewhere."""
    if quiet:
        return NullProgress()
    stream = sys.stderr if stream is None else stream
    env = os.environ if env is None else env
    isatty = getattr(stream, "isatty", None)  # a stand-in stream (a tee of the log) may have none
    tty = callable(isatty) and bool(isatty()) and env.get("TERM") != "dumb"
    if tty:
        return RichProgress(stream, color=use_color(color, env, True))
    return PlainProgress(stream)
