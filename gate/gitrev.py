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
from gate.paths import real_is_below

__all__ = ["Revision", "base_folder", "base_path", "blob_id", "changed_files", "relative", "resolve",
           "resolve_commit", "resolve_set", "show", "toplevel", "tree_blobs"]

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
    """``path`` relative to the repository at ``top``, with ``/`` ("." for the top itself), computed from
    the path as given: ``..`` is removed lexically and no link inside the repository is followed (the
    working tree's links are the pull request's). Outside the repository is an input error.

    The repository is found at the shortest leading part of the path whose real path is ``top``, so
    a link above the repository (``/tmp`` to ``/private/tmp``) still leads into it."""
    parts = os.path.abspath(path).split(os.sep)
    for i in range(1, len(parts) + 1):
        if os.path.realpath(os.sep.join(parts[:i]) or os.sep) == top:
            return "/".join(p for p in parts[i:] if p) or "."
    raise InputError("is outside the git repository of the golden set", file=path)


def _prefixes(rel: str) -> list[str]:
    """``a``, ``a/b``, ``a/b/c`` for ``a/b/c`` (nothing for the top, ".")."""
    names = [] if rel == "." else rel.split("/")
    return ["/".join(names[:i]) for i in range(1, len(names) + 1)]


def _base_modes(top: str, commit: str, rel: str) -> dict[str, str]:
    """The git mode at ``commit`` of ``rel`` and of each folder on the way to it ("120000" is a symbolic
    link), where they are there. ``ls-tree -t`` names the folders it passes; a part that is not a
    folder ends the way, and is asked for by its own name."""
    modes = _ls_tree(top, commit, rel)
    stop = next((p for p in _prefixes(rel) if p not in modes), rel)
    return modes if stop == rel else {**modes, **_ls_tree(top, commit, stop)}


def _ls_tree(top: str, commit: str, rel: str) -> dict[str, str]:
    if rel == ".":
        return {}
    done = _git(top, "--literal-pathspecs", "ls-tree", "-t", "-z", "--full-tree", "--end-of-options", commit,
                "--", rel)
    if done.returncode != 0:
        raise InputError(f"git ls-tree {commit[:12]} failed: {_err(done)}")
    modes: dict[str, str] = {}
    for entry in done.stdout.decode(errors="replace").split("\0"):
        meta, _, name = entry.partition("\t")
        if name:
            modes[name] = meta.split(" ")[0]
    return modes


def base_path(at: Revision, path: str, *, within: str | None = None, folder: bool = False) -> str:
    """``path`` relative to the repository (:func:`relative`), once it is safe to read at ``at`` by that
    name: what the base revision has there is what decides, so no symbolic link may choose it.

    Refused (input errors naming the path): a part of the path that is a symbolic link at the base
    revision (git mode 120000); a part that is a link in the working tree where the base revision has
    a file or folder (the pull request replaced it with a link), or that leads out of the golden set
    ``within``; with ``folder`` (the golden set itself), a link anywhere from the top of the
    repository down to it; and a path whose spelling reaches another file than its lexical form
    (a ``..`` after a link).
    """
    rel = relative(at.top, path)
    parts = _prefixes(rel)
    modes = _base_modes(at.top, at.commit, rel)
    why = "with --baseline-ref, what decides the verdict is read at the base revision by its path"
    for part in parts:
        if modes.get(part) == "120000":
            raise InputError(f"{part} is a symbolic link at the base revision {at.ref}; {why}, never through "
                             "a link, so it is refused", file=path)
    for part in parts:
        here = os.path.join(at.top, *part.split("/"))
        if not os.path.islink(here):
            continue
        if folder:
            raise InputError(f"{part} is a symbolic link in the working tree; {why}, so the golden set and "
                             "the folders above it in the repository may not be links: give the set's "
                             "own folder", file=path)
        if part in modes:
            raise InputError(f"{part} is a symbolic link in the working tree, where the base revision "
                             f"{at.ref} has a {'folder' if modes[part] == '040000' else 'file'}; {why}, so a "
                             "pull request may not replace it with a link", file=path)
        if within is not None and not real_is_below(here, within):
            raise InputError(f"{part} is a symbolic link in the working tree that leads out of the golden "
                             f"set; {why}, so it is refused", file=path)
    if os.path.realpath(path) != os.path.realpath(os.path.join(at.top, *rel.split("/"))):
        raise InputError(f"the path leads elsewhere than {rel} through a symbolic link (a '..' after a "
                         f"link); {why}: give it without the link", file=path)
    return rel


def resolve_set(root: str, ref: str) -> Revision:
    """``ref`` in the git repository holding the golden set ``root`` (:func:`resolve`); a set folder that
    is a symbolic link is refused first, wherever it leads: the set's rules are read at the base
    revision by the set's own path (:func:`base_path`)."""
    if os.path.islink(os.path.abspath(root)):
        raise InputError("the golden set folder is a symbolic link; with --baseline-ref, what decides the "
                         "verdict is read at the base revision by the set's path, so the set may not be a "
                         "link: give the set's own folder", file=root)
    return resolve(root, ref)


def base_folder(at: Revision, root: str) -> str:
    """The golden set ``root`` relative to the repository, refused when it or a folder above it in the
    repository is a symbolic link, in the working tree or at ``at`` (:func:`base_path`)."""
    return base_path(at, root, folder=True)


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
