"""The one place sourcegate runs ``git``: read-only commands, and nothing of the repository's that runs a program.

A pull request's code may have run before the gate, in the same checkout (``sourcegate run`` starts
the agent under test there), and ``.git`` is as writable to it as the working tree: a hook, a
``core.fsmonitor`` program, a replace ref, a graft, an alternate object store, a moved ref or an
object rewritten in place. Every git command of the gate goes through :func:`git` or
:func:`git_stream`, which

* run only the read commands in :data:`READ_COMMANDS` (``rev-parse``, ``cat-file``): no command that
  refreshes the index (where ``core.fsmonitor`` runs), diffs (``diff.external``, textconv), or
  runs hooks;
* ignore replace refs and grafts (``--no-replace-objects``, ``GIT_NO_REPLACE_OBJECTS=1``);
* read no system or global configuration (``GIT_CONFIG_NOSYSTEM``, ``GIT_CONFIG_GLOBAL`` is the null
  device) and no ``GIT_*`` variable of the caller's environment (``GIT_DIR``, ``GIT_CONFIG_*``,
  ``GIT_EXTERNAL_DIFF``: whoever could set the job's variables chose them);
* override, on the command line (which wins over the repository's own configuration), every key
  of :data:`SAFE_CONFIG` that could start a program or send a request;
* allow no transport at all (``GIT_ALLOW_PROTOCOL`` empty, ``GIT_NO_LAZY_FETCH``): a repository
  configured as a partial clone cannot make a missing object fetch through a command of its choosing;
* trust the repository whoever owns it (``safe.directory=*``, given on the command line, so nothing
  is written to the user's configuration): git's ownership check guards against a repository's
  configuration running programs, which the rules above already rule out.

Even so, git reads the object store the repository has, so what it answers is checked by hash
(:mod:`gate.git.objects`). An I/O edge: an argument list, never a shell.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import IO

from gate.errors import InputError

__all__ = ["GIT_TIMEOUT", "READ_COMMANDS", "SAFE_CONFIG", "SAFE_ENV", "Stream", "argv", "environment", "git",
           "git_stream"]

GIT_TIMEOUT = 60.0
"""Seconds one git command may take."""

READ_COMMANDS = frozenset({"rev-parse", "cat-file"})
"""The only git commands the gate runs: neither touches the index or the working tree."""

SAFE_CONFIG: tuple[tuple[str, str], ...] = (
    ("safe.directory", "*"),
    ("core.fsmonitor", "false"),
    ("core.hooksPath", os.devnull),
    ("core.pager", "cat"),
    ("core.untrackedCache", "false"),
    ("core.sshCommand", "false"),
    ("core.askPass", "false"),
    ("core.editor", "false"),
    ("core.alternateRefsCommand", "false"),
    ("credential.helper", ""),
    ("gpg.program", "false"),
    ("protocol.allow", "never"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
)
"""Configuration given with ``-c`` to every command: each key that could run a program (a hook, the
file-system monitor, a pager, ssh, a credential helper, a signature program) or fetch, set to what
runs nothing. Command-line configuration wins over the repository's."""

SAFE_ENV = {
    "GIT_NO_REPLACE_OBJECTS": "1",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_SYSTEM": os.devnull,
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_ALLOW_PROTOCOL": "",
    "GIT_NO_LAZY_FETCH": "1",
    "GIT_OPTIONAL_LOCKS": "0",
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_ATTR_NOSYSTEM": "1",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "LC_ALL": "C",
}
"""The git variables every command runs with; every other ``GIT_*`` variable is left out."""


def environment() -> dict[str, str]:
    """The process environment without any ``GIT_*`` variable, plus :data:`SAFE_ENV`."""
    return {**{k: v for k, v in os.environ.items() if not k.upper().startswith("GIT_")}, **SAFE_ENV}


def argv(*args: str) -> list[str]:
    """The command line of ``git args...``: no pager, no replace objects, :data:`SAFE_CONFIG`.

    Refuses (a ``ValueError``: our bug) a command outside :data:`READ_COMMANDS`."""
    if not args or args[0] not in READ_COMMANDS:
        raise ValueError(f"sourcegate runs only the git commands {sorted(READ_COMMANDS)}, not {args[:1]}")
    config = [part for key, value in SAFE_CONFIG for part in ("-c", f"{key}={value}")]
    return ["git", "--no-pager", "--no-replace-objects", "--literal-pathspecs", *config, *args]


def _missing() -> InputError:
    return InputError("--baseline-ref needs git, and git is not installed")


def git(top: str, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run ``git args...`` in ``top`` (:func:`argv`, :func:`environment`) for an answer of a few lines."""
    try:
        return subprocess.run(argv(*args), cwd=top, capture_output=True, timeout=GIT_TIMEOUT, env=environment(),
                              check=False, input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL)
    except FileNotFoundError as e:
        raise _missing() from e
    except subprocess.TimeoutExpired as e:
        raise InputError(f"git {args[0]} took longer than {GIT_TIMEOUT:g}s") from e


def _feed(pipe: IO[bytes], data: bytes) -> None:
    try:
        with pipe:
            pipe.write(data)
    except (BrokenPipeError, ValueError, OSError):
        pass  # git stopped reading (it was stopped, or it failed: its exit code says which)


class Stream:
    """A running git command's output (:attr:`out`), and why it may have ended early (:meth:`why`)."""

    def __init__(self, proc: subprocess.Popen[bytes], errors: IO[bytes]) -> None:
        """Wrap ``proc``, whose stderr goes to ``errors``."""
        assert proc.stdout is not None
        self.out: IO[bytes] = proc.stdout
        self._proc, self._errors = proc, errors
        self.stopped = threading.Event()
        """set when the command was stopped at the deadline"""

    def stop(self) -> None:
        """Stop the command at the deadline."""
        self.stopped.set()
        self._proc.kill()

    def why(self) -> str:
        """What git said on stderr, or that it was stopped at the deadline (a few hundred characters)."""
        if self.stopped.is_set():
            return f"took longer than {GIT_TIMEOUT:g}s"
        self._errors.seek(0)
        said = " ".join(self._errors.read(4096).decode(errors="replace").split())
        return said[:300] or "no answer"


@contextmanager
def git_stream(top: str, *args: str, stdin: bytes) -> Iterator[Stream]:
    """Run ``git args...`` in ``top`` with ``stdin`` as its input, and give its output as a stream, for
    answers too large to take whole before looking at them (``cat-file --batch``).

    The caller reads as much as it wants; leaving the block stops git. The command is stopped after
    :data:`GIT_TIMEOUT` seconds, however the reading goes (a read then ends early, and
    :meth:`Stream.why` says so)."""
    with tempfile.TemporaryFile() as errors:
        try:
            proc = subprocess.Popen(argv(*args), cwd=top, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=errors, env=environment())
        except FileNotFoundError as e:
            raise _missing() from e
        assert proc.stdin is not None and proc.stdout is not None
        stream = Stream(proc, errors)
        timer = threading.Timer(GIT_TIMEOUT, stream.stop)
        writer = threading.Thread(target=_feed, args=(proc.stdin, stdin), daemon=True)
        timer.start()
        writer.start()
        try:
            yield stream
        finally:
            timer.cancel()
            proc.kill()
            proc.wait()
            writer.join()
            proc.stdout.close()
