"""Quantities written for a reader."""

from __future__ import annotations

__all__ = ["byte_size"]


def byte_size(count: int) -> str:
    """``count`` bytes for a reader: ``4,096 bytes``, ``524,288,000 bytes (500 MiB)``."""
    if count < 1024 * 1024:
        return f"{count:,} bytes"
    return f"{count:,} bytes ({count / (1024 * 1024):,.0f} MiB)"
