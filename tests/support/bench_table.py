"""The table every benchmark prints: a measure, its value, and a note on what it means."""

from __future__ import annotations

import argparse
import os
import tempfile
from collections.abc import Callable, Sequence


def print_rows(rows: Sequence[tuple[str, str, str]], value_width: int = 22) -> None:
    """Print (measure, value, note) rows, the measures padded to the longest one."""
    width = max(len(r[0]) for r in rows)
    for name, value, note in rows:
        print(f"{name:<{width}}  {value:>{value_width}}  {note}")


def synthetic_main(doc: str, argv: list[str] | None, runs: int, page_chars: int,
                   rows: Callable[[str, str], Sequence[tuple[str, str, str]]]) -> int:
    """A benchmark run alone: ``--runs`` synthetic runs of ``--page-chars`` characters a page written to a
    temporary folder (``tests.bench.write_set``), ``rows(set folder, temporary folder)`` printed."""
    from tests.bench import write_set

    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--runs", type=int, default=runs)
    ap.add_argument("--page-chars", type=int, default=page_chars)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="sourcegate-bench-") as tmp:
        root = os.path.join(tmp, "set")
        print(f"writing {args.runs} synthetic runs...", flush=True)
        write_set(root, args.runs, args.page_chars)
        table = rows(root, tmp)
    print_rows(table)
    return 0
