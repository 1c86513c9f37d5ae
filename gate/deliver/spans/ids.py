"""Trace and span ids derived from what a run is, so the same run always gets the same ids.

A trace id names one run: a hash of the golden set (name and version), the case id and everything the
run recorded (:func:`run_identity`: its question, queries, results, pages, model calls, times and
answer, not the file it was read from). The same run sent twice is one trace; a re-run of the case
(another answer, other times) is another trace, so a tool never shows one run's spans with another's.
A span id is a hash of the trace id and the span's place in the tree (``search/2``, ``fetch/0``).
Neither id is ever all zeros (OpenTelemetry treats zero as "no id").
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import MISSING, fields, is_dataclass
from datetime import date
from typing import Any

from gate.model import Run

__all__ = ["run_identity", "search_place", "span_id", "trace_id"]

_NOT_RECORDED = ("source",)
"""Fields of a run that say where it was read from, not what it recorded."""


def _digest(*parts: str) -> bytes:
    return hashlib.sha256("\x00".join(parts).encode("utf-8")).digest()


def _nonzero(raw: bytes) -> int:
    value = int.from_bytes(raw, "big")
    return value or 1


def _default(f: Any) -> Any:
    if f.default is not MISSING:
        return f.default
    return f.default_factory() if f.default_factory is not MISSING else MISSING


def _recorded(value: Any) -> Any:
    """``value`` as plain JSON data: a value's fields left at their default are left out, so a field a
    later version adds leaves the identity of a run that does not use it as it was."""
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _recorded(getattr(value, f.name)) for f in fields(value)
                if f.name not in _NOT_RECORDED and getattr(value, f.name) != _default(f)}
    if isinstance(value, (tuple, list)):
        return [_recorded(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _recorded(v) for k, v in value.items()}
    if isinstance(value, date):  # a datetime too
        return value.isoformat()
    return value


def run_identity(run: Run | None) -> str:
    """What names one run: a hash of everything it recorded (empty for a case without a run)."""
    if run is None:
        return ""
    text = json.dumps(_recorded(run), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def trace_id(golden_name: str, golden_version: int | None, case: str, run: Run | None) -> int:
    """The 128-bit trace id of one run of one case of one golden-set version (``run`` None: the case had
    no run)."""
    version = "" if golden_version is None else str(golden_version)
    return _nonzero(_digest("sourcegate-trace", golden_name, version, case, run_identity(run))[:16])


def span_id(trace: int, place: str) -> int:
    """The 64-bit id of the span at ``place`` in the trace ``trace``."""
    return _nonzero(_digest("sourcegate-span", f"{trace:032x}", place)[:8])


def search_place(index: int | None) -> str:
    """The place of the RETRIEVER span of the run's query at ``index`` (None: the results of no query)."""
    return f"search/{'unattributed' if index is None else index}"
