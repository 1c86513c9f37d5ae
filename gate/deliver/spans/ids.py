"""Trace and span ids derived from what a run is, so the same run always gets the same ids.

A trace id is a hash of the golden set (name and version) and the case id; a span id is a hash of
the trace id and the span's place in the tree (``search/2``, ``fetch/0``). Exporting the same
golden set twice gives the same ids, so a tracing tool shows one trace per case, not one per run
of the gate. Neither id is ever all zeros (OpenTelemetry treats zero as "no id").
"""

from __future__ import annotations

import hashlib

__all__ = ["span_id", "trace_id"]


def _digest(*parts: str) -> bytes:
    return hashlib.sha256("\x00".join(parts).encode("utf-8")).digest()


def _nonzero(raw: bytes) -> int:
    value = int.from_bytes(raw, "big")
    return value or 1


def trace_id(golden_name: str, golden_version: int | None, case: str) -> int:
    """The 128-bit trace id of one case of one golden-set version."""
    version = "" if golden_version is None else str(golden_version)
    return _nonzero(_digest("sourcegate-trace", golden_name, version, case)[:16])


def span_id(trace: int, place: str) -> int:
    """The 64-bit id of the span at ``place`` in the trace ``trace``."""
    return _nonzero(_digest("sourcegate-span", f"{trace:032x}", place)[:8])
