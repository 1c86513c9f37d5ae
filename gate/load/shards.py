"""Shards: a stable 1/n of a golden set's cases, so one set can run across a CI matrix.

A case belongs to shard ``i`` of ``n`` when the SHA-256 of its id, read as a number, is ``i - 1``
modulo ``n``: the choice depends on the id alone, so adding or removing a case never moves another
case to a different shard, and every machine agrees on it without talking to the others.

A shard's report carries a :class:`ShardMark`: which shard it is, the configuration it ran under
(a digest of every effective setting), the baseline it would be compared with (a digest), and
the ids of the whole run in order with the positions of its own cases among them.
``sourcegate merge`` (:mod:`gate.store.merge`) checks those before it puts the shards back together.

Pure: no I/O, no clock.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, fields, is_dataclass
from typing import Any, TypeVar

from gate.errors import InputError

__all__ = ["Shard", "ShardMark", "ShardSelection", "config_digest", "ids_digest", "in_shard", "parse_shard"]

_FORM = re.compile(r"^([0-9]{1,6})/([0-9]{1,6})$")


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str) -> Shard:
    """``"i/n"`` (``1 <= i <= n``) as a Shard; anything else is an input error."""
    m = _FORM.match(text.strip())
    if m is None:
        raise InputError(f"--shard {text!r}: expected i/n, e.g. 2/4 (shard 2 of 4)")
    shard = Shard(int(m.group(1)), int(m.group(2)))
    if not 1 <= shard.index <= shard.count:
        raise InputError(f"--shard {text!r}: the index must be between 1 and the count")
    return shard


def in_shard(case_id: str, shard: Shard) -> bool:
    """Whether ``case_id`` is evaluated by ``shard`` (a hash of the id alone, so it never moves)."""
    digest = hashlib.sha256(case_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % shard.count == shard.index - 1


def ids_digest(ids: Iterable[str]) -> str:
    """A digest of an ordered list of case ids (which golden set, with which cases, in which order)."""
    h = hashlib.sha256()
    for i in ids:
        h.update(i.encode("utf-8") + b"\0")
    return "sha256:" + h.hexdigest()


def _plain(value: Any) -> Any:
    """``value`` as JSON data with one spelling: mappings sorted, sets sorted, tuples as lists."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in fields(value) if f.name != "source"}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, frozenset | set):
        return sorted(_plain(v) for v in value)
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def config_digest(config: object) -> str:
    """A digest of every effective setting of a configuration (not where it was read from)."""
    text = json.dumps(_plain(config), sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class ShardMark:
    """What a partial report says about itself, so that the merge can refuse what does not fit."""

    index: int
    count: int
    config: str
    """:func:`config_digest` of the configuration the shard ran under"""
    baseline: str | None
    """a digest of the baseline the merged report will be compared with (None: there is none)"""
    ids: str
    """:func:`ids_digest` of every case of the whole run, in the report's order"""
    total: int
    """how many cases the whole run has"""
    positions: tuple[int, ...]
    """where each of this shard's cases stands in the whole run's order"""


_T = TypeVar("_T")


class ShardSelection:
    """Streams the items of one shard, noting every item's id and position as they go by.

    ``select`` yields only the shard's items; once it is exhausted, :meth:`mark` says what the
    whole run looked like (its ordered ids) and where the selected items stood in it.
    """

    def __init__(self, shard: Shard) -> None:
        self.shard = shard
        self._ids: list[str] = []
        self._positions: list[int] = []

    def keeps(self, case_id: str) -> bool:
        """Whether ``case_id`` is this shard's (what a loader may skip before validating)."""
        return in_shard(case_id, self.shard)

    def select(self, items: Iterable[_T], case_id: Any) -> Iterator[_T]:
        """The items of this shard; ``case_id(item)`` names each item's case."""
        for position, item in enumerate(items):
            cid: str = case_id(item)
            self._ids.append(cid)
            if in_shard(cid, self.shard):
                self._positions.append(position)
                yield item

    def mark(self, config: str, baseline: str | None) -> ShardMark:
        """The mark of the shard's report (after :meth:`select` has been run to its end)."""
        return ShardMark(index=self.shard.index, count=self.shard.count, config=config, baseline=baseline,
                         ids=ids_digest(self._ids), total=len(self._ids), positions=tuple(self._positions))
