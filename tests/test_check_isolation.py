"""A check that raises on one run is a reported ``check_error`` for that case, not an aborted set.

The failing check is registered like any other (the registry is passed in, nothing is patched):
the other checks of that run and every other case still run, the report is complete and valid,
and the set's exit code is 4 (our bug), never a pass.
"""

from __future__ import annotations

import json
from pathlib import Path

from gate.checks import CHECKS, Subject
from gate.exitcodes import ExitCode
from gate.files.jsonio import validate
from gate.model import Outcome
from gate.pipeline import SetRequest, run_set
from gate.report.json import JsonReporter
from gate.results import CHECK_ERROR
from gate.verdict.report import report_exit

GOOD = Path(__file__).parent / "fixtures" / "runs" / "no_citations" / "passes" / "cites-sources.json"


class Fragile:
    """A check with a bug that shows on one case only."""

    id = "fragile"
    description = "raises on case a"

    def run(self, subject: Subject) -> Outcome:
        if subject.case.id == "a":
            raise RuntimeError("index out of range in the fragile check")
        return Outcome()


def _golden_set(tmp_path: Path) -> Path:
    root = tmp_path / "set"
    (root / "runs").mkdir(parents=True)
    (root / "golden.yaml").write_text("version: 1\nname: t\ncases:\n  - {id: a, question: q}\n"
                                      "  - {id: b, question: q}\n")
    for case in ("a", "b"):
        data = json.loads(GOOD.read_text())
        data["case"] = case
        (root / "runs" / f"{case}.json").write_text(json.dumps(data))
    return root


def test_a_raising_check_is_a_check_error_of_its_case_and_the_rest_still_runs(tmp_path: Path) -> None:
    checks = {**CHECKS, Fragile.id: Fragile()}
    report = run_set(SetRequest((str(_golden_set(tmp_path)),), judge_mode="off"), checks=checks)
    a, b = report.cases
    [error] = a.hard_failures
    assert error.check == CHECK_ERROR
    assert "fragile check raised RuntimeError: index out of range" in error.message
    assert {s.check for s in a.checks} == set(checks)  # every other check ran on that run too
    assert b.hard_failures == () and {s.check: s.status for s in b.checks}[Fragile.id] == "pass"
    assert report.check_errors == (error,)
    assert report.verdict == "fail"  # never a pass
    assert report_exit(report) == ExitCode.INTERNAL


def test_the_report_with_a_check_error_is_complete_and_valid(tmp_path: Path) -> None:
    report = run_set(SetRequest((str(_golden_set(tmp_path)),), judge_mode="off"),
                     checks={**CHECKS, Fragile.id: Fragile()})
    data = json.loads(JsonReporter().render(report))
    validate(data, "report", "report.json")
    assert [c["id"] for c in data["cases"]] == ["a", "b"]
    assert data["cases"][0]["hard_failures"][0]["check"] == CHECK_ERROR


def test_without_a_raising_check_the_exit_code_is_the_verdicts(tmp_path: Path) -> None:
    report = run_set(SetRequest((str(_golden_set(tmp_path)),), judge_mode="off"))
    assert report.check_errors == () and report_exit(report) == ExitCode.PASS
