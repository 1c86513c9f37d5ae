"""Flat memory in ``make bench``: peak RSS of ``sourcegate check --json`` at 500, 2,000 and 8,000 runs.

Each check runs in one process of its own (``--jobs 1``; the workers of ``--jobs 2`` are measured by
``tests/bench_jobs.py``), started by a small parent that reads the child's peak
resident set (``RUSAGE_CHILDREN``), so the number is the check's alone. Measured twice: without a
baseline, and against a recorded baseline of the same cases (the usual pull request). The target:
the 8,000-run peak at most 1.5 times the 500-run one. ``SOURCEGATE_BENCH_MEMORY=0`` skips it in
``make bench``; run alone: ``python -m tests.bench_memory``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

from tests.support.bench_table import print_rows

SIZES = (500, 2000, 8000)
TARGET = 1.5

_CHILD = ("import resource, subprocess, sys; "
          "rc = subprocess.run([sys.executable, '-m', 'gate.cli', 'check', *sys.argv[1:]], "
          "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode; "
          "print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


def peak_rss(argv: list[str]) -> tuple[int, float]:
    """(exit code, peak RSS in MiB) of ``sourcegate check ARGV`` in a process of its own."""
    out = subprocess.run([sys.executable, "-c", _CHILD, *argv], capture_output=True, text=True, check=True)
    rc, kib = out.stdout.split()
    return int(rc), int(kib) / 1024


def measure(tmp: str, sizes: tuple[int, ...], page_chars: int) -> list[tuple[str, str, str]]:
    """Rows for the bench table: the peaks without and with a baseline, and their ratio."""
    from tests.bench import write_set

    plain: list[float] = []
    based: list[float] = []
    for n in sizes:
        root = os.path.join(tmp, f"set-{n}")
        write_set(root, n, page_chars)
        report = os.path.join(tmp, f"report-{n}.json")
        _, mib = peak_rss([root, "--judge", "off", "--json", report, "--jobs", "1"])
        plain.append(mib)
        baseline = os.path.join(tmp, f"baseline-{n}.json")
        shutil.copyfile(report, baseline)
        _, mib = peak_rss([root, "--judge", "off", "--json", report, "--baseline", baseline, "--jobs", "1"])
        based.append(mib)
        shutil.rmtree(root)
    label = " / ".join(f"{n:,}" for n in sizes)
    return [(f"peak RSS {label} runs{what}", " / ".join(f"{m:.0f}" for m in peaks) + " MiB",
             f"C/A = {peaks[-1] / peaks[0]:.2f} (target <= {TARGET})")
            for what, peaks in (("", plain), (", with a baseline", based))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default=",".join(str(n) for n in SIZES))
    ap.add_argument("--page-chars", type=int, default=2000)
    args = ap.parse_args(argv)
    sizes = tuple(int(n) for n in args.sizes.split(","))
    with tempfile.TemporaryDirectory(prefix="sourcegate-bench-memory-") as tmp:
        print(f"checking {', '.join(f'{n:,}' for n in sizes)} synthetic runs for peak memory...", flush=True)
        rows = measure(tmp, sizes, args.page_chars)
    print_rows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
