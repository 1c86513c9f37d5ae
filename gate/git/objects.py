"""Git objects read as data: every object the gate reads is hashed, and refused unless it hashes to its id.

A commit id names its content: the commit names its tree, each tree its entries, down to the blob
of a file. So once the base commit's id is known (the pull request event names it), every object
below it can be checked by hashing what git answers (``git cat-file --batch``): an object
rewritten in place, one planted in an alternate object store, a replace ref or a graft cannot pass
for the base's. An object that does not hash to its id is an input error (exit 2) that says the
repository's objects were changed; one the repository lacks reads as missing. Objects larger than
:data:`MAX_OBJECT_BYTES` are refused before they are read.

Trees and commits are kept once read (by id: content-addressed, so a kept tree is the same for any
repository that has it). An I/O edge, through :mod:`gate.git.command`.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import IO

from gate.errors import InputError
from gate.files.jsonio import MAX_JSON_BYTES, MAX_YAML_BYTES
from gate.git.command import git_stream

__all__ = ["MAX_OBJECT_BYTES", "Entry", "commit_of", "entry_at", "object_id", "read_blob", "read_objects",
           "read_trees", "walk"]

MAX_OBJECT_BYTES = max(MAX_JSON_BYTES, MAX_YAML_BYTES)
"""The largest object read (a tree, a commit, a file): the largest file any reader of the gate takes."""

TREE_MODE = "40000"
LINK_MODE = "120000"
GITLINK_MODE = "160000"
_HEX = re.compile(rb"[0-9a-f]{40}|[0-9a-f]{64}")


@dataclass(frozen=True, slots=True)
class Entry:
    """One entry of a tree: its mode as git writes it (``40000`` a folder, ``100644`` a file,
    ``120000`` a symbolic link, ``160000`` a submodule's commit) and the id of its object."""

    mode: str
    oid: str

    @property
    def kind(self) -> str:
        """``tree``, ``commit`` (a submodule: not in this repository) or ``blob``."""
        return "tree" if self.mode == TREE_MODE else "commit" if self.mode == GITLINK_MODE else "blob"


def object_id(kind: str, data: bytes, like: str) -> str:
    """The git id of an object of ``kind`` holding ``data``, in the object format of the id ``like``
    (SHA-1 for 40 hex digits, SHA-256 for 64)."""
    digest = hashlib.sha256 if len(like) == 64 else hashlib.sha1
    return digest(kind.encode() + b" %d\0" % len(data) + data).hexdigest()


def _changed(oid: str, top: str) -> InputError:
    return InputError(f"git object {oid} does not hash to its id: the repository's objects were changed "
                      "(rewritten in place, or planted in an alternate object store), so what the base "
                      "revision says cannot be read from it; check out the repository afresh", file=top)


def _too_large(kind: str, oid: str, size: int, limit: int, top: str) -> InputError:
    return InputError(f"git {kind} {oid} is {size:,} bytes, over the {limit:,} sourcegate reads of one object "
                      "(raise SOURCEGATE_MAX_JSON_BYTES)", file=top)


def _read_exact(out: IO[bytes], size: int) -> bytes:
    parts, left = [], size
    while left > 0:
        part = out.read(left)
        if not part:
            break
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def read_objects(top: str, oids: Iterable[str], *, limit: int = MAX_OBJECT_BYTES) -> dict[str, tuple[str, bytes]]:
    """The objects ``oids`` (full ids) of the repository at ``top``: id -> (kind, content), each checked by
    hash; an id the repository lacks is left out. One ``git cat-file --batch`` for all of them.

    Input errors: an object that does not hash to its id, one over ``limit`` bytes, an answer git
    did not finish."""
    found: dict[str, tuple[str, bytes]] = {o: _KEPT[top, o] for o in dict.fromkeys(oids) if (top, o) in _KEPT}
    for oid, (kind, data) in found.items():
        if len(data) > limit:
            raise _too_large(kind, oid, len(data), limit, top)
    wanted = [o for o in dict.fromkeys(oids) if o not in found]
    if not wanted:
        return found
    with git_stream(top, "cat-file", "--batch", stdin="".join(f"{o}\n" for o in wanted).encode()) as stream:
        for oid in wanted:
            header = stream.out.readline(200).decode("ascii", errors="replace").split()
            if header == [oid, "missing"]:
                continue
            if len(header) != 3 or header[0] != oid or not header[2].isdigit():
                raise InputError(f"git cat-file gave no answer for {oid} ({stream.why()})", file=top)
            kind, size = header[1], int(header[2])
            if size > limit:
                raise _too_large(kind, oid, size, limit, top)
            data = _read_exact(stream.out, size + 1)
            if len(data) != size + 1 or data[-1:] != b"\n":
                raise InputError(f"git cat-file stopped in the middle of {oid} ({stream.why()})", file=top)
            if object_id(kind, data[:-1], oid) != oid:
                raise _changed(oid, top)
            found[oid] = (kind, data[:-1])
            _keep(top, oid, found[oid])
    return found


_KEPT: dict[tuple[str, str], tuple[str, bytes]] = {}
_KEEP_BYTES = 16 * 1024 * 1024
"""Objects read once are kept by repository and id, up to this many bytes in all: an id names its content
(checked when read), so a commit or a file that the configuration, the baseline and the judge cache all
need is read from git once per process. (Per repository: one that lacks an object still says so.)"""


_kept_bytes = 0


def _keep(top: str, oid: str, obj: tuple[str, bytes]) -> None:
    global _kept_bytes
    if _kept_bytes + len(obj[1]) > _KEEP_BYTES:
        _KEPT.clear()
        _kept_bytes = 0
    if len(obj[1]) <= _KEEP_BYTES and (top, oid) not in _KEPT:
        _KEPT[top, oid] = obj
        _kept_bytes += len(obj[1])


def _tree(data: bytes, oid: str, top: str) -> Mapping[str, Entry]:
    """The entries of a tree object's content (``mode SP name NUL id``, the id in raw bytes)."""
    width = len(oid) // 2
    entries: dict[str, Entry] = {}
    i = 0
    while i < len(data):
        space, nul = data.find(b" ", i), data.find(b"\0", i)
        if space < 0 or nul < space or nul + 1 + width > len(data):
            raise InputError(f"git tree {oid} is not a tree git writes", file=top)
        name = data[space + 1:nul].decode("utf-8", errors="surrogateescape")
        entries[name] = Entry(data[i:space].decode("ascii", errors="replace"), data[nul + 1:nul + 1 + width].hex())
        i = nul + 1 + width
    return MappingProxyType(entries)


_TREES: dict[str, Mapping[str, Entry]] = {}
"""Trees read and checked, by id (content-addressed: the same for every repository that has them)."""
_KEEP_TREES = 4096


def _lacks(oid: str, kind: str, top: str) -> InputError:
    return InputError(f"the repository lacks the {kind} {oid} that the base revision names (its object store "
                      "is incomplete or was changed), so what the base revision says cannot be read from it; "
                      "check out the repository afresh, with its whole history (fetch-depth: 0)", file=top)


def read_trees(top: str, oids: Sequence[str]) -> dict[str, Mapping[str, Entry]]:
    """The entries of each tree in ``oids``; a tree the repository lacks is an input error, since a
    tree named by a checked commit or tree is part of the base revision."""
    new = [o for o in oids if o not in _TREES]
    got = read_objects(top, new)
    for oid in new:
        kind, data = got.get(oid, ("", b""))
        if kind != "tree":
            raise _lacks(oid, "tree", top)
        if len(_TREES) >= _KEEP_TREES:
            _TREES.clear()
        _TREES[oid] = _tree(data, oid, top)
    return {o: _TREES[o] for o in oids}


def commit_of(top: str, oid: str) -> str | None:
    """The commit ``oid`` names (a tag is followed to its commit), checked; None when ``oid`` names
    no commit of the repository."""
    for _ in range(10):  # a tag of a tag of ...: a few levels are plenty
        got = read_objects(top, [oid]).get(oid)
        if got is None:
            return None
        kind, data = got
        if kind == "commit":
            return oid
        m = re.match(rb"object (\S+)\ntype (\S+)\n", data) if kind == "tag" else None
        if m is None or not _HEX.fullmatch(m.group(1)):
            return None
        oid = m.group(1).decode()
    return None


def _root_tree(top: str, commit: str) -> str:
    got = read_objects(top, [commit]).get(commit)
    m = re.match(rb"tree (\S+)\n", got[1]) if got is not None and got[0] == "commit" else None
    if m is None or not _HEX.fullmatch(m.group(1)):
        raise InputError(f"{commit} is not a commit of this repository", file=top)
    return m.group(1).decode()


def walk(top: str, commit: str, rel: str) -> list[tuple[str, Entry | None]]:
    """Each leading part of ``rel`` (``a``, ``a/b``, ...) with its entry at ``commit``, up to the first
    part the commit does not have (its entry None) or that is not a folder; nothing for ``.``."""
    names = [] if rel in (".", "") else rel.split("/")
    parts: list[tuple[str, Entry | None]] = []
    tree = _root_tree(top, commit)
    for i, name in enumerate(names):
        entry = read_trees(top, [tree])[tree].get(name)
        parts.append(("/".join(names[:i + 1]), entry))
        if entry is None or entry.kind != "tree":
            break
        tree = entry.oid
    return parts


def entry_at(top: str, commit: str, rel: str) -> Entry | None:
    """The entry of ``rel`` at ``commit`` (``.``: the commit's own tree), or None when it has none."""
    if rel in (".", ""):
        return Entry(TREE_MODE, _root_tree(top, commit))
    parts = walk(top, commit, rel)
    return parts[-1][1] if len(parts) == len(rel.split("/")) else None


def read_blob(top: str, oid: str) -> bytes:
    """The content of blob ``oid``, checked; one the repository lacks is an input error (a blob named
    by a checked tree is part of the base revision)."""
    kind, data = read_objects(top, [oid]).get(oid, ("", b""))
    if kind != "blob":
        raise _lacks(oid, "file", top)
    return data
