"""Files as a git revision has them: the base commit of a pull request, read with ``git``.

This is an I/O edge. ``git`` runs with an argument list (never a shell), a revision is resolved to a
commit first, and ``--end-of-options`` keeps a revision that looks like an option from being read as
one. What the gate reads from the base revision, and why, is in ``docs/trust.md``.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from gate.errors import InputError

__all__ = ["Revision", "blob_id", "changed_files", "relative", "resolve", "resolve_commit", "show", "toplevel",
           "tree_blobs"]

GIT_TIMEOUT = 60.0


def _git(cwd: str, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=GIT_TIMEOUT, env=env,
                              check=False, input=stdin)
    except FileNotFoundError as e:
        raise InputError("--baseline-ref needs git, and git is not installed") from e
    except subprocess.TimeoutExpired as e:
        raise InputError(f"git {args[0]} took longer than {GIT_TIMEOUT:g}s") from e


def toplevel(folder: str) -> str:
    """The real path of the top of the git repository holding ``folder``."""
    done = _git(folder, "rev-parse", "--show-toplevel")
    if done.returncode != 0:
        raise InputError(f"--baseline-ref: not inside a git repository ({_err(done)})", file=folder)
    return os.path.realpath(done.stdout.decode().strip())


def _err(done: subprocess.CompletedProcess[bytes]) -> str:
    return " ".join(done.stderr.decode(errors="replace").split())[:300] or f"exit {done.returncode}"


def resolve_commit(top: str, ref: str) -> str:
    """The commit id ``ref`` names in the repository at ``top``."""
    if not ref or ref.startswith("-"):
        raise InputError(f"--baseline-ref: {ref!r} is not a revision")
    done = _git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
    if done.returncode != 0:
        raise InputError(f"--baseline-ref: {ref!r} is not a commit of this repository "
                         "(with a shallow checkout, fetch the base commit first, e.g. fetch-depth: 0)")
    return done.stdout.decode().strip()


@dataclass(frozen=True)
class Revision:
    """A revision resolved once: the top of its repository, its commit id, and how the user named it."""

    top: str
    commit: str
    ref: str


def resolve(folder: str, ref: str) -> Revision:
    """``ref`` in the git repository holding ``folder`` (input errors as :func:`toplevel` and
    :func:`resolve_commit` raise them)."""
    top = toplevel(folder)
    return Revision(top, resolve_commit(top, ref), ref)


def relative(top: str, path: str) -> str:
    """``path`` relative to the repository at ``top``, with ``/``; outside it is an input error."""
    rel = os.path.relpath(os.path.realpath(path), top)
    if rel == ".." or rel.startswith(".." + os.sep):
        raise InputError("is outside the git repository of the golden set", file=path)
    return rel.replace(os.sep, "/")


def show(top: str, commit: str, rel: str, ref: str | None = None) -> str | None:
    """The text of ``rel`` at ``commit`` (``git show``), or None when the file is not there.

    ``ref`` is how the user named the commit, for messages; text that is not UTF-8 is an input error.
    A file is one ``git cat-file --batch`` (its answer says "missing" or gives the blob); anything
    else there (a folder) is what ``git show`` makes of it.
    """
    kind, data = _blob(top, f"{commit}:{rel}") if "\n" not in rel else ("other", b"")
    if kind == "missing":
        return None
    if kind == "other":
        if _git(top, "cat-file", "-e", "--end-of-options", f"{commit}:{rel}").returncode != 0:
            return None
        done = _git(top, "show", "--end-of-options", f"{commit}:{rel}")
        if done.returncode != 0:
            raise InputError(f"git show {commit[:12]}:{rel} failed: {_err(done)}")
        data = done.stdout
    try:
        return data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:  # the file's problem, as with a file of the working tree
        raise InputError(f"not UTF-8 text ({e.reason} at byte {e.start})", file=f"{ref or commit}:{rel}") from e


def _blob(top: str, name: str) -> tuple[str, bytes]:
    """What ``name`` (``commit:path``) is: ("blob", its bytes), ("missing", b"") or ("other", b"")
    (not a file, or an answer this does not read: :func:`show` then asks ``git show``)."""
    done = _git(top, "cat-file", "--batch", stdin=name.encode() + b"\n")
    header, _, rest = done.stdout.partition(b"\n")
    if done.returncode == 0 and header == name.encode() + b" missing":
        return "missing", b""
    parts = header.split(b" ")
    if done.returncode == 0 and len(parts) == 3 and parts[1] == b"blob" and parts[2].isdigit() \
            and len(rest) == int(parts[2]) + 1:
        return "blob", rest[:-1]
    return "other", b""


def changed_files(top: str, commit: str, rels: Sequence[str]) -> tuple[str, ...]:
    """Files under ``rels`` that differ between ``commit`` and the working tree (untracked included)."""
    diff = _git(top, "diff", "--name-only", "--no-renames", "-z", commit, "--", *rels)
    if diff.returncode != 0:
        raise InputError(f"git diff against {commit[:12]} failed: {_err(diff)}")
    new = _git(top, "ls-files", "--others", "--exclude-standard", "-z", "--", *rels)
    names = {n for out in (diff.stdout, new.stdout if new.returncode == 0 else b"")
             for n in out.decode(errors="replace").split("\0") if n}
    return tuple(sorted(names))


def tree_blobs(top: str, commit: str, rel_dir: str) -> Mapping[str, str]:
    """The files directly in folder ``rel_dir`` at ``commit``: name -> blob id (empty when there is none)."""
    done = _git(top, "ls-tree", "-z", "--end-of-options", f"{commit}:{rel_dir}")
    if done.returncode != 0:
        return {}  # the folder is not at that revision
    blobs: dict[str, str] = {}
    for entry in done.stdout.decode(errors="replace").split("\0"):
        meta, _, name = entry.partition("\t")
        parts = meta.split()
        if name and len(parts) == 3 and parts[1] == "blob":
            blobs[name] = parts[2]
    return blobs


def blob_id(data: bytes, like: str) -> str:
    """The git blob id of ``data``, in the object format of the id ``like`` (SHA-1 or SHA-256)."""
    digest = hashlib.sha256 if len(like) == 64 else hashlib.sha1
    return digest(b"blob %d\0" % len(data) + data).hexdigest()
