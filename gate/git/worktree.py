"""Which files of the working tree differ from a commit, worked out without asking git about the working tree.

``git diff`` and ``git ls-files`` would read the index and refresh it, and so run what the repository
configures for that (``core.fsmonitor``), and trust what the index says of a file (an index entry
marked unchanged hides a change). Here each file is hashed as a git blob and compared with the id
the commit's checked tree has for it (:mod:`gate.git.objects`): the answer depends on the commit and
the files alone.

A file differs when its content (or its kind: a file, a symbolic link) is not the commit's; a file
written with CRLF line ends where the commit has LF (a Windows checkout) does not. The executable
bit is not compared. Files the commit lacks count as changed, ignored by ``.gitignore`` or not, and
so do files the commit has and the working tree lacks. ``.git`` is never entered.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Mapping, Sequence

from gate.files.digests import read_blob_id
from gate.git.objects import LINK_MODE, Entry, entry_at, object_id, read_trees

__all__ = ["changed_files"]


def _blob_matches(path: str, entry: Entry, st: os.stat_result) -> bool:
    if stat.S_ISLNK(st.st_mode):
        return entry.mode == LINK_MODE and object_id("blob", os.fsencode(os.readlink(path)), entry.oid) == entry.oid
    if entry.mode == LINK_MODE or entry.kind != "blob":
        return False
    known = read_blob_id(st) if len(entry.oid) == 40 else None
    if known is not None:  # read already by the run, these very bytes (gate.files.digests)
        return entry.oid in known
    with open(path, "rb") as f:
        data = f.read()
    return object_id("blob", data, entry.oid) == entry.oid or (
        b"\r\n" in data and object_id("blob", data.replace(b"\r\n", b"\n"), entry.oid) == entry.oid)


def _disk(path: str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None


def _files_on_disk(path: str, rel: str) -> Iterator[str]:
    """Every file below ``path`` (``rel`` in the repository), links not followed, ``.git`` not entered."""
    st = _disk(path)
    if st is None:
        return
    if not stat.S_ISDIR(st.st_mode):
        yield rel
        return
    for name in sorted(os.listdir(path)):
        if name != ".git":
            yield from _files_on_disk(os.path.join(path, name), f"{rel}/{name}" if rel != "." else name)


def _files_in_tree(top: str, entry: Entry, rel: str) -> Iterator[str]:
    if entry.kind != "tree":
        yield rel
        return
    for name, child in read_trees(top, [entry.oid])[entry.oid].items():
        yield from _files_in_tree(top, child, f"{rel}/{name}" if rel != "." else name)


def _compare(top: str, rel: str, entry: Entry | None) -> Iterator[str]:
    path = os.path.join(top, *([] if rel == "." else rel.split("/")))
    st = _disk(path)
    if entry is None:
        yield from _files_on_disk(path, rel)
        return
    if st is None or entry.kind == "commit":
        yield from ([] if entry.kind == "commit" else _files_in_tree(top, entry, rel))
        return
    is_dir = stat.S_ISDIR(st.st_mode)
    if entry.kind != "tree" or not is_dir:
        if is_dir:  # a file at the commit, a folder here
            yield rel
            yield from _files_on_disk(path, rel)
        elif entry.kind == "tree":  # a folder at the commit, a file here
            yield rel
            yield from _files_in_tree(top, entry, rel)
        elif not _blob_matches(path, entry, st):
            yield rel
        return
    entries: Mapping[str, Entry] = read_trees(top, [entry.oid])[entry.oid]
    read_trees(top, [e.oid for e in entries.values() if e.kind == "tree"])  # the sub-folders in one read
    names = sorted({*entries, *(n for n in os.listdir(path) if n != ".git")})
    for name in names:
        yield from _compare(top, f"{rel}/{name}" if rel != "." else name, entries.get(name))


def changed_files(top: str, commit: str, rels: Sequence[str]) -> tuple[str, ...]:
    """Files under ``rels`` (paths relative to the repository at ``top``) that differ between ``commit``
    and the working tree, sorted, each once."""
    names: set[str] = set()
    wanted = sorted(set(rels))
    # a path inside another one of the list is compared with it: each file is hashed once
    outer = [r for r in wanted if not any(o in (".", "") or r.startswith(o.rstrip("/") + "/")
                                          for o in wanted if o != r)]
    for rel in outer:
        names.update(_compare(top, rel, entry_at(top, commit, rel)))
    return tuple(sorted(names))
