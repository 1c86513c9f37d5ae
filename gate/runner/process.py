"""The agent's processes: one per case, an argument list (never a shell), and nothing they start
outlives their case.

On Linux (:data:`CONTAINED`) each agent runs under a keeper (:mod:`gate.runner.keeper`), a child
subreaper: whatever the agent starts stays below the keeper however it detaches (a double fork,
``setsid``), and when the agent exits, its deadline passes or the run is stopped, the keeper kills
and reaps all of it. While the agents run the gate is a subreaper too: should a keeper die before it
has reported (an agent may kill its parent), the processes it watched are re-parented to the gate,
which ends them. Elsewhere (macOS) the agent runs in a session of its own and its process group is
killed when it ends or times out; a process that leaves the group (``setsid``) is out of reach.

Output is read as it comes into bounded tails (:mod:`gate.runner.output`), so memory does not grow
with what an agent prints.

A case run with a :class:`Door` (Linux, ``--network``) has its keeper make a network namespace first
(:mod:`gate.runner.netns`): the door hears from the keeper, on a Unix socket of their own, before the
agent may start, and a keeper that could not make one is not let start it (the case fails, saying why).
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Protocol

from gate.model import STDERR_KEPT, STDOUT_KEPT
from gate.runner import keeper
from gate.runner.assemble import Finished
from gate.runner.output import Tail

__all__ = ["CONTAINED", "GRACE", "Door", "Processes", "Stopped"]

CONTAINED = sys.platform.startswith("linux")
"""Whether agents run under a keeper (Linux: ``prctl(PR_SET_CHILD_SUBREAPER)`` and ``/proc``)."""
GRACE = 5.0
"""Seconds a keeper has to end its case once asked; then the gate kills it and ends the case itself."""
LINGER = 1.0
"""Seconds output is still read once the process is gone while something else holds its pipes."""
_POLL = 0.1
_CHUNK = 65536


class Stopped(Exception):
    """The run was interrupted: no new agent process starts."""


class Door(Protocol):
    """A case's network namespace as the gate sees it (:class:`gate.runner.doors.CaseDoor`)."""

    def keeper_args(self, channel: int) -> list[str]:
        """What the keeper is told (``--net ...``), ``channel`` the fd of its end of the Unix socket."""
        ...

    def opened(self, channel: socket.socket) -> str | None:
        """Take what the keeper sent on ``channel`` (the gate's end): None once the namespace is served,
        else why the case cannot run confined."""
        ...


@dataclass(frozen=True)
class _Live:
    proc: subprocess.Popen[bytes]
    label: str


class Processes:
    """The live agent processes of one ``sourcegate run``; :meth:`stop` ends them all.

    Used as a context manager: on Linux the gate is a subreaper inside it, and on leaving it ends
    whatever was re-parented to it (its own children from before are left alone).
    """

    def __init__(self, *, contained: bool = CONTAINED) -> None:
        """No process yet; ``contained``: run each agent under a keeper (Linux only)."""
        self.contained = contained
        self._lock = threading.Lock()
        self._live: dict[int, _Live] = {}
        self._stopping = threading.Event()
        self._own: frozenset[int] = frozenset()
        self._was_subreaper = False

    def __enter__(self) -> Processes:
        """The gate becomes a subreaper (contained)."""
        if self.contained:
            self._own = frozenset(keeper.descendants(keeper.process_table(), os.getpid()))
            self._was_subreaper = keeper.set_subreaper(True)
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        """End what was re-parented to the gate; the subreaper setting as it was."""
        if self.contained:
            self._sweep()
            keeper.set_subreaper(self._was_subreaper)

    def run(self, argv: Sequence[str], env: Mapping[str, str], timeout: float, label: str = "",
            door: Door | None = None) -> Finished:
        """Run ``argv`` to its end (or ``timeout`` seconds) and end everything it started; how it ended.

        ``label`` names the case in :meth:`members`; ``door``: the agent runs in a network namespace of
        its own (contained only). Raises :class:`Stopped` when :meth:`stop` was called before or while
        it ran (everything it started is ended first).
        """
        if door is not None and not self.contained:
            raise ValueError("a network namespace needs a keeper (Linux)")
        with self._lock:
            if self._stopping.is_set():
                raise Stopped
            proc, go, status, channel = self._start(argv, env, door)
            self._live[proc.pid] = _Live(proc, label)
        out, err = Tail(STDOUT_KEPT), Tail(STDERR_KEPT)
        assert proc.stdout is not None and proc.stderr is not None
        streams = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}
        try:
            refused = _let_start(go, door, channel)
            how = self._watch(proc, streams, time.monotonic() + timeout)
            if how != "ended":
                self._end(proc)
            failure, left = self._ended(proc, status)
            failure = refused if refused is not None else failure
            self._watch(proc, streams, time.monotonic() + LINGER, stoppable=False)  # what is left in the pipes
        finally:
            if proc.poll() is None:  # an error of the gate's own: the case still ends
                self._end(proc)
            with self._lock:
                self._live.pop(proc.pid, None)
            for f in (proc.stdout, proc.stderr):
                f.close()
            if status is not None:
                os.close(status)
        if how == "stopped" or self._stopping.is_set():
            raise Stopped
        if how == "timeout":
            failure = f"timed out after {timeout:g} s"
        return Finished(failure, out.kept().decode("utf-8", "replace"), err.kept().decode("utf-8", "replace"),
                        stdout_dropped=out.dropped, stderr_dropped=err.dropped,
                        left_running=left if how == "ended" else 0)

    def stop(self) -> None:
        """Ask every live agent's keeper to end its case (elsewhere: kill its process group); no new one starts."""
        self._stopping.set()
        with self._lock:
            live = list(self._live.values())
        for one in live:
            self._signal(one.proc, signal.SIGTERM if self.contained else signal.SIGKILL)

    def members(self, table: Mapping[int, keeper.Proc]) -> dict[int, str]:
        """Every process of a running case in ``table`` (a process table): pid -> the case's label."""
        with self._lock:
            roots = {pid: one.label for pid, one in self._live.items()}
        found = {}
        for root, label in roots.items():
            for pid in (root, *keeper.descendants(table, root)):
                found[pid] = label
        return found

    def _start(self, argv: Sequence[str], env: Mapping[str, str], door: Door | None) -> tuple[
            subprocess.Popen[bytes], int | None, int | None, socket.socket | None]:
        """The process (the keeper, contained), the fd that lets the keeper start the agent, the status fd,
        and the gate's end of the socket the keeper hands its namespace's sockets on (with a ``door``)."""
        if not self.contained:
            return subprocess.Popen(list(argv), env=dict(env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, start_new_session=True), None, None, None
        go_r, go_w = os.pipe()
        status_r, status_w = os.pipe()
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET) if door is not None else (None, None)
        net = door.keeper_args(theirs.fileno()) if door is not None and theirs is not None else []
        command = [sys.executable, "-I", "-S", keeper.__file__, str(os.getpid()), str(go_r), str(status_w), *net,
                   "--", *argv]
        passed = (go_r, status_w, *([theirs.fileno()] if theirs is not None else []))
        try:
            proc = subprocess.Popen(command, env=dict(env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, pass_fds=passed, start_new_session=True)
        except BaseException:
            os.close(go_w)
            os.close(status_r)
            if ours is not None:
                ours.close()
            raise
        finally:
            os.close(go_r)
            os.close(status_w)
            if theirs is not None:
                theirs.close()
        return proc, go_w, status_r, ours

    def _watch(self, proc: subprocess.Popen[bytes], streams: Mapping[int, Tail], until: float, *,
               stoppable: bool = True) -> str:
        """Read the pipes into their tails until the process has ended and they are closed (``ended``; or
        :data:`LINGER` seconds after it ended while something else holds them), ``until`` (``timeout``)
        or a stop (``stopped``)."""
        with selectors.DefaultSelector() as selector:
            for fd in streams:
                selector.register(fd, selectors.EVENT_READ)
            gone_at = None
            while True:
                now = time.monotonic()
                if proc.poll() is not None:
                    gone_at = now if gone_at is None else gone_at
                    if not selector.get_map() or now - gone_at > LINGER:
                        return "ended"
                if stoppable and self._stopping.is_set():
                    return "stopped"
                if now >= until:
                    return "timeout"
                wait = min(_POLL, until - now)
                if not selector.get_map():
                    with contextlib.suppress(subprocess.TimeoutExpired):
                        proc.wait(wait)
                    continue
                for key, _ in selector.select(wait):
                    data = os.read(key.fd, _CHUNK)
                    if data:
                        streams[key.fd].add(data)
                    else:
                        selector.unregister(key.fd)

    def _end(self, proc: subprocess.Popen[bytes]) -> None:
        """End the case now: its keeper is asked and, after :data:`GRACE` seconds (at once when it is
        stopped), killed (the gate then ends what it watched, :meth:`_ended`); elsewhere the agent's
        group is killed."""
        if not self.contained:
            self._signal(proc, signal.SIGKILL)
            proc.wait()
            return
        self._signal(proc, signal.SIGTERM)
        try:
            if keeper.stopped(proc.pid):  # it would hear the request only once continued: no grace to wait
                raise subprocess.TimeoutExpired(proc.args, 0)
            proc.wait(GRACE)
        except subprocess.TimeoutExpired:  # stopped (SIGSTOP) or stuck: the gate takes over
            self._signal(proc, signal.SIGKILL)
            proc.wait()

    def _ended(self, proc: subprocess.Popen[bytes], status: int | None) -> tuple[str | None, int]:
        """Why the agent gave no result (None: it exited 0), and how many processes it left running."""
        proc.wait()
        if not self.contained:
            self._signal(proc, signal.SIGKILL)  # what it left in its group
            return _exited(proc.returncode), 0
        assert status is not None
        report = _status(status) if proc.returncode == 0 else None
        if report is None:  # the keeper was killed before it reported: what it watched is the gate's now
            with self._lock:
                self._live.pop(proc.pid, None)
            self._sweep()
            how = _exited(proc.returncode) or "ended"
            return (f"its keeper (the process that ends what the agent starts) {how}, before reporting; the gate "
                    "ended the agent's processes"), 0
        signum, code = report.get("signal"), report.get("exit")
        failure = _exited(-signum if isinstance(signum, int) else code if isinstance(code, int) else 0)
        ended, left = report.get("ended"), report.get("left")
        if isinstance(left, int) and left:
            failure = (failure + "; " if failure else "") + f"{left} of its processes could not be ended"
        return failure, ended if isinstance(ended, int) else 0

    def _sweep(self) -> None:
        """End every process re-parented to the gate: all below it but the live keepers and its own children."""
        with self._lock:  # no keeper starts meanwhile, so none is taken for an orphan
            keeper.end_tree(os.getpid(), {*self._live, *self._own}, reap_any=False)

    def _signal(self, proc: subprocess.Popen[bytes], sig: int) -> None:
        """``sig`` to the keeper (contained) or to the agent's process group."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if self.contained:
                proc.send_signal(sig)
            else:
                os.killpg(proc.pid, sig)


def _let_start(go: int | None, door: Door | None, channel: socket.socket | None) -> str | None:
    """Let the keeper start the agent (one byte on ``go``) once its namespace is served (``door``); None,
    or why it could not be served, and then the keeper ends the case unstarted (``go`` closed without it)."""
    refused = None
    try:
        if door is not None and channel is not None:
            refused = door.opened(channel)
        if go is not None and refused is None:
            with contextlib.suppress(OSError):  # a keeper that died at once is reported later
                os.write(go, b"g")
    finally:
        if channel is not None:
            channel.close()
        if go is not None:
            os.close(go)
    return refused


def _status(fd: int) -> dict[str, object] | None:
    """The keeper's report: the last line on its status pipe, a JSON object (None: it wrote none)."""
    os.set_blocking(fd, False)
    data = b""
    with contextlib.suppress(BlockingIOError, OSError):
        while len(data) < _CHUNK and (chunk := os.read(fd, _CHUNK)):
            data += chunk
    lines = data.strip().splitlines()
    try:
        report = json.loads(lines[-1]) if lines else None
    except ValueError:
        return None
    return report if isinstance(report, dict) else None


def _exited(code: int | None) -> str | None:
    """How a process that ended with ``code`` (negative: the signal that killed it) failed; None for 0."""
    if not code:
        return None
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"was killed by {signal.Signals(-code).name}"
    return f"exited with code {code}"
