"""Python with its slow imports done once, and every command still its own process.

An agent on an SDK spends seconds of CPU importing it (the Anthropic SDK builds some 1,500 pydantic
models at import) before it sends a request. :class:`Preloaded` starts one interpreter that imports
the given modules, then waits on a Unix socket. :meth:`Preloaded.command` is the argument list of a
small process that hands a script to it: the interpreter forks, and the new process runs the
script as ``__main__`` with the argv, environment, working directory and standard streams of the
process that asked (which exits with the script's exit code, or dies of the same signal). Killing
the process that asked (a timeout, Ctrl-C) kills the forked one and its process group. What the
interpreter reads once at start-up (``PYTHONPATH``, ``PYTHONHASHSEED``, ``-X`` options) is the
preloading interpreter's.

    with Preloaded(["anthropic"], env) as python:
        main(["run", golden, "--", *python.command("agent.py", "--flag")])

The server: ``python -m tests.support.preloaded serve SOCKET MODULE...`` (it exits when its stdin
closes); a command: ``python -S tests/support/preloaded_ask.py SOCKET SCRIPT ARGS...`` (or
``python -m tests.support.preloaded run SOCKET SCRIPT ARGS...``).
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import importlib
import json
import os
import runpy
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import NoReturn

from tests.support.preloaded_ask import LENGTH, ask

ROOT = Path(__file__).resolve().parents[2]
MODULE = "tests.support.preloaded"
ASK = Path(__file__).resolve().with_name("preloaded_ask.py")
"""The command's script (:mod:`tests.support.preloaded_ask`), run by path: it imports only what asking takes."""


class Preloaded:
    """The preloading interpreter: started (its imports done) on enter, stopped on exit."""

    def __init__(self, modules: Sequence[str], env: Mapping[str, str]) -> None:
        """``modules`` are imported once; ``env`` is the interpreter's (``tests`` must be importable)."""
        self._modules = list(modules)
        self._env = dict(env)
        self._folder = tempfile.mkdtemp(prefix="preloaded-")  # short: a socket's path has ~100 bytes
        self.socket = os.path.join(self._folder, "socket")
        self._server: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Preloaded:
        server = subprocess.Popen([sys.executable, "-m", MODULE, "serve", self.socket, *self._modules],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT, env=self._env)
        self._server = server
        assert server.stdout is not None
        if server.stdout.readline() != b"ready\n":
            self.__exit__(None, None, None)
            raise RuntimeError(f"the preloading interpreter did not start (importing {self._modules})")
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if self._server is not None:
            assert self._server.stdin is not None and self._server.stdout is not None
            self._server.stdin.close()  # the server's signal to kill what still runs and exit
            self._server.wait(timeout=30)
            self._server.stdout.close()
        shutil.rmtree(self._folder, ignore_errors=True)

    def command(self, script: str | Path, *args: str) -> list[str]:
        """The argument list that runs ``script ARGS`` in a process forked from the preloaded interpreter."""
        return [sys.executable, "-S", str(ASK), self.socket, str(script), *args]


# ---------------------------------------------------------------- the server


def serve(path: str, modules: Sequence[str]) -> str:
    """Import ``modules``, then fork one process per request. Returns only in a forked process: the script."""
    gc.disable()  # an import builds objects by the million, and few of them are garbage: collecting is waste
    for name in modules:
        importlib.import_module(name)
    gc.freeze()  # what was imported is shared with every fork: their collections leave it untouched
    gc.enable()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen()
    wake_read, wake_write = socket.socketpair()
    wake_read.setblocking(False)
    wake_write.setblocking(False)
    signal.set_wakeup_fd(wake_write.fileno())
    signal.signal(signal.SIGCHLD, lambda _signum, _frame: None)  # the wakeup fd says a process ended
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    selector.register(wake_read, selectors.EVENT_READ)
    selector.register(sys.stdin, selectors.EVENT_READ)
    live: dict[int, socket.socket] = {}  # forked process -> the connection of the command that asked
    print("ready", flush=True)
    while True:
        for key, _ in selector.select():
            if key.fileobj is listener:
                conn, _ = listener.accept()
                request, fds = _request(conn)
                if request is None:  # the command was killed before it asked
                    for fd in fds:
                        os.close(fd)
                    conn.close()
                    continue
                pid = os.fork()
                if pid == 0:
                    signal.set_wakeup_fd(-1)
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    for held in (listener, wake_read, wake_write, conn, *live.values()):
                        held.close()
                    selector.close()
                    return _become(request, fds)
                with contextlib.suppress(OSError):
                    os.setpgid(pid, pid)  # as the process does itself: whichever runs first
                for fd in fds:
                    os.close(fd)
                live[pid] = conn
                selector.register(conn, selectors.EVENT_READ, pid)
            elif key.fileobj is wake_read:
                with contextlib.suppress(BlockingIOError):
                    while wake_read.recv(4096):
                        pass
                _reap(live, selector)
            elif key.fileobj is sys.stdin:
                for pid in live:
                    _kill(pid)
                sys.exit(0)
            elif live.get(key.data) is key.fileobj:  # the command's process is gone (a timeout, Ctrl-C)
                _kill(key.data)  # so goes the script's
                selector.unregister(key.fileobj)


def _request(conn: socket.socket) -> tuple[bytes | None, list[int]]:
    """The request and the three streams a command sent (None: it sent less)."""
    head, fds, _, _ = socket.recv_fds(conn, LENGTH.size, 3)
    head += _exactly(conn, LENGTH.size - len(head)) if head else b""
    if len(head) != LENGTH.size or len(fds) != 3:
        return None, fds
    (size,) = LENGTH.unpack(head)
    request = _exactly(conn, size)
    return (request if len(request) == size else None), fds


def _exactly(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            break
        data += chunk
    return data


def _become(request: bytes, fds: list[int]) -> str:
    """In the forked process: take the command's streams, argv, environment and folder."""
    os.setpgid(0, 0)
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    asked = json.loads(request)
    os.chdir(asked["cwd"])
    os.environ.clear()
    os.environ.update(asked["env"])
    sys.argv = list(asked["argv"])
    script: str = sys.argv[0]
    sys.path[0] = os.path.dirname(os.path.abspath(script))  # as `python SCRIPT` has it
    return script


def _reap(live: dict[int, socket.socket], selector: selectors.BaseSelector) -> None:
    while live:
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            return
        conn = live.pop(pid)
        with contextlib.suppress(OSError):
            conn.send(str(os.waitstatus_to_exitcode(status)).encode())
        with contextlib.suppress(KeyError):
            selector.unregister(conn)
        conn.close()


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def main(argv: Sequence[str]) -> int:
    """``serve SOCKET MODULE...`` or ``run SOCKET SCRIPT ARGS...``."""
    if argv[0] == "run":
        return ask(argv[1], argv[2:])
    return run_script(serve(argv[1], argv[2:]))


def run_script(script: str) -> NoReturn:
    """Run ``script`` as ``__main__`` and exit as ``python SCRIPT`` would, but without tearing the heap down.

    The exit code is the script's (``sys.exit`` with a message prints it and exits 1; an uncaught
    exception prints its traceback and exits 1); the atexit functions run and the streams are flushed.
    Freeing the interpreter's objects one by one would copy every page shared with the preloading
    interpreter, for nothing: the process ends.
    """
    code = 0
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            code = e.code or 0
        else:
            print(e.code, file=sys.stderr)
            code = 1
    except BaseException:
        sys.excepthook(*sys.exc_info())
        code = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
