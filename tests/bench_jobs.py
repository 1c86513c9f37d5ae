"""Every core in ``make bench``: ``sourcegate check --jobs 2`` against ``--jobs 1`` on the same set.

Each check runs as a command of its own (judge off, the JSON report written), one after the other
in one run of the bench. While it runs, the bench reads the peak resident set (``VmHWM`` in
``/proc``) of the check's process and of every process it started, every 20 ms: the parent's peak
and each worker's, so "memory flat per worker" is a number. Linux only (elsewhere the memory
columns say so). Run alone: ``python -m tests.bench_jobs --runs 2000``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from tests.support.bench_table import synthetic_main

POLL = 0.02


def _children(pid: int) -> list[int]:
    found = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as f:
                found += [int(c) for c in f.read().split()]
    except OSError:
        return []
    return found


def _tree(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += _children(p)
    return out


def _peak_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def measured(argv: list[str]) -> tuple[float, int, int, int]:
    """(wall seconds, exit code, the command's own peak RSS in KiB, the largest peak of a process it
    started, in KiB) of ``sourcegate ARGV`` run as a command of its own."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "gate.cli", *argv],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peaks: dict[int, int] = {}
    while proc.poll() is None:
        for pid in _tree(proc.pid):
            peaks[pid] = max(peaks.get(pid, 0), _peak_kib(pid))
        time.sleep(POLL)
    seconds = time.perf_counter() - t0
    own = peaks.pop(proc.pid, 0)
    return seconds, proc.returncode, own, max(peaks.values(), default=0)


def rows(root: str, out: str) -> list[tuple[str, str, str]]:
    """Rows for the bench table: ``--jobs 1`` and ``--jobs 2`` on ``root``, and the speed-up."""
    n = sum(1 for _ in os.scandir(os.path.join(root, "runs")))
    linux = os.path.isdir("/proc/self/task")
    done = {}
    for jobs in (1, 2):
        report = os.path.join(out, f"jobs-{jobs}.json")
        done[jobs] = measured(["check", root, "--judge", "off", "--json", report, "-q", "--jobs", str(jobs)])
    with open(os.path.join(out, "jobs-1.json"), "rb") as a, open(os.path.join(out, "jobs-2.json"), "rb") as b:
        same = a.read() == b.read()

    def memory(own: int, worker: int) -> str:
        if not linux:
            return "peak RSS not measured (no /proc)"
        return f"peak RSS {own / 1024:.0f} MiB" + (f", each worker at most {worker / 1024:.0f} MiB" if worker else "")

    (t1, c1, own1, _), (t2, c2, own2, worker2) = done[1], done[2]
    load = f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    return [
        ("check --jobs 1", f"{t1:.2f} s", f"{n} runs, judge off, one process; {memory(own1, 0)}"),
        ("check --jobs 2", f"{t2:.2f} s", f"two worker processes; {memory(own2, worker2)}"),
        ("speed-up of --jobs 2 over --jobs 1", f"{t1 / t2:.2f}x",
         f"the same report byte for byte: {same and c1 == c2}; {load}"),
    ]


def main(argv: list[str] | None = None) -> int:
    """Write a synthetic set and print the rows."""
    return synthetic_main(__doc__ or "", argv, 2000, 15000, rows)


if __name__ == "__main__":
    sys.exit(main())
