"""The table every benchmark prints: a measure, its value, and a note on what it means."""

from __future__ import annotations

from collections.abc import Sequence


def print_rows(rows: Sequence[tuple[str, str, str]], value_width: int = 22) -> None:
    """Print (measure, value, note) rows, the measures padded to the longest one."""
    width = max(len(r[0]) for r in rows)
    for name, value, note in rows:
        print(f"{name:<{width}}  {value:>{value_width}}  {note}")
