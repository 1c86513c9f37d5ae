"""Files as a git revision has them: the base commit of a pull request, read as data.

This is an I/O edge. Every git command goes through :mod:`gate.git.command` (read-only commands,
no replace refs or grafts, nothing of the repository's configuration that runs a program), and every
object read is checked by hash from the commit down (:mod:`gate.git.objects`), so nothing written
into ``.git`` after the checkout (a replace ref, a rewritten or planted object) changes what the base
revision says. A revision given as a full commit id (the action passes the event's base commit) is
used as it is; any other name is resolved by the repository's refs, which whoever could write
``.git`` could move. What the gate reads from the base revision, and why, is in ``docs/trust.md``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

from gate.errors import InputError
from gate.files.paths import is_below, real_is_below
from gate.git import commit_of, entry_at, git, object_id, read_blob, read_trees, walk

__all__ = ["Revision", "base_folder", "base_path", "blob_id", "has_commit", "read_folders", "relative",
           "resolve_revision", "resolve_commit", "resolve_set", "show_file", "toplevel", "tree_blobs", "tree_entries"]

_FULL_ID = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")


def _top_of(folder: str) -> str | None:
    """The nearest folder from ``folder`` up (real paths) that has a ``.git``, as git finds a work tree."""
    here = os.path.realpath(folder)
    while True:
        if os.path.lexists(os.path.join(here, ".git")):
            return here
        up = os.path.dirname(here)
        if up == here:
            return None
        here = up


def toplevel(folder: str) -> str:
    """The real path of the top of the git repository holding ``folder``: the nearest folder with a
    ``.git``, found without git (so no ``core.worktree`` of the repository's configuration moves it)."""
    top = _top_of(folder)
    if top is None:
        raise InputError("--baseline-ref: not inside a git repository (no .git in it or a folder above it)",
                         file=folder)
    return top


def _not_a_commit(ref: str) -> InputError:
    return InputError(f"--baseline-ref: {ref!r} is not a commit of this repository "
                      "(with a shallow checkout, fetch the base commit first, e.g. fetch-depth: 0)")


def resolve_commit(top: str, ref: str) -> str:
    """The commit id ``ref`` names in the repository at ``top``, its object checked by hash. A full
    commit id is taken as it is; another name is resolved by the repository's refs (``rev-parse``)."""
    if not ref or ref.startswith("-"):
        raise InputError(f"--baseline-ref: {ref!r} is not a revision")
    oid = ref.lower() if _FULL_ID.fullmatch(ref.lower()) else None
    if oid is None:
        done = git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
        named = done.stdout.decode(errors="replace").strip()
        if done.returncode != 0 or not _FULL_ID.fullmatch(named):
            raise _not_a_commit(ref)
        oid = named
    commit = commit_of(top, oid)
    if commit is None:
        raise _not_a_commit(ref)
    return commit


def has_commit(folder: str, ref: str) -> bool | None:
    """Whether ``ref`` is a commit of the git repository holding ``folder`` (None: not in a repository,
    or git cannot read it: the gate then says what it cannot read)."""
    top = _top_of(folder)
    if top is None:
        return None
    try:
        resolve_commit(top, ref)
    except InputError as e:
        return False if "is not a commit of this repository" in str(e) else None
    return True


@dataclass(frozen=True)
class Revision:
    """A revision resolved once: the top of its repository, its commit id, and how the user named it."""

    top: str
    commit: str
    ref: str


def resolve_revision(folder: str, ref: str) -> Revision:
    """``ref`` in the git repository holding ``folder`` (input errors as :func:`toplevel` and
    :func:`resolve_commit` raise them)."""
    top = toplevel(folder)
    here = _top_of(os.getcwd())
    if here is not None and here != top and is_below(top, here):
        raise InputError(f"the golden set is in a git repository of its own ({top}, which has a .git), inside "
                         f"the repository of the working folder ({here}); with --baseline-ref the base revision "
                         "is read from one repository, and a .git inside the work tree could choose another: "
                         "run from the set's own repository if it truly is a separate one", file=folder)
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
    link), where they are there (the way ends at the first part that is missing or not a folder)."""
    return {part: entry.mode.rjust(6, "0") for part, entry in walk(top, commit, rel) if entry is not None}


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
    """``ref`` in the git repository holding the golden set ``root`` (:func:`resolve_revision`); a set folder that
    is a symbolic link is refused first, wherever it leads: the set's rules are read at the base
    revision by the set's own path (:func:`base_path`)."""
    if os.path.islink(os.path.abspath(root)):
        raise InputError("the golden set folder is a symbolic link; with --baseline-ref, what decides the "
                         "verdict is read at the base revision by the set's path, so the set may not be a "
                         "link: give the set's own folder", file=root)
    return resolve_revision(root, ref)


def base_folder(at: Revision, root: str) -> str:
    """The golden set ``root`` relative to the repository, refused when it or a folder above it in the
    repository is a symbolic link, in the working tree or at ``at`` (:func:`base_path`)."""
    return base_path(at, root, folder=True)


def show_file(top: str, commit: str, rel: str, ref: str | None = None) -> str | None:
    """The text of ``rel`` at ``commit``, or None when the file is not there.

    ``ref`` is how the user named the commit, for messages; text that is not UTF-8 is an input error.
    A folder reads as ``git show_file`` lists one (``tree REV:path``, a blank line, its names, folders with
    a ``/``); a submodule's entry is not there (its commit is another repository's).
    """
    entry = entry_at(top, commit, rel)
    if entry is None or entry.kind == "commit":
        return None
    if entry.kind == "tree":
        entries = read_trees(top, [entry.oid])[entry.oid]
        names = "".join(f"{n}/\n" if e.kind == "tree" else f"{n}\n" for n, e in sorted(entries.items()))
        return f"tree {commit}:{rel}\n\n{names}"
    data = read_blob(top, entry.oid)
    try:
        return data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as e:  # the file's problem, as with a file of the working tree
        raise InputError(f"not UTF-8 text ({e.reason} at byte {e.start})", file=f"{ref or commit}:{rel}") from e


def read_folders(top: str, commit: str, rel_dir: str) -> None:
    """Read the folders directly in ``rel_dir`` at ``commit`` in one ``git cat-file`` (each tree is kept
    by id, :mod:`gate.git.objects`): what is read of them afterwards (the judge cache, the snapshot, the
    comparison's hashing of the working tree) asks git nothing more."""
    entry = entry_at(top, commit, rel_dir)
    if entry is not None and entry.kind == "tree":
        read_trees(top, [e.oid for e in read_trees(top, [entry.oid])[entry.oid].values() if e.kind == "tree"])


def tree_entries(top: str, commit: str, rel_dir: str) -> Mapping[str, tuple[str, str]]:
    """What folder ``rel_dir`` holds at ``commit``: name -> (kind, id), kind ``blob``, ``tree`` or ``commit``
    (empty when the folder is not there)."""
    entry = entry_at(top, commit, rel_dir)
    if entry is None or entry.kind != "tree":
        return {}
    return {name: (e.kind, e.oid) for name, e in read_trees(top, [entry.oid])[entry.oid].items()}


def tree_blobs(top: str, commit: str, rel_dir: str) -> Mapping[str, str]:
    """The files directly in folder ``rel_dir`` at ``commit``: name -> blob id (empty when there is none)."""
    return {name: oid for name, (kind, oid) in tree_entries(top, commit, rel_dir).items() if kind == "blob"}


def blob_id(data: bytes, like: str) -> str:
    """The git blob id of ``data``, in the object format of the id ``like`` (SHA-1 or SHA-256)."""
    return object_id("blob", data, like)
