"""Compile the suite's sources once, shared by every pytest-xdist worker, before they are imported.

pytest rewrites the ``assert`` statements of each test module before importing it, and Python
compiles every other module; both keep the result beside the source (``__pycache__``). Every
worker imports every test module, and every process the tests start imports the package, so on
a fresh clone, or wherever ``PYTHONDONTWRITEBYTECODE`` is set, each of them would redo all of
that work (about 7 s of rewriting per worker, and half a second for each fresh ``sourcegate``).

:func:`compile_sources` writes what is missing or out of date, the same files pytest and Python
would write. Each worker starts at its own place in the list and skips what another worker has
already written, so the workers share the work instead of repeating it; the collection and the
processes started later read the result. The files are written whole under a temporary name and
renamed, as pytest and ``py_compile`` do, so a reader never sees half a file.
"""

from __future__ import annotations

import importlib.util
import os
import py_compile
from collections.abc import Sequence
from pathlib import Path

import pytest

try:  # pytest's own rewriting and cache format (the cache is keyed by the source's hash)
    from _pytest.assertion.rewrite import PYC_TAIL, _rewrite_test, _write_pyc, assertstate_key, get_cache_dir
except ImportError:  # another pytest: it rewrites as it collects, as it always did
    _rewrite_test = None  # type: ignore[assignment]

ROOT = Path(__file__).resolve().parents[2]
#: Rewritten by pytest as test modules (its default ``python_files``).
TEST_GLOBS = ("test_*.py", "*_test.py")
#: Compiled as ordinary modules: the package and the tests' helpers.
MODULE_DIRS = ("gate", "tests/support")
_FLAGS = b"\x03\x00\x00\x00"  # a checked-hash pyc (PEP 552), what pytest writes


def compile_sources(config: pytest.Config, worker: int = 0, workers: int = 1) -> int:
    """Write the compiled form of every source not yet compiled; return how many were written."""
    tests = _in_turn(_test_modules(ROOT / "tests"), worker, workers)
    modules = _in_turn(sorted(p for d in MODULE_DIRS for p in (ROOT / d).rglob("*.py")), worker, workers)
    written = 0
    if _rewrite_test is not None:
        state = config.stash[assertstate_key]
        for path in tests:
            pyc = get_cache_dir(path) / (path.name[:-3] + PYC_TAIL)
            source = path.read_bytes()
            if not _is_current(pyc, importlib.util.source_hash(source)):
                try:
                    pyc.parent.mkdir(exist_ok=True)
                    source_hash, code = _rewrite_test(path, config)
                except (OSError, SyntaxError, ValueError):
                    continue  # left to the collection, which reports it against the module
                written += _write_pyc(state, code, source_hash, pyc)
    for path in modules:
        cfile = importlib.util.cache_from_source(str(path))
        if not _is_compiled(path, Path(cfile)):
            mode = py_compile.PycInvalidationMode.TIMESTAMP
            written += py_compile.compile(str(path), cfile=cfile, quiet=2, invalidation_mode=mode) is not None
    return written


def runs_tests(config: pytest.Config) -> bool:
    """False in the xdist controller, which starts the workers and imports no test module."""
    return hasattr(config, "workerinput") or config.getoption("dist", "no") == "no"


def worker_place() -> tuple[int, int]:
    """This process's index among the xdist workers and their number (0 of 1 when serial)."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "")
    count = os.environ.get("PYTEST_XDIST_WORKER_COUNT", "")
    if name.startswith("gw") and name[2:].isdigit() and count.isdigit() and int(count) > 0:
        return int(name[2:]) % int(count), int(count)
    return 0, 1


def _test_modules(tests: Path) -> list[Path]:
    return sorted({p for pattern in TEST_GLOBS for p in tests.rglob(pattern) if "__pycache__" not in p.parts})


def _in_turn(paths: Sequence[Path], worker: int, workers: int) -> list[Path]:
    """The paths starting at this worker's share, wrapping round: workers meet rather than repeat."""
    start = len(paths) * worker // workers
    return [*paths[start:], *paths[:start]]


def _is_current(pyc: Path, source_hash: bytes) -> bool:
    try:
        with pyc.open("rb") as fh:
            head = fh.read(16)
    except OSError:
        return False
    return head[:4] == importlib.util.MAGIC_NUMBER and head[4:8] == _FLAGS and head[8:16] == source_hash[:8]


def _is_compiled(source: Path, pyc: Path) -> bool:
    """What the import system checks for a timestamp pyc: magic, mtime and size of the source."""
    try:
        with pyc.open("rb") as fh:
            head = fh.read(16)
        st = source.stat()
    except OSError:
        return False
    return (
        head[:4] == importlib.util.MAGIC_NUMBER
        and head[4:8] == b"\x00\x00\x00\x00"
        and int.from_bytes(head[8:12], "little") == int(st.st_mtime) & 0xFFFFFFFF
        and int.from_bytes(head[12:16], "little") == st.st_size & 0xFFFFFFFF
    )
