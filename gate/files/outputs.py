"""Where sourcegate writes, and how: the one function every report, summary, baseline, judge-cache
entry and snapshot entry goes through.

:func:`write_file` looks at what is at the path before it writes:

* ``-``: the text goes to stdout.
* Nothing, or a regular file: written atomically (a temporary file in the same folder, then
  ``os.replace``): a reader never sees half a file, and a killed write leaves the old one.
* A character device, a FIFO or a socket (``/dev/null``, ``>(jq .)``, a listening tool): written
  directly, never replaced. ``--json /dev/null`` leaves ``/dev/null`` a device.
* The process's own stdout under another name (``/dev/stdout``, ``/proc/self/fd/1``): stdout.
* A symlink: written through to its target, atomically at the target when that is a regular file
  (the link stays a link). With ``within`` (a golden set, the action's workspace), a path inside
  ``within`` whose real path leaves it is refused: a pull request cannot commit a symlink that
  makes the gate write elsewhere.
* A folder, a block device, a parent that is a file, no permission: an :class:`InputError` naming
  the path and the reason (exit 2), never a traceback.

:func:`unwritable` asks the same questions without writing, so that a command can refuse an output
path before its work starts (:mod:`gate.deliver.targets`); the write still answers for itself,
since the path can change in between.

Temporary files are named ``.sourcegate-*``; one left behind by a killed write (older than
:data:`STALE_AFTER` seconds) is removed by the next write to the same folder.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Iterable

from gate.errors import InputError
from gate.files.paths import is_below, real_is_below

__all__ = [
    "STALE_AFTER", "TEMP_PREFIX", "append_file", "is_stdout", "resolve_within", "shared_target", "unwritable",
    "write_file",
]

TEMP_PREFIX = ".sourcegate-"
"""The name of every temporary file an atomic write makes (and the only files it ever cleans up)."""
STALE_AFTER = 600.0
"""A temporary file older than this many seconds is left from a killed write and is removed."""


def _read_umask() -> int:
    # The umask can only be read by setting it: do it once, at import, before any thread runs.
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _read_umask()
_swept: set[str] = set()
_swept_lock = threading.Lock()


def resolve_within(path: str, root: str, what: str = "the golden set") -> str:
    """The real path of ``path``, which must stay inside the real path of ``root``: a symlink (the
    file or any folder above it) that leads out is an :class:`InputError` naming ``path``."""
    real = os.path.realpath(path)
    if not real_is_below(path, root):
        raise InputError(f"refusing to write through a symlink that leads out of {what} ({root})",
                         file=path)
    return real


def write_file(target: str, text: str | Iterable[str], *, within: str | None = None) -> None:
    """Write ``text`` to ``target`` as the module docstring says; ``-`` is stdout.

    ``text`` may come in pieces (a report of many cases is written as it is read, never held
    whole); a piece that raises leaves no file, as a failed write does.
    ``within``: when ``target`` lies inside this folder, its real path must too.
    """
    if target == "-":
        _to_stdout(text)
        return
    try:
        if within is not None and is_below(target, within):
            resolve_within(target, within)
        _write(target, text)
    except OSError as e:
        raise InputError(f"cannot write here: {_reason(e)}", file=target) from e


def append_file(target: str, text: str, *, what: str = "here", error: type[InputError] = InputError) -> None:
    """Append ``text`` to ``target`` (created when missing): a file of the runner's (the job summary,
    ``GITHUB_OUTPUT``). One that cannot be written is an ``error`` naming ``what`` and the reason."""
    try:
        with open(target, "a", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise error(f"cannot write {what}: {_reason(e)}", file=target) from e


def unwritable(target: str, *, folder: bool = False, append: bool = False) -> str | None:
    """Why :func:`write_file` could not write ``target`` (``folder``: a folder files are written
    into; ``append``: :func:`append_file`), or None when it looks writable. Nothing is created.

    A missing file or folder is fine when the nearest folder that exists above it can be written
    into (the write makes the folders in between).
    """
    if target == "-" and not folder:
        return None
    if not target:
        return "an empty path"
    if not folder and target.endswith(("/", os.sep)):
        return "it ends with '/', so it names a folder: give a file name"
    try:
        st = os.stat(target)  # follows symlinks: what a write would reach
    except FileNotFoundError:
        return _creatable(os.path.realpath(target))
    except OSError as e:
        return _reason(e)
    mode = st.st_mode
    if folder:
        if not stat.S_ISDIR(mode):
            return "it is not a folder"
        return None if os.access(target, os.W_OK | os.X_OK) else "no permission to write into this folder"
    if stat.S_ISDIR(mode):
        return "a folder is in the way"
    if _is_stdout(st) or stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        return None if os.access(target, os.W_OK) else "no permission to write to it"
    if not stat.S_ISREG(mode):
        return "not a file, a character device, a FIFO or a socket"
    if append:
        return None if os.access(target, os.W_OK) else "no permission to write to it"
    # An atomic write replaces the file: its folder must take a new file, whatever the file's own mode.
    where = os.path.dirname(os.path.realpath(target))
    return None if os.access(where, os.W_OK | os.X_OK) else f"no permission to replace it in {where}"


def _creatable(real: str) -> str | None:
    """Why a missing ``real`` path could not be made: the nearest existing folder above it decides."""
    above = os.path.dirname(real)
    while True:
        try:
            st = os.stat(above)
        except FileNotFoundError:
            parent = os.path.dirname(above)
            if parent == above:
                return "no folder above it exists"
            above = parent
            continue
        except OSError as e:
            return _reason(e)
        if not stat.S_ISDIR(st.st_mode):
            return f"a folder above it is a file ({above})"
        if not os.access(above, os.W_OK | os.X_OK):
            return f"no permission to create it in {above}"
        return None


def shared_target(target: str) -> bool:
    """True when several outputs may name ``target`` together: stdout ('-' or under another name),
    a character device, a FIFO or a socket, each written as it comes rather than replaced."""
    if target == "-":
        return True
    try:
        mode = os.stat(target).st_mode
    except OSError:
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or is_stdout(target)


def _reason(e: OSError) -> str:
    if e.errno == errno.ENOTDIR:
        return "a folder above it is a file"
    return e.strerror or str(e)


def _to_stdout(text: str | Iterable[str]) -> None:
    for piece in _pieces(text):
        sys.stdout.write(piece)
    sys.stdout.flush()


def _pieces(text: str | Iterable[str]) -> Iterable[str]:
    return (text,) if isinstance(text, str) else text


def _write(target: str, text: str | Iterable[str]) -> None:
    try:
        st = os.stat(target)  # follows symlinks: what a write would reach
    except FileNotFoundError:
        if os.path.islink(target):  # a dangling link: create its target
            _atomic(os.path.realpath(target), text)
        else:
            _atomic(target, text)
        return
    if _is_stdout(st):
        _to_stdout(text)
    elif stat.S_ISREG(st.st_mode):
        real = os.path.realpath(target) if os.path.islink(target) else target
        if real != target and not _same(real, st):
            _direct(target, text)  # a /proc-style link realpath cannot name: write through it
        else:
            _atomic(real, text)
    elif stat.S_ISDIR(st.st_mode):
        raise OSError(errno.EISDIR, "a folder is in the way")
    elif stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode):
        _direct(target, text)
    elif stat.S_ISSOCK(st.st_mode):
        _to_socket(target, text)
    else:
        raise OSError(errno.EINVAL, "not a file, a character device, a FIFO or a socket")


def is_stdout(path: str) -> bool:
    """True when ``path`` names this process's stdout (``/dev/stdout``, ``/proc/self/fd/1``, its tty...)."""
    try:
        return _is_stdout(os.stat(path))
    except OSError:
        return False


def _is_stdout(st: os.stat_result) -> bool:
    try:
        out = os.fstat(sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):
        return False  # stdout is not a real file (captured in memory)
    return (out.st_dev, out.st_ino) == (st.st_dev, st.st_ino)


def _same(path: str, st: os.stat_result) -> bool:
    with contextlib.suppress(OSError):
        there = os.stat(path)
        return (there.st_dev, there.st_ino) == (st.st_dev, st.st_ino)
    return False


def _direct(target: str, text: str | Iterable[str]) -> None:
    with open(target, "w", encoding="utf-8") as f:
        f.writelines(_pieces(text))


def _to_socket(target: str, text: str | Iterable[str]) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(30)
        s.connect(target)
        for piece in _pieces(text):
            s.sendall(piece.encode("utf-8"))


def _sweep(folder: str) -> None:
    """Remove this tool's temporary files older than :data:`STALE_AFTER` (once per folder and process)."""
    with _swept_lock:
        if folder in _swept:
            return
        _swept.add(folder)
    now = time.time()
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            if not entry.name.startswith(TEMP_PREFIX):
                continue
            with contextlib.suppress(OSError):
                st = entry.stat(follow_symlinks=False)
                if stat.S_ISREG(st.st_mode) and now - st.st_mtime > STALE_AFTER:
                    os.unlink(entry.path)


def _atomic(file: str, text: str | Iterable[str]) -> None:
    folder = os.path.dirname(os.path.abspath(file))
    os.makedirs(folder, exist_ok=True)
    _sweep(folder)
    fd, tmp = tempfile.mkstemp(prefix=TEMP_PREFIX, dir=folder)
    try:
        # mkstemp creates 0600; a report or cache entry should get the usual mode under the umask.
        os.fchmod(fd, 0o666 & ~_UMASK)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.writelines(_pieces(text))
        os.replace(tmp, file)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
