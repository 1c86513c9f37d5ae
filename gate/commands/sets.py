"""Running a command over several golden sets: each set guarded on its own, the most severe code wins."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from functools import partial

from gate.errors import guarded
from gate.exitcodes import combined_exit
from gate.load.goldensets import GoldenSetPaths

__all__ = ["each_set"]


def each_set(sets: Sequence[GoldenSetPaths], run: Callable[[GoldenSetPaths], int], command: str) -> int:
    """Run every set (an error in one is its own exit code); the whole run's code is the most severe."""
    several = len(sets) > 1
    codes = [guarded(partial(run, s), f"golden set {s.label!r}: " if several else "") for s in sets]
    if several:
        listed = ", ".join(f"{s.label} (exit {c})" for s, c in zip(sets, codes, strict=True))
        print(f"sourcegate: {command} ran {len(sets)} golden sets: {listed}; exit {combined_exit(codes)}",
              file=sys.stderr)
    return combined_exit(codes)
