"""Run the gate in a child process: with one of its streams on a pseudo-terminal, as a person's terminal
would be, as ``python -m MODULE`` with its output piped, or in the background until a signal stops it.

The child is forked from the test process, which has imported ``gate`` already: it is a real process
that writes to a real terminal (``isatty()`` is true; the terminal turns ``\\n`` into ``\\r\\n``), without
a new interpreter's start and imports. It gets the environment and working directory it is given,
fresh standard streams on its own file descriptors, as a new interpreter would, and ends with
``os._exit``: nothing of the test process (pytest's buffers, atexit handlers) runs again in it.
"""

from __future__ import annotations

import os
import pty
import runpy
import select
import signal
import sys
import traceback
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn, TextIO

from gate.cli import main

ROOT = Path(__file__).resolve().parents[2]
#: How long a child may take before it is killed and the test sees what it wrote so far.
TIMEOUT = 120.0
STREAMS = {"stdin": 0, "stdout": 1, "stderr": 2}


@dataclass(frozen=True)
class Done:
    """What a child wrote on its stdout and stderr (decoded as UTF-8), and its exit code."""

    returncode: int
    stdout: str
    stderr: str


def gate_under_pty(argv: list[str], env: Mapping[str, str], stream: str = "stdout",
                   errors: str = "strict") -> tuple[str, int]:
    """Run ``sourcegate ARGV`` (``gate.cli.main``) in a child with ``stream`` (``stdout`` or ``stderr``) on a
    pseudo-terminal and the other discarded; (what it wrote on the terminal, with ``\\r\\n`` read as ``\\n``,
    and the exit code). ``errors`` is how bytes that are not UTF-8 are decoded (strict: they fail the test)."""
    primary, secondary = pty.openpty()
    pid = _fork(lambda: main(argv), env, {STREAMS[stream]: secondary}, close=(primary,))
    os.close(secondary)
    out = _read({primary: pid})[primary]
    return out.decode("utf-8", errors).replace("\r\n", "\n"), _wait(pid)


def python_dash_m(module: str, argv: Sequence[str], env: Mapping[str, str]) -> Done:
    """What ``python -m MODULE ARGV`` does, in a child with stdout and stderr piped: ``sys.argv`` set, the
    package's ``__main__`` run by :mod:`runpy` (the machinery of ``-m``), its ``SystemExit`` the exit code."""
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()

    def run() -> int:
        sys.argv = [module, *argv]
        runpy.run_module(module, run_name="__main__", alter_sys=True)
        return 0

    pid = _fork(run, env, {1: out_w, 2: err_w}, close=(out_r, err_r))
    os.close(out_w)
    os.close(err_w)
    got = _read({out_r: pid, err_r: pid})
    code = _wait(pid)
    return Done(code, got[out_r].decode("utf-8"), got[err_r].decode("utf-8"))


@dataclass(frozen=True)
class Started:
    """A child running the gate in the background (see :func:`start_gate`)."""

    pid: int
    stderr_fd: int

    def finish(self) -> Done:
        """Read what the child writes on stderr until it ends; its exit code and stderr (stdout: empty)."""
        err = _read({self.stderr_fd: self.pid})[self.stderr_fd]
        return Done(_wait(self.pid), "", err.decode("utf-8", "replace"))


def start_gate(argv: list[str], env: Mapping[str, str]) -> Started:
    """Start ``sourcegate ARGV`` in a child and return at once; its stderr is piped, stdout discarded.

    Ctrl-C (SIGINT) raises ``KeyboardInterrupt`` in the child, as in an interpreter started from a
    terminal, whatever this process does with the signal (a shell ignores it in a background job)."""
    err_r, err_w = os.pipe()

    def run() -> int:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        return main(argv)

    pid = _fork(run, env, {2: err_w}, close=(err_r,))
    os.close(err_w)
    return Started(pid, err_r)


def _fork(body: Callable[[], int], env: Mapping[str, str], fds: Mapping[int, int],
          close: Sequence[int]) -> int:
    """Start a child that puts ``fds`` (its fd -> ours) in place, /dev/null on the other standard
    streams, and exits with what ``body`` returns; its pid."""
    with warnings.catch_warnings():
        # Python 3.12+ warns that forking a process with threads (a fake API server's, pytest-xdist's)
        # may deadlock the child on a lock one of them held: the child runs the gate alone, which takes
        # none of those threads' locks, and starts its own threads.
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # pragma: no cover - the child never returns
        _child(body, env, fds, close)
    return pid


def _child(body: Callable[[], int], env: Mapping[str, str], fds: Mapping[int, int],
           close: Sequence[int]) -> NoReturn:  # pragma: no cover - runs in the child
    code = 70  # EX_SOFTWARE: the child failed before the gate ran
    try:
        null = os.open(os.devnull, os.O_RDWR)
        for target in STREAMS.values():
            os.dup2(fds.get(target, null), target)
        for fd in {null, *fds.values(), *close} - set(STREAMS.values()):
            os.close(fd)
        os.environ.clear()
        os.environ.update(env)
        os.chdir(ROOT)
        sys.stdin, sys.stdout, sys.stderr = _stdio(0), _stdio(1), _stdio(2)
        try:
            code = body()
        except SystemExit as done:  # as the interpreter reads it: None is 0, an int itself, a text 1
            code = done.code if isinstance(done.code, int) else 0 if done.code is None else 1
        except BaseException:  # an uncaught error ends a Python process with 1
            traceback.print_exc()
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        os._exit(code)


def _stdio(fd: int) -> TextIO:
    """Standard stream ``fd`` as the interpreter opens it: UTF-8, stderr with ``backslashreplace``,
    stdout line-buffered on a terminal, stderr always."""
    if fd == 0:
        return open(0, encoding="utf-8", closefd=False)
    line = fd == 2 or os.isatty(fd)
    return open(fd, "w", buffering=1 if line else -1, encoding="utf-8",
                errors="backslashreplace" if fd == 2 else "strict", closefd=False)


def _read(fds: Mapping[int, int]) -> dict[int, bytes]:
    """Everything written to ``fds`` (ours -> the child's pid) until each is closed; a child silent
    for :data:`TIMEOUT` seconds is killed. The fds are closed."""
    chunks: dict[int, list[bytes]] = {fd: [] for fd in fds}
    open_fds = set(fds)
    while open_fds:
        ready, _, _ = select.select(sorted(open_fds), [], [], TIMEOUT)
        if not ready:
            for pid in {fds[fd] for fd in open_fds}:
                os.kill(pid, signal.SIGKILL)
            break
        for fd in ready:
            try:
                data = os.read(fd, 65536)
            except OSError:  # EIO: the child closed the terminal
                data = b""
            if data:
                chunks[fd].append(data)
            else:
                open_fds.discard(fd)
    for fd in fds:
        os.close(fd)
    return {fd: b"".join(parts) for fd, parts in chunks.items()}


def _wait(pid: int) -> int:
    """The child's exit code (negative: the signal that ended it)."""
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)
