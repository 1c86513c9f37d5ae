"""The shard bench's peak RSS is the measured command's own, not the bench process's."""

from __future__ import annotations

import sys

from tests.bench_shards import peak_of

MIB = 1024


def test_a_small_command_started_from_a_large_process_reports_its_own_peak() -> None:
    ballast = bytearray(300 * MIB * 1024)  # the bench process, large from the parts it wrote
    for i in range(0, len(ballast), 4096):
        ballast[i] = 1  # touched: resident, not just reserved
    _, kib = peak_of([sys.executable, "-c", "pass"])
    assert kib < 100 * MIB, f"an empty interpreter reported {kib / MIB:.0f} MiB"
    del ballast


def test_a_large_command_reports_its_peak() -> None:
    fill = "b = bytearray(200 * 1024 * 1024); b[::4096] = b'x' * len(b[::4096])"
    seconds, kib = peak_of([sys.executable, "-c", fill])
    assert kib >= 200 * MIB and seconds > 0
