"""The agent's processes: one per case, an argument list (never a shell), each in its own process
group so that a timeout or Ctrl-C stops the agent and everything it started."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading
from collections.abc import Mapping, Sequence

from gate.runner.assemble import Finished

__all__ = ["Processes"]


class Stopped(Exception):
    """The run was interrupted: no new agent process starts."""


class Processes:
    """The live agent processes of one ``sourcegate run``; :meth:`stop` kills them all."""

    def __init__(self) -> None:
        """No process yet."""
        self._lock = threading.Lock()
        self._live: set[subprocess.Popen[bytes]] = set()
        self._stopped = False

    def run(self, argv: Sequence[str], env: Mapping[str, str], timeout: float) -> Finished:
        """Run ``argv`` to its end (or ``timeout`` seconds, then kill its group); how it ended.

        Raises :class:`Stopped` when :meth:`stop` was called before or while it ran.
        """
        with self._lock:
            if self._stopped:
                raise Stopped
            proc = subprocess.Popen(list(argv), env=dict(env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, start_new_session=True)
            self._live.add(proc)
        try:
            try:
                out, err = proc.communicate(timeout=timeout)
                failure = None if proc.returncode == 0 else _exited(proc.returncode)
            except subprocess.TimeoutExpired:
                _kill(proc)
                out, err = proc.communicate()
                failure = f"timed out after {timeout:g} s"
        finally:
            with self._lock:
                self._live.discard(proc)
                stopped = self._stopped
        if stopped:
            raise Stopped
        return Finished(failure, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"))

    def stop(self) -> None:
        """Kill every live agent's process group; no new one starts."""
        with self._lock:
            self._stopped = True
            live = list(self._live)
        for proc in live:
            _kill(proc)


def _exited(code: int) -> str:
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"was killed by {signal.Signals(-code).name}"
    return f"exited with code {code}"


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
