"""The cases of a report, kept in a file when there are many: memory does not grow with the set.

:class:`CaseStore` is a read-only ``Sequence[CaseResult]``. :meth:`CaseStore.collect` takes the
case results as the pipeline produces them; up to :data:`IN_MEMORY` of them stay in memory as
values, past that each is written as it comes to a spill file, as the report's own JSON text of
that case (:func:`gate.store.serialise.case_record`), and read back on demand (an index of
offsets serves ``store[i]``). Alongside, it keeps the :class:`gate.verdict.tally.Tally` the decision and
the report's summary need, so neither has to read the cases again.

The JSON reporter copies those records into the report as they are (no parse, no re-serialising):
the report is the same text whichever way its cases were kept.

A merge writes its cases with :class:`Spill`: each record as it is read (the partial report's own
text of the case, when it is the text sourcegate writes), put in the run's order once every shard
is read (:meth:`Spill.store`).

The spill file is an anonymous temporary file in the OS temp folder (``TMPDIR``): it is unlinked as
soon as it is created, so it has no name to leave behind, and the OS frees it when the store is
closed or collected, when the process exits, or when it is killed.
"""

from __future__ import annotations

import json
import os
import tempfile
import weakref
from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import overload

from gate.results import CaseResult
from gate.store.serialise import case_from_dict, case_record
from gate.verdict.tally import Tally, TallyBuilder

__all__ = ["IN_MEMORY", "CaseStore", "Spill", "records_of"]

IN_MEMORY = 256
"""Up to this many cases a store keeps them as values; past it, in its spill file."""


class CaseStore(Sequence[CaseResult]):
    """A report's cases, in order (see the module docstring)."""

    __slots__ = ("__weakref__", "_file", "_held", "_lengths", "_offsets", "_tally")

    def __init__(self, held: Sequence[CaseResult], the_tally: Tally) -> None:
        """Cases held in memory (use :meth:`collect` to build a store that may spill)."""
        self._held: tuple[CaseResult, ...] | None = tuple(held)
        self._tally = the_tally
        self._file: int | None = None
        self._offsets: array[int] = array("q")
        self._lengths: array[int] = array("q")

    @classmethod
    def collect(cls, cases: Iterable[CaseResult], in_memory: int | None = None) -> CaseStore:
        """Take ``cases`` one at a time; past ``in_memory`` (default :data:`IN_MEMORY`) they go to a file."""
        return cls.collect_recorded(((c, None) for c in cases), in_memory)

    @classmethod
    def collect_recorded(cls, cases: Iterable[tuple[CaseResult, str | None]],
                         in_memory: int | None = None) -> CaseStore:
        """As :meth:`collect`, each case with its record when it is already written
        (:func:`gate.store.serialise.case_record` of it, by a worker process), else None."""
        limit = IN_MEMORY if in_memory is None else in_memory
        builder = TallyBuilder()
        held: list[tuple[CaseResult, str | None]] = []
        store: CaseStore | None = None
        for c, record in cases:
            builder.add(c)
            if store is None and len(held) < limit:
                held.append((c, record))
                continue
            if store is None:
                store = cls((), Tally())
                store._spill()
                for h, written in held:
                    store._append(h, written)
                held = []
            store._append(c, record)
        if store is None:
            return cls([c for c, _ in held], builder.build())
        store._tally = builder.build()
        return store

    def _spill(self) -> None:
        self._file = _anonymous_file()
        self._held = None
        weakref.finalize(self, os.close, self._file)

    def _append(self, c: CaseResult, record: str | None = None) -> None:
        assert self._file is not None
        offset = self._offsets[-1] + self._lengths[-1] if self._offsets else 0
        self._lengths.append(_write(self._file, case_record(c) if record is None else record, offset))
        self._offsets.append(offset)

    @property
    def tally(self) -> Tally:
        """The aggregates of these cases, taken as they were collected."""
        return self._tally

    @property
    def spilled(self) -> bool:
        """True when the cases are in the spill file rather than in memory."""
        return self._held is None

    def __len__(self) -> int:
        """How many cases."""
        return len(self._held) if self._held is not None else len(self._offsets)

    @overload
    def __getitem__(self, index: int) -> CaseResult: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[CaseResult, ...]: ...

    def __getitem__(self, index: int | slice) -> CaseResult | tuple[CaseResult, ...]:
        """One case (read back from the file when spilled), or a tuple of them for a slice."""
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        if self._held is not None:
            return self._held[index]
        n = len(self._offsets)
        if not -n <= index < n:
            raise IndexError("case index out of range")
        return case_from_dict(json.loads(self._record(index % n)))

    def __iter__(self) -> Iterator[CaseResult]:
        """The cases in order, one read back at a time."""
        if self._held is not None:
            yield from self._held
            return
        for i in range(len(self._offsets)):
            yield case_from_dict(json.loads(self._record(i)))

    def _record(self, i: int) -> bytes:
        assert self._file is not None
        length = self._lengths[i]
        data = os.pread(self._file, length, self._offsets[i])
        if len(data) != length:
            raise OSError(f"the case spill file ended early at case {i}")
        return data

    def records(self) -> Iterator[str]:
        """Each case as it stands in the report's ``cases`` list (:func:`gate.store.serialise.case_record`)."""
        if self._held is not None:
            yield from (case_record(c) for c in self._held)
            return
        for i in range(len(self._offsets)):
            yield self._record(i).decode("utf-8")

    def __eq__(self, other: object) -> bool:
        """Equal to any sequence of the same cases in the same order."""
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        """How many cases, and where."""
        return f"CaseStore({len(self)} cases{', spilled' if self.spilled else ''})"


def records_of(cases: Sequence[CaseResult]) -> Iterator[str]:
    """Each case's JSON record: copied from a store, else serialised now."""
    return cases.records() if isinstance(cases, CaseStore) else (case_record(c) for c in cases)


def _anonymous_file() -> int:
    handle = tempfile.TemporaryFile(prefix=".sourcegate-cases-")  # noqa: SIM115 (owned by the caller)
    fd = os.dup(handle.fileno())
    handle.close()  # the dup keeps the anonymous file alive; its owner closes it
    return fd


_BATCH = 1 << 20
"""How much :class:`Spill` gathers before it writes."""


def _write(fd: int, record: str | bytes, offset: int) -> int:
    """Write ``record`` at ``offset``; its length in bytes."""
    data = record.encode("utf-8") if isinstance(record, str) else record
    written = 0
    while written < len(data):
        written += os.pwrite(fd, data[written:], offset + written)
    return len(data)


class Spill:
    """Case records written as they come, in any order, then placed in the run's order as a store.

    :meth:`write` appends one record (a case's JSON text as :func:`gate.store.serialise.case_record`
    writes it) and says where it is; :meth:`store` gives the :class:`CaseStore` of the records at
    the places given, in that order, which then owns the file.
    """

    __slots__ = ("__weakref__", "_close", "_end", "_file", "_pending", "_written")

    def __init__(self) -> None:
        """An empty spill file."""
        self._file = _anonymous_file()
        self._end = self._written = 0
        self._pending: list[bytes] = []
        self._close = weakref.finalize(self, os.close, self._file)

    def write(self, record: str) -> tuple[int, int]:
        """Append ``record``; its (offset, length) in the file (written a megabyte at a time)."""
        data = record.encode("utf-8")
        offset = self._end
        self._end += len(data)
        self._pending.append(data)
        if self._end - self._written >= _BATCH:
            self._flush()
        return offset, len(data)

    def _flush(self) -> None:
        if self._pending:
            self._written += _write(self._file, b"".join(self._pending), self._written)
            self._pending = []

    def store(self, places: Iterable[tuple[int, int]], the_tally: Tally) -> CaseStore:
        """The records at ``places`` ((offset, length) as :meth:`write` gave them), in that order,
        with their tally: held as values when there are no more than :data:`IN_MEMORY`."""
        self._flush()
        store = CaseStore((), the_tally)
        store._held = None
        store._file = self._file
        for offset, length in places:
            store._offsets.append(offset)
            store._lengths.append(length)
        self._close.detach()
        weakref.finalize(store, os.close, self._file)
        if len(store) > IN_MEMORY:
            return store
        return CaseStore(tuple(store), the_tally)  # the file is closed with the spilled store
