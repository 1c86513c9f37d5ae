"""The example set's snapshot stays in sync with its runs: covered, and exactly what a build writes."""

from __future__ import annotations

import shutil
from pathlib import Path

from gate.snapshot.build import build, runs_of
from gate.snapshot.store import SnapshotStore
from gate.snapshot.verify import render, verify

EXAMPLE = Path(__file__).parent.parent / "cached-snapshots" / "example"
SNAPSHOT = EXAMPLE / "snapshot"
REBUILD = ("the example runs changed: run `sourcegate snapshot build cached-snapshots/example` "
           "and commit snapshot/")


def _entries(folder: Path) -> dict[str, bytes]:
    return {str(f.relative_to(folder)): f.read_bytes() for f in sorted(folder.rglob("*.json"))}


def test_the_example_snapshot_covers_every_run() -> None:
    coverage = verify(runs_of(str(EXAMPLE)), SnapshotStore(str(SNAPSHOT)).index())
    assert len(coverage.cases) == 18
    assert coverage.covered, f"{REBUILD}\n{render(coverage, str(SNAPSHOT))}"


def test_the_example_snapshot_is_exactly_what_a_build_writes(tmp_path: Path) -> None:
    shutil.copy(EXAMPLE / "golden.yaml", tmp_path / "golden.yaml")
    shutil.copytree(EXAMPLE / "runs", tmp_path / "runs")
    result = build(str(tmp_path))
    assert result.notes == ()
    fresh, committed = _entries(tmp_path / "snapshot"), _entries(SNAPSHOT)
    assert sorted(fresh) == sorted(committed), f"{REBUILD} (files differ)"
    changed = [name for name in fresh if fresh[name] != committed[name]]
    assert not changed, f"{REBUILD} (content differs: {changed[:5]})"


def test_the_example_snapshot_stays_small() -> None:
    total = sum(f.stat().st_size for f in SNAPSHOT.rglob("*") if f.is_file())
    assert total < 1_000_000, f"{total} bytes"
