"""Reports of golden sets that no test changes (the shipped example set, a set a test module shares),
as ``sourcegate check`` and ``sourcegate merge`` write them: each run once per process, then written
into the folder of every test that asks, where the test may change its own copy.

A report depends only on the command line (every path in it absolute) and on the golden set, so the
text one run wrote is the text any other would write; the baseline's age (``age_days``), read off
the clock, is the one exception, and tests that compare reports leave it out.
"""

from __future__ import annotations

import tempfile
from functools import cache
from pathlib import Path

from gate.cli import main

__all__ = ["checked", "merged_shards", "shards"]


@cache
def _written(argv: tuple[str, ...], outputs: tuple[str, ...]) -> tuple[int, tuple[str, ...]]:
    """``sourcegate *argv`` with a file of its own after each flag of ``outputs``, run in a folder of
    its own that is removed after: the exit code and the files' texts."""
    with tempfile.TemporaryDirectory(prefix="checked-once-") as folder:
        files = [Path(folder) / f"out-{i}" for i in range(len(outputs))]
        code = main([*argv, *(arg for flag, file in zip(outputs, files, strict=True) for arg in (flag, str(file)))])
        return code, tuple(file.read_text(encoding="utf-8") for file in files)


def checked(golden: Path, out: Path, *flags: str) -> tuple[int, Path, Path]:
    """``check golden *flags``, whole: its exit code, and its JSON and markdown reports written into
    ``out`` as ``full.json`` and ``full.md``."""
    code, (text, markdown) = _written(("check", str(golden), *flags), ("--json", "--markdown"))
    json_file, markdown_file = out / "full.json", out / "full.md"
    json_file.write_text(text, encoding="utf-8")
    markdown_file.write_text(markdown, encoding="utf-8")
    return code, json_file, markdown_file


def shards(golden: Path, out: Path, count: int) -> list[Path]:
    """``check golden --shard i/count`` for each shard (each must pass), its partial report written
    into ``out`` as ``shard-i.json``."""
    files = []
    for i in range(1, count + 1):
        code, (text,) = _written(("check", str(golden), "--shard", f"{i}/{count}"), ("--json",))
        assert code == 0, f"shard {i}/{count} of {golden} exited {code}"
        file = out / f"shard-{i}.json"
        file.write_text(text, encoding="utf-8")
        files.append(file)
    return files


@cache
def merged_shards(golden: Path, count: int) -> tuple[int, str]:
    """``merge golden`` of its ``count`` shards (:func:`shards`): the exit code and the merged JSON report."""
    with tempfile.TemporaryDirectory(prefix="merged-once-") as folder:
        files = shards(golden, Path(folder), count)
        out = Path(folder) / "merged.json"
        code = main(["merge", str(golden), *map(str, files), "--json", str(out)])
        return code, out.read_text(encoding="utf-8")
