"""Fewer cases at a time: ``--case ID`` (a glob, repeatable) and ``--failed`` on ``check`` and ``run``.

A subset is never compared as if the other cases were removed from the baseline (docs/trust.md): it
is compared with the baseline's same cases, its report says which cases ran, it posts no comment and
it cannot become a baseline.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from gate.cli import main
from tests.support.run_golden import PLAN_ENV, faithful_plan, make_golden, scripted_agent

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "cached-snapshots" / "example"
WHO = "who-physical-activity-adults"
STORM = "storm-dervla-disruption"
EURO = "euro-adoption-after-2010"
SLOTS = "python-dataclass-slots"


def _report(file: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(file.read_text(encoding="utf-8"))
    return data


def test_case_runs_the_cases_it_names_compared_with_the_baselines_same_cases(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.json"
    assert main(["check", str(EXAMPLE), "--case", "who-*", "--case", EURO, "--json", str(out)]) == 1
    report = _report(out)
    assert [c["id"] for c in report["cases"]] == [EURO, WHO]  # the golden set's order
    assert report["subset"] == {"cases": [EURO, WHO], "total": 18, "asked": f"--case who-* --case {EURO}"}
    # The 16 other cases are not "removed": nothing is listed or decided as missing.
    assert "removed" not in report["comparison"] and "removed_results" not in report["comparison"]
    assert report["summary"]["hard_failures"] == 2
    assert report["reasons"][0].startswith("2 hard failures in 1 of 2 cases, 2 new since the baseline")
    assert any(w.startswith("a subset of the golden set: 2 of 18 case(s)") for w in report["warnings"])
    assert "2 of 18 cases (a subset)" in capsys.readouterr().out  # the verdict line says so


def test_failed_takes_the_cases_that_failed_in_the_previous_report(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    assert main(["check", str(EXAMPLE), "--json", str(out), "-q"]) == 1
    failed = {c["id"] for c in _report(out)["cases"] if c["hard_failures"]}
    assert len(failed) == 11
    assert main(["check", str(EXAMPLE), "--failed", "--json", str(out), "-q"]) == 1
    again = _report(out)
    assert {c["id"] for c in again["cases"]} == failed
    assert again["subset"]["asked"] == f"--failed: the case(s) that failed in {out}"


@pytest.mark.parametrize(("argv", "message"), [
    (["--failed"], "--failed reads the cases that failed from the report of the previous run: give that "
                   "report with --json FILE"),
    (["--failed", "--json", "{tmp}/none.json"], "no report here to take the failed cases from"),
    (["--case", "nope-*"], "--case 'nope-*' matches no case of the golden set"),
    (["--case", "who-physical-activity-adult"], "(did you mean 'who-physical-activity-adults'?)"),
    (["--case", WHO, "--comment"], "it posts no comment"),
    (["--case", WHO, "--shard", "1/2"], "a shard is a share of every case"),
    (["--case", WHO, "--failed"], "not allowed with argument"),
])
def test_a_subset_that_cannot_be_run_is_refused_before_anything_runs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    code = main(["check", str(EXAMPLE), *(a.replace("{tmp}", str(tmp_path)) for a in argv)])
    assert code == 2
    assert message in capsys.readouterr().err


def test_failed_refuses_a_report_where_nothing_failed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.json"
    assert main(["check", str(EXAMPLE), "--case", EURO, "--json", str(out), "-q"]) == 0
    assert main(["check", str(EXAMPLE), "--failed", "--json", str(out)]) == 2
    assert "no case failed in this report: nothing to run again" in capsys.readouterr().err


def test_a_subset_report_cannot_be_a_baseline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "r.json"
    assert main(["check", str(EXAMPLE), "--case", WHO, "--json", str(out), "-q"]) == 1
    assert main(["check", str(EXAMPLE), "--baseline", str(out)]) == 2
    assert "the report of a subset of the golden set's cases (--case, --failed): it cannot be a baseline" \
        in capsys.readouterr().err


def test_run_case_runs_the_agent_on_those_cases_and_keeps_the_other_traces(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    golden = make_golden(tmp_path / "set", [EURO, SLOTS])
    before = (golden / "runs" / f"{SLOTS}.json").read_bytes()
    monkeypatch.setenv(PLAN_ENV, json.dumps({EURO: faithful_plan(EURO)}))
    out = tmp_path / "r.json"
    assert main(["run", str(golden), "--case", "euro-*", "--check", "--judge", "off", "--json", str(out),
                 "-q", "--", *scripted_agent(tmp_path)]) == 0
    assert (golden / "runs" / f"{SLOTS}.json").read_bytes() == before  # not run, kept as it was
    assert _report(golden / "runs" / f"{EURO}.json")["replay"]["served"] is True
    report = _report(out)
    assert [c["id"] for c in report["cases"]] == [EURO] and report["subset"]["total"] == 2


def test_run_failed_reruns_the_cases_that_failed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    golden = make_golden(tmp_path / "set", [EURO, SLOTS])
    out = tmp_path / "r.json"
    shutil.copy(EXAMPLE / "runs" / f"{EURO}.json", golden / "runs" / f"{EURO}.json")
    monkeypatch.setenv(PLAN_ENV, json.dumps({EURO: {**faithful_plan(EURO), "exit": 1},
                                             SLOTS: faithful_plan(SLOTS)}))
    assert main(["run", str(golden), "--check", "--judge", "off", "--json", str(out), "-q", "--",
                 *scripted_agent(tmp_path)]) == 1
    assert [c["id"] for c in _report(out)["cases"] if c["hard_failures"]] == [EURO]
    monkeypatch.setenv(PLAN_ENV, json.dumps({EURO: faithful_plan(EURO)}))
    assert main(["run", str(golden), "--failed", "--check", "--judge", "off", "--json", str(out), "-q", "--",
                 *scripted_agent(tmp_path)]) == 0
    assert [c["id"] for c in _report(out)["cases"]] == [EURO]


def test_run_failed_needs_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    golden = make_golden(tmp_path / "set", [EURO])
    assert main(["run", str(golden), "--failed", "--", "true"]) == 2
    assert "--failed needs --check" in capsys.readouterr().err
