"""Run ``python -m gate`` with one of its streams on a pseudo-terminal, as a person's terminal would be."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def gate_under_pty(argv: list[str], env: dict[str, str], stream: str = "stdout",
                   errors: str = "strict") -> tuple[str, int]:
    """Run ``python -m gate ARGV`` with ``stream`` (``stdout`` or ``stderr``) on a pseudo-terminal and the
    other discarded; (what it wrote on the terminal, with ``\\r\\n`` read as ``\\n``, and the exit code).
    ``errors`` is how bytes that are not UTF-8 are decoded (strict: they fail the test)."""
    primary, secondary = pty.openpty()
    streams = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, stream: secondary}
    proc = subprocess.Popen([sys.executable, "-m", "gate", *argv], stdout=streams["stdout"],
                            stderr=streams["stderr"], stdin=subprocess.DEVNULL, cwd=ROOT, env=env)
    os.close(secondary)
    chunks = []
    while True:
        ready, _, _ = select.select([primary], [], [], 120)
        if not ready:
            proc.kill()
            break
        try:
            data = os.read(primary, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(primary)
    proc.wait(timeout=120)
    return b"".join(chunks).decode("utf-8", errors).replace("\r\n", "\n"), proc.returncode
