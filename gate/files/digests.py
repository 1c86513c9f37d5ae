"""The git blob ids of the files a run reads, taken from the very bytes that were read.

With a base revision, the gate lists the golden-set files the pull request changed by hashing each
file as git would (:mod:`gate.git.worktree`). A file the run has read already (a trace, a judge-cache
entry, ``golden.yaml``) need not be read again for that: while :func:`recorded_reads` is open,
:func:`gate.files.jsonio.read_bytes` records the blob id of what it read, keyed by the file's identity
on disk (device, inode, size, modification and change times: any write changes the change time), and
:func:`read_blob_id` answers from it. So each file is read once, and the id compared with the base is
the id of the bytes the gate judged.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

__all__ = ["FileKey", "ReadId", "add_recorded", "read_blob_id", "record_read", "recorded_ids", "recorded_reads"]

ReadId = tuple[str, str | None]
"""The SHA-1 blob id of the bytes read, and of the same bytes with CRLF line ends made LF (None
when they have none): a Windows checkout of a file the commit has with LF is not a change."""

FileKey = tuple[int, int, int, int, int]
"""A file's identity on disk as it was read: device, inode, size, modification and change times."""

_recorded: dict[FileKey, ReadId] | None = None


def _key(st: os.stat_result) -> FileKey:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _sha1_blob(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


@contextmanager
def recorded_reads() -> Iterator[None]:
    """Record the blob id of every file :func:`record_read` is told of until the block ends."""
    global _recorded
    outer, _recorded = _recorded, {} if _recorded is None else _recorded
    try:
        yield
    finally:
        _recorded = outer


def record_read(st: os.stat_result, data: bytes) -> None:
    """``data`` was read, whole, from the regular file ``st`` describes (nothing happens outside
    :func:`recorded_reads`)."""
    if _recorded is not None:
        lf = _sha1_blob(data.replace(b"\r\n", b"\n")) if b"\r\n" in data else None
        _recorded[_key(st)] = (_sha1_blob(data), lf)


def recorded_ids() -> dict[FileKey, ReadId]:
    """What is recorded so far (a copy; empty outside :func:`recorded_reads`): what a worker process
    hands back to the one whose run it read for (:func:`add_recorded`)."""
    return dict(_recorded) if _recorded is not None else {}


def add_recorded(ids: Mapping[FileKey, ReadId]) -> None:
    """Record the ids of files read elsewhere for this run, whole (a worker process reading its share of
    the traces and judge-cache entries); nothing happens outside :func:`recorded_reads`."""
    if _recorded is not None:
        _recorded.update(ids)


def read_blob_id(st: os.stat_result) -> ReadId | None:
    """The ids recorded for the file ``st`` describes, when it was read unchanged since; else None."""
    return None if _recorded is None else _recorded.get(_key(st))
