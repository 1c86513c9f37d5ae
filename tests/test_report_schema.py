"""The JSON report (also the baseline format) validates against ``gate/schemas/report.json``.

Checked on real output: the example set's report judged from its shipped cache and compared with its
shipped baseline, the same set with the judge off and no comparison, the shipped baseline itself,
and the hand-built regression report whose every block (judge summary, comparison, case warnings)
is filled in.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from gate.cli import main
from gate.errors import InputError
from gate.files.jsonio import load_json, validate
from gate.report.json import JsonReporter
from gate.store.serialise import report_from_dict
from tests.support.checked_once import checked
from tests.support.report_factory import regression_report

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "cached-snapshots" / "example"
SCHEMAS = ROOT / "gate" / "schemas"


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    twice = [k for k, n in Counter(k for k, _ in pairs).items() if n > 1]
    assert not twice, f"duplicate keys {twice}: json.load keeps only the last, silently"
    return dict(pairs)


@pytest.mark.parametrize("schema", sorted(p.name for p in SCHEMAS.glob("*.json")))
def test_no_schema_repeats_a_key(schema: str) -> None:
    json.loads((SCHEMAS / schema).read_text(encoding="utf-8"), object_pairs_hook=_no_duplicate_keys)


def test_the_example_report_with_its_comparison_validates(tmp_path: Path) -> None:
    code, out, _ = checked(EXAMPLE, tmp_path)  # judged in replay, the default, from the shipped cache
    assert code == 1
    data = load_json(str(out))
    validate(data, "report", str(out))
    assert "comparison" in data and "judge" in data
    assert all("judgement" in c and "warnings" in c for c in data["cases"])


def test_the_example_report_without_judge_or_baseline_validates(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    main(["check", str(EXAMPLE), "--judge", "off", "--baseline", str(EXAMPLE / "baseline.json"),
          "--json", str(out)])
    validate(load_json(str(out)), "report", str(out))
    bare = tmp_path / "bare.json"
    main(["check", *sorted(str(p) for p in (EXAMPLE / "runs").glob("*.json")), "--judge", "off",
          "--json", str(bare)])
    data = load_json(str(bare))
    validate(data, "report", str(bare))
    assert "comparison" not in data and "judge" not in data


def test_the_shipped_baseline_validates() -> None:
    file = EXAMPLE / "baseline.json"
    data = load_json(str(file))
    validate(data, "report", str(file))
    assert data["baseline"]["forced"] is True


def test_a_report_with_every_block_filled_in_validates() -> None:
    data = json.loads(JsonReporter().render(regression_report()))
    validate(data, "report", "regression")
    assert data["comparison"]["figures"] and any(c["warnings"] for c in data["cases"])


def test_a_report_that_breaks_the_schema_is_refused() -> None:
    data = json.loads(JsonReporter().render(regression_report()))
    data["cases"][-1]["warnings"][0]["kind"] = "not_a_warning"
    with pytest.raises(InputError):
        validate(data, "report", "tampered")


def test_a_case_s_attempts_are_written_only_when_its_trace_records_some_and_read_back() -> None:
    report = regression_report()
    data = json.loads(JsonReporter().render(report))
    validate(data, "report", "<report>")
    by_id = {c["id"]: c for c in data["cases"]}
    assert [a.get("kept", False) for a in by_id["gamma"]["attempts"]] == [False, True]
    assert "attempts" not in by_id["alpha"]  # a report without them is what it always was
    back = {c.id: c for c in report_from_dict(data).cases}
    assert back["gamma"].attempts == next(c for c in report.cases if c.id == "gamma").attempts
