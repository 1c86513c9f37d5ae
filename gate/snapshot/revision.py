"""The snapshot as the base revision has it: the frozen web the runs' pages are compared with.

With ``--baseline-ref``, what a page says is what the base revision's ``snapshot/`` recorded for its
URL, not what the pull request's working tree (or its trace) says (:mod:`gate.checks.frozen_web`).
:func:`base_snapshot` lists the base's page and extraction entries once, by file name and blob id
(two tree objects, read through :mod:`gate.git` and checked by hash); :meth:`BaseSnapshot.pages_of`
then reads only the entries of the URLs a run read, each once for the whole set:

- a URL's page entry first, its extraction only when some read of the URL is not the page's text;
- from the working tree, when the file there hashes to the blob the base names (the same bytes: a
  file the comparison with the base would hash anyway, read once, :mod:`gate.files.digests`);
- else from git, the base's own object, checked by hash: the entries of one run that the pull
  request changed or removed in one ``git cat-file --batch``, and none for a run whose pages it did
  not touch. A changed entry read for one run is kept for the others.

Only an entry's text is read from it (one that is not JSON or holds no text is an input error naming
``REF:path``). An I/O edge; what it returns is a
value (:class:`gate.model.FrozenPages`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from gate.errors import InputError
from gate.files.jsonio import read_bytes
from gate.git import entry_at, object_id, read_blob, read_trees
from gate.git.objects import LINK_MODE, read_objects
from gate.git.revision import Revision, base_path
from gate.load.golden import SNAPSHOT_DIR
from gate.model import FrozenPages, Run
from gate.snapshot.records import EXTRACTIONS, PAGES, Layer, url_key
from gate.urls import canonical

__all__ = ["KEPT_BYTES", "BaseSnapshot", "base_snapshot"]

KEPT_BYTES = 64 * 2**20
"""The most text (characters) of the base's entries kept between runs; past it, they are read again."""

_TEXT_FIELD = {PAGES.name: "body", EXTRACTIONS.name: "text"}


@dataclass(frozen=True)
class BaseSnapshot:
    """A base revision's snapshot of one golden set: its entries by file name, and where to read them."""

    top: str
    commit: str
    ref: str
    rel: str
    """the snapshot folder, relative to the repository"""
    folder: str
    """the working tree's snapshot folder"""
    within: str
    """the golden set: a working-tree entry is read only inside it"""
    entries: Mapping[str, Mapping[str, str]]
    """layer name (``page``, ``extraction``) -> entry file name without ``.json`` -> blob id"""
    _kept: dict[str, dict[str, str]] = field(default_factory=dict, compare=False, repr=False)
    """canonical URL -> layer name -> the text of the base's entry, for the entries read so far"""
    _held: list[int] = field(default_factory=lambda: [0], compare=False, repr=False)
    """the characters of text :attr:`_kept` holds"""

    def pages_of(self, run: Run) -> FrozenPages:
        """What the base recorded for each page ``run`` read (by canonical URL), reading what is not kept.

        A URL's page entry is read first; its extraction only when some read of the URL is not the page
        entry's text as it is (the comparison itself, whitespace and cut pages included, is
        :mod:`gate.checks.frozen_web`'s): the answer is the one reading both would give."""
        reads: dict[str, tuple[str, set[str]]] = {}
        for page in run.pages:
            reads.setdefault(canonical(page.url), (url_key(page.url), set()))[1].add(page.text)
        kept = {key: dict(self._kept.get(key, {})) for key in reads}
        for layer in (PAGES, EXTRACTIONS):
            wanted = {key: name for key, (name, texts) in reads.items()
                      if layer.name not in kept[key] and name in self.entries[layer.name]
                      and not texts <= set(kept[key].values())}
            for key, text in self._read(layer, wanted).items():
                kept[key][layer.name] = text
        return FrozenPages(self.ref, MappingProxyType({k: tuple(dict.fromkeys(t.values())) for k, t in kept.items()
                                                       if t}))

    def _read(self, layer: Layer, names: Mapping[str, str]) -> dict[str, str]:
        """The text of ``layer``'s entry of each canonical URL of ``names`` (the entry's file name), kept."""
        found: dict[str, str] = {}
        from_git: list[tuple[str, str, str]] = []
        for key, name in names.items():
            oid = self.entries[layer.name][name]
            path = os.path.join(self.folder, layer.folder, f"{name}.json")
            data = _local(path, oid, self.within)
            if data is None:
                from_git.append((key, name, oid))
            else:
                found[key] = _text(data, layer, path)
        if from_git:
            got = read_objects(self.top, [oid for *_, oid in from_git])  # one batch, each checked by hash
            for key, name, oid in from_git:
                kind, data = got.get(oid) or ("", b"")
                blob = data if kind == "blob" else read_blob(self.top, oid)  # read_blob: the error of a lack
                found[key] = _text(blob, layer, f"{self.ref}:{self.rel}/{layer.folder}/{name}.json")
        size = sum(map(len, found.values()))
        if self._held[0] + size > KEPT_BYTES:
            self._kept.clear()
            self._held[0] = 0
        for key, text in found.items():
            self._kept.setdefault(key, {})[layer.name] = text
        self._held[0] += size
        return found


def _local(path: str, oid: str, within: str) -> bytes | None:
    """The working tree's entry when it is the base's blob (the same bytes), else None."""
    try:
        data = read_bytes(path, root=within)
    except (InputError, OSError):  # missing, a link out of the set, too large: the base's own object decides
        return None
    return data if object_id("blob", data, oid) == oid else None


def _text(data: bytes, layer: Layer, source: str) -> str:
    """The text an entry recorded. Only that field is read: whatever else the base's entry holds does not
    say what the page says. The entry is the base's own (its blob, checked by hash, within the size
    limit of every JSON file), so it is parsed as it is, without the hostile-input checks of
    :func:`gate.files.jsonio.parse_json`, which would cost three times as much per entry."""
    try:
        entry: Any = json.loads(data)
    except (ValueError, RecursionError) as e:  # not UTF-8, not JSON, nested past the interpreter's guard
        raise InputError(f"not a {layer.format} entry: {type(e).__name__}: {e}", file=source) from None
    field_name = _TEXT_FIELD[layer.name]
    text = entry.get(field_name) if isinstance(entry, dict) else None
    if not isinstance(text, str):
        raise InputError(f"not a {layer.format} entry: no string {field_name!r}", file=source, path=f"$.{field_name}")
    return text


def _blobs(tree: Mapping[str, Any]) -> dict[str, str]:
    return {name[:-5]: e.oid for name, e in tree.items()
            if name.endswith(".json") and e.kind == "blob" and e.mode != LINK_MODE}


def base_snapshot(at: Revision, root: str) -> BaseSnapshot | None:
    """The snapshot of the golden set ``root`` at ``at`` (None: the base has none). Its folder is read
    by its own path, never through a symbolic link (:func:`gate.git.revision.base_path`)."""
    folder = os.path.join(root, SNAPSHOT_DIR)
    rel = base_path(at, folder, within=os.path.realpath(root))
    entry = entry_at(at.top, at.commit, rel)
    if entry is None or entry.kind != "tree":
        return None
    layers = read_trees(at.top, [entry.oid])[entry.oid]
    subtrees = {layer.name: e.oid for layer in (PAGES, EXTRACTIONS)
                if (e := layers.get(layer.folder)) is not None and e.kind == "tree"}
    # every folder of the snapshot in one read: the comparison's hashing of the working tree reads them too
    trees = read_trees(at.top, [e.oid for e in layers.values() if e.kind == "tree"])
    entries = {layer.name: MappingProxyType(_blobs(trees[subtrees[layer.name]]) if layer.name in subtrees else {})
               for layer in (PAGES, EXTRACTIONS)}
    return BaseSnapshot(at.top, at.commit, at.ref, rel, folder, root, MappingProxyType(entries))

