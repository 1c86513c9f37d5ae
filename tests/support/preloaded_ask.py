"""The command side of :mod:`tests.support.preloaded`: hand a script to the preloading interpreter.

``python -S tests/support/preloaded_ask.py SOCKET SCRIPT ARGS...`` runs ``SCRIPT ARGS`` in a process
forked from the interpreter listening on ``SOCKET``, with this process's streams, environment and
working directory, and exits with the script's exit code (or dies of the same signal). It is a
process of its own for every command an agent runner starts, so it imports only what asking takes,
and ``-S`` spares it the site packages.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import sys
from collections.abc import Sequence

LENGTH = struct.Struct("!I")
"""A request (argv, environment and working directory as JSON) goes after its length, with the streams."""


def ask(path: str, argv: Sequence[str]) -> int:
    """Have the server at ``path`` run ``argv`` with this process's streams; its exit code."""
    request = json.dumps({"argv": list(argv), "env": dict(os.environ), "cwd": os.getcwd()}).encode()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn:
        conn.connect(path)
        socket.send_fds(conn, [LENGTH.pack(len(request))], [0, 1, 2])
        conn.sendall(request)
        reply = b"".join(iter(lambda: conn.recv(64), b""))  # the exit code, once the script ended
    if not reply:
        print("the preloading interpreter stopped before the script ended", file=sys.stderr)
        return 1
    code = int(reply)
    if code < 0:  # killed by a signal: so is this process, as if it had been the script
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    return code


if __name__ == "__main__":
    sys.exit(ask(sys.argv[1], sys.argv[2:]))
