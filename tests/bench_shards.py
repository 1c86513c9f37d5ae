"""Shards in ``make bench``: one golden set checked whole, against 4 shards and their merge.

On a CI matrix the shards run side by side, so the wall time is the slowest shard plus the merge.
Here they run one after another on this machine and each is timed alone. Every shard reads and
validates every trace (to learn each case's id and the run's order) and checks only its own; the
merge reads the partial reports, then checks every case again from its trace (a partial report is
another job's claim: ``gate/store/rederive.py``), which is the work of a judge-off check of the
whole set. Run alone: ``python -m tests.bench_shards --runs 8000``.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import time
from datetime import UTC, datetime

from gate.cli import main as cli
from gate.pipeline import MergeRequest, merged_report
from tests.support.bench_table import synthetic_main

SHARDS = 4
REPEAT = 3
"""How many times the merge is timed."""


def _timed(argv: list[str]) -> tuple[float, int]:
    t0 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = cli(argv)
    return time.perf_counter() - t0, code


def measure(root: str, out: str) -> list[tuple[str, str, str]]:
    """Rows for the bench table: whole run, slowest shard, merge, and that the reports agree."""
    whole = os.path.join(out, "whole.json")
    # One process each (--jobs 1): a matrix job is the unit here; bench_jobs measures the cores of one.
    t_whole, code_whole = _timed(["check", root, "--judge", "off", "--json", whole, "--jobs", "1"])
    parts, times = [], []
    for i in range(1, SHARDS + 1):
        part = os.path.join(out, f"shard-{i}.json")
        t, code = _timed(["check", root, "--judge", "off", "--shard", f"{i}/{SHARDS}", "--json", part,
                          "--jobs", "1"])
        if code != 0:
            raise SystemExit(f"shard {i}/{SHARDS} exited {code}")
        parts.append(part)
        times.append(t)
    merged = os.path.join(out, "merged.json")
    t_merge, code_merge = _timed(["merge", root, *parts, "--json", merged])
    with open(whole, encoding="utf-8") as a, open(merged, encoding="utf-8") as b:
        same = a.read() == b.read() and code_whole == code_merge
    n = sum(1 for _ in os.scandir(os.path.join(root, "runs")))
    return [
        ("one job, whole set", f"{t_whole:.2f} s", f"{n} runs, judge off"),
        (f"{SHARDS} shards + merge, wall time", f"{max(times) + t_merge:.2f} s",
         f"slowest shard {max(times):.2f} s (shards {', '.join(f'{t:.2f}' for t in times)}) + merge"),
        *merge_rows(root, parts, out, n, same),
    ]


def _spread(values: list[float]) -> str:
    return f"{min(values):.2f} s" if max(values) - min(values) < 0.005 else f"{min(values):.2f}-{max(values):.2f} s"


def merge_rows(root: str, parts: list[str], out: str, n: int, same: bool | None = None,
               repeat: int = REPEAT) -> list[tuple[str, str, str]]:
    """The merge timed ``repeat`` times: in this process (wall and CPU time), its read, check, merge and
    decide alone, and as a command of its own (wall time with the interpreter's start, peak RSS)."""
    merged = os.path.join(out, "merged.json")
    walls, cpus, read_walls, read_cpus, cmd_walls, rss = [], [], [], [], [], []
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        _timed(["merge", root, *parts, "--json", merged])
        w1, c1 = time.perf_counter(), time.process_time()
        merged_report(MergeRequest(root, tuple(parts)), now=datetime.now(UTC))
        w2, c2 = time.perf_counter(), time.process_time()
        walls.append(w1 - w0)
        cpus.append(c1 - c0)
        read_walls.append(w2 - w1)
        read_cpus.append(c2 - c1)
        wall, peak = _command(["merge", root, *parts, "--json", merged])
        cmd_walls.append(wall)
        rss.append(peak)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    agree = "" if same is None else f"; report identical: {same}"
    return [
        ("merge alone", _spread(walls),
         f"{n} cases, {repeat} runs, CPU {_spread(cpus)}; about one judge-off job of the set{agree}"),
        ("  of which read, check, merge, decide", _spread(read_walls),
         f"CPU {_spread(read_cpus)}: the partial reports read a case at a time, each case checked once "
         "and again from its trace, merged, compared and decided (no report written)"),
        ("  as a command of its own", _spread(cmd_walls),
         f"with the interpreter's start; peak RSS {max(rss) / 1024:.0f} MiB; load average {load}"),
    ]


_LAUNCHER = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
             "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
             "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
"""Runs the command given in its arguments and prints its wall time and peak RSS (KiB)."""


def peak_of(command: list[str]) -> tuple[float, int]:
    """Wall time and peak RSS (KiB) of ``command``, started by a small launcher of its own.

    A child's ``ru_maxrss`` counts the memory of the process it was forked from until it execs, so
    a command started straight from the bench process would be charged the bench's own size (the
    parts written and read above). The launcher is a fresh interpreter: its size is what is counted
    before the command's exec, below any command it starts."""
    out = subprocess.run([sys.executable, "-c", _LAUNCHER, *command],  # noqa: S603 (our own launcher)
                         capture_output=True, text=True, check=True)
    seconds, kib = out.stdout.split()
    return float(seconds), int(kib)


def _command(argv: list[str]) -> tuple[float, int]:
    """Wall time and peak RSS (KiB) of ``sourcegate ARGV`` in a process of its own."""
    return peak_of([sys.executable, "-m", "gate", *argv])


def main(argv: list[str] | None = None) -> int:
    """Write a synthetic set and print the rows."""
    return synthetic_main(__doc__ or "", argv, 8000, 2000, measure)


if __name__ == "__main__":
    sys.exit(main())
