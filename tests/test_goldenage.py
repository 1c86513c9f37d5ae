"""The golden set's own age: its snapshot against its re-snapshot interval."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import yaml

from gate.cli import main
from gate.config import Config
from gate.model import Case, GoldenSet
from gate.verdict.goldenage import snapshot_age_warning
from tests.support.golden_factory import write_golden

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def golden(snapshot_at: str | None, every: float | None = None) -> GoldenSet:
    return GoldenSet("news", 1, (Case("a", "q"),), snapshot_at=snapshot_at, resnapshot_days=every)


def test_a_snapshot_older_than_its_interval_is_a_warning() -> None:
    warning = snapshot_age_warning(golden("2026-11-20T12:00:00Z", every=7), Config(), NOW)
    assert warning == ("the golden set's snapshot is 10 days old (snapshot_at 2026-11-20T12:00:00Z, re-snapshot "
                       "every 7 days): record a fresh snapshot as a new golden-set version")


def test_a_snapshot_within_its_interval_says_nothing() -> None:
    assert snapshot_age_warning(golden("2026-11-20T12:00:00Z", every=30), Config(), NOW) is None


def test_the_interval_comes_from_golden_yaml_else_the_configuration() -> None:
    assert snapshot_age_warning(golden("2026-11-20T12:00:00Z"), Config(), NOW) is None  # no interval anywhere
    assert snapshot_age_warning(golden("2026-11-20T12:00:00Z"), Config(resnapshot_days=7), NOW) is not None
    assert snapshot_age_warning(golden("2026-11-20T12:00:00Z", every=30), Config(resnapshot_days=7), NOW) is None


def test_no_snapshot_stamp_says_nothing() -> None:
    assert snapshot_age_warning(golden(None, every=1), Config(), NOW) is None


def test_sourcegate_check_reports_an_old_snapshot(tmp_path: Path) -> None:
    root = write_golden(tmp_path / "set", ["a"])
    data = yaml.safe_load((root / "golden.yaml").read_text())
    data.update(snapshot_at="2024-08-01T10:00:00Z", resnapshot_days=30)
    (root / "golden.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    out = tmp_path / "report.json"
    assert main(["check", str(root), "--json", str(out)]) == 0
    warnings = json.loads(out.read_text())["warnings"]
    assert any(w.startswith("the golden set's snapshot is ") and "re-snapshot every 30 days" in w for w in warnings)
