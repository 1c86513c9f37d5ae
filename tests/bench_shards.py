"""Shards in ``make bench``: one golden set checked whole, against 4 shards and their merge.

On a CI matrix the shards run side by side, so the wall time is the slowest shard plus the merge.
Here they run one after another on this machine and each is timed alone. Every shard reads and
validates every trace (to learn each case's id and the run's order) and checks only its own; the
merge reads the partial reports only. Run alone: ``python -m tests.bench_shards --runs 8000``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import tempfile
import time
from datetime import UTC, datetime

from gate.cli import main as cli
from gate.mergerun import MergeRequest, merged_report

SHARDS = 4


def _timed(argv: list[str]) -> tuple[float, int]:
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = cli(argv)
    return time.perf_counter() - t0, code


def measure(root: str, out: str) -> list[tuple[str, str, str]]:
    """Rows for the bench table: whole run, slowest shard, merge, and that the reports agree."""
    whole = os.path.join(out, "whole.json")
    t_whole, code_whole = _timed(["check", root, "--judge", "off", "--json", whole])
    parts, times = [], []
    for i in range(1, SHARDS + 1):
        part = os.path.join(out, f"shard-{i}.json")
        t, code = _timed(["check", root, "--judge", "off", "--shard", f"{i}/{SHARDS}", "--json", part])
        if code != 0:
            raise SystemExit(f"shard {i}/{SHARDS} exited {code}")
        parts.append(part)
        times.append(t)
    merged = os.path.join(out, "merged.json")
    t_merge, code_merge = _timed(["merge", root, *parts, "--json", merged])
    t0 = time.perf_counter()
    merged_report(MergeRequest(root, tuple(parts)), now=datetime.now(UTC))
    t_cases = time.perf_counter() - t0
    with open(whole, encoding="utf-8") as a, open(merged, encoding="utf-8") as b:
        same = a.read() == b.read() and code_whole == code_merge
    n = sum(1 for _ in os.scandir(os.path.join(root, "runs")))
    return [
        ("one job, whole set", f"{t_whole:.2f} s", f"{n} runs, judge off"),
        (f"{SHARDS} shards + merge, wall time", f"{max(times) + t_merge:.2f} s",
         f"slowest shard {max(times):.2f} s (shards {', '.join(f'{t:.2f}' for t in times)}) + merge"),
        ("merge alone", f"{t_merge:.2f} s", f"{n} cases; target < 2 s for 8,000; report identical: {same}"),
        ("  of which read, check, merge, decide", f"{t_cases:.2f} s",
         "the partial reports read and every case checked, merged, compared and decided (no report written)"),
    ]


def main(argv: list[str] | None = None) -> int:
    from tests.bench import write_set

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=8000)
    ap.add_argument("--page-chars", type=int, default=2000)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="sourcegate-bench-shards-") as tmp:
        root = os.path.join(tmp, "set")
        print(f"writing {args.runs} synthetic runs for the shards...", flush=True)
        write_set(root, args.runs, args.page_chars)
        rows = measure(root, tmp)
    width = max(len(r[0]) for r in rows)
    for name, value, note in rows:
        print(f"{name:<{width}}  {value:>22}  {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
