"""The message batches a run has created and not finished with, kept beside the judge cache.

``judgements/.batch.json`` (format ``sourcegate-batch/1``, ``gate/schemas/judge-batch.json``) lists
each pending batch's id and the cache keys of its requests. It is written atomically
(:func:`gate.files.outputs.write_file`) as soon as a batch is created, and an entry is dropped once the
batch's results are in the judge cache; the file goes when the last entry does. A run interrupted
while it waits leaves the file behind, and the next run with the same requests polls those batches
again instead of creating (and paying for) new ones.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from gate.errors import InputError
from gate.files.jsonio import dump_json, inside, load_json, validate
from gate.files.outputs import write_file

BATCH_FORMAT = "sourcegate-batch/1"
FILE_NAME = ".batch.json"


@dataclass(frozen=True)
class PendingBatch:
    """One batch created and not yet taken into the judge cache."""

    id: str
    keys: frozenset[str]


class PendingBatches:
    """The pending-batch file of one judge-cache folder."""

    def __init__(self, folder: str, root: str | None = None) -> None:
        """Use ``folder``/.batch.json; it is read and written only inside ``root`` (default: the folder
        above ``folder``, the golden set)."""
        self.file = os.path.join(folder, FILE_NAME)
        self.root = os.path.dirname(os.path.abspath(folder)) if root is None else root

    def load(self) -> tuple[PendingBatch, ...]:
        """The pending batches, oldest first; none when there is no file. A damaged file is an input error."""
        if not os.path.lexists(self.file):
            return ()
        data = load_json(self.file, root=self.root)
        validate(data, "judge-batch", self.file)
        return tuple(PendingBatch(b["id"], frozenset(b["keys"])) for b in data["batches"])

    def save(self, batches: Iterable[PendingBatch]) -> None:
        """Write the pending batches; with none, remove the file."""
        batches = tuple(batches)
        if not batches:
            self._remove()
            return
        data = {"format": BATCH_FORMAT, "batches": [{"id": b.id, "keys": sorted(b.keys)} for b in batches]}
        write_file(self.file, dump_json(data), within=self.root)

    def add(self, batch: PendingBatch) -> None:
        """Note a batch just created."""
        self.save((*(b for b in self.load() if b.id != batch.id), batch))

    def drop(self, ids: Iterable[str]) -> None:
        """Forget the batches ``ids`` (their results are in the judge cache)."""
        gone = set(ids)
        if gone:
            self.save(b for b in self.load() if b.id not in gone)

    def _remove(self) -> None:
        if not os.path.lexists(self.file):
            return
        inside(self.root, self.file)
        try:
            os.remove(self.file)
        except OSError as e:
            raise InputError(f"cannot remove the pending-batch file: {e.strerror or e}", file=self.file) from e
