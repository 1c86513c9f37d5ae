"""The case store: a report's cases in a file past a few hundred, read back one at a time.

Whichever way the cases are kept, every reporter gives the same text: the JSON report byte for
byte (its cases are copied from the file as written), the markdown, comment, summary, JUnit and
terminal reports from the cases read back. The file has no name to leave behind.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest

import gate.store.casestore
from gate.cli import main
from gate.files.jsonio import load_json
from gate.files.outputs import write_file
from gate.pipeline import SetRequest, run_set
from gate.report.registry import REPORTERS
from gate.results import CaseResult
from gate.store.casestore import CaseStore
from gate.store.serialise import case_record, dump_report
from gate.verdict.compare import BaselineOrigin, compare
from gate.verdict.decide import decide
from gate.verdict.report import Report
from gate.verdict.tally import tally
from tests.support.report_factory import CONFIG, regression_pair, regression_report

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "cached-snapshots" / "example"


def _spilled(report: Report) -> Report:
    store = CaseStore.collect(iter(report.cases), in_memory=0)
    assert store.spilled
    return replace(report, cases=store)


@pytest.fixture
def temp_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The OS temp folder, for this test: where a spill file would be seen."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def test_a_spilled_store_reads_back_the_same_cases(temp_dir: Path) -> None:
    cases = tuple(regression_report().cases)
    store = CaseStore.collect(iter(cases), in_memory=1)
    assert store.spilled and len(store) == len(cases)
    assert tuple(store) == cases and store == cases and cases == store
    assert store[0] == cases[0] and store[-1] == cases[-1] and store[1:3] == cases[1:3]
    with pytest.raises(IndexError):
        store[len(cases)]
    assert list(store.records()) == [case_record(c) for c in cases]
    assert store.tally == tally(cases)
    assert os.listdir(temp_dir) == []  # unlinked as soon as it was made


def test_a_small_set_stays_in_memory() -> None:
    cases = tuple(regression_report().cases)
    store = CaseStore.collect(iter(cases))
    assert not store.spilled and tuple(store) == cases and store.tally == tally(cases)


@pytest.mark.parametrize("name", ["json", "markdown", "comment", "summary", "junit", "terminal"])
def test_every_reporter_gives_the_same_text_from_a_spilled_report(name: str) -> None:
    report = regression_report()
    reporter = REPORTERS[name].make("https://ci.example/run/1")
    assert reporter.render(_spilled(report)) == reporter.render(report)


def test_the_comparison_and_the_decision_are_the_same_from_a_store() -> None:
    baseline, current = regression_pair()
    origin = BaselineOrigin(file="baseline.json")
    now = datetime(2026, 2, 1, tzinfo=UTC)
    spilled = _spilled(current)
    cmp = compare(baseline, current, CONFIG, origin, now)
    assert compare(baseline, spilled, CONFIG, origin, now) == cmp
    assert decide(spilled.cases, CONFIG, cmp) == decide(current.cases, CONFIG, cmp)
    assert decide(spilled.cases, CONFIG) == decide(current.cases, CONFIG)


def test_a_failing_run_leaves_no_spill_file(temp_dir: Path) -> None:
    cases = tuple(regression_report().cases)

    def broken() -> Iterator[CaseResult]:
        yield from cases
        raise RuntimeError("a check's bug")

    with pytest.raises(RuntimeError):
        CaseStore.collect(broken(), in_memory=1)
    assert os.listdir(temp_dir) == []


@pytest.mark.parametrize("judge", ["replay", "off"])
def test_the_example_set_s_reports_are_the_same_spilled_or_not(judge: str, monkeypatch: pytest.MonkeyPatch) -> None:
    request = SetRequest((str(EXAMPLE),), judge_mode=judge)
    now = datetime(2026, 12, 1, tzinfo=UTC)
    whole = run_set(request, now=now)
    monkeypatch.setattr(gate.store.casestore, "IN_MEMORY", 0)
    spilled = run_set(request, now=now)
    assert isinstance(spilled.cases, CaseStore) and spilled.cases.spilled
    assert spilled.verdict == whole.verdict and spilled.reasons == whole.reasons
    for name in ("json", "markdown", "comment", "junit"):
        reporter = REPORTERS[name].make(None)
        assert reporter.render(spilled) == reporter.render(whole), name


def test_check_writes_the_json_report_in_pieces(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gate.store.casestore, "IN_MEMORY", 0)
    out = tmp_path / "report.json"
    assert main(["check", str(EXAMPLE), "--judge", "off", "--json", str(out)]) == 1
    assert load_json(str(out))["summary"]["cases"] == 18
    assert sorted(os.listdir(tmp_path)) == ["report.json"]


def test_the_streamed_json_is_dump_report_s_text() -> None:
    report = regression_report()
    assert "".join(REPORTERS["json"].make(None).render(_spilled(report))) == dump_report(report)
    empty = replace(report, cases=())
    assert REPORTERS["json"].make(None).render(empty) == dump_report(empty)


def test_a_report_in_pieces_that_fails_midway_leaves_no_file(tmp_path: Path) -> None:
    def pieces() -> Iterator[str]:
        yield "{\n"
        raise RuntimeError("a renderer's bug")

    target = tmp_path / "report.json"
    with pytest.raises(RuntimeError):
        write_file(str(target), pieces())
    assert os.listdir(tmp_path) == []
    write_file(str(target), iter(["{", "}\n"]))
    assert target.read_text(encoding="utf-8") == "{}\n"
