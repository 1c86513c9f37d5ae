"""JUnit XML: one test case per run and check, parseable, pinned by a golden file."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest

from gate.cli import main
from gate.model import Finding
from gate.report.junit import JUnitReporter
from gate.results import INPUT_ERROR
from gate.verdict.comparison import RemovedCase
from gate.verdict.report import Report
from tests.support.golden_factory import write_golden
from tests.support.report_factory import CHECKS, assert_golden, case, regression_pair, regression_report


def test_junit_matches_its_golden_file() -> None:
    assert_golden("junit_regression.xml", JUnitReporter().render(regression_report()))


def test_under_block_on_new_a_failure_the_baseline_had_is_skipped_with_the_reason() -> None:
    text = JUnitReporter().render(regression_report(block_on="new"))
    assert_golden("junit_block_on_new.xml", text)
    checks = ET.fromstring(text).findall("testsuite")[0]
    kept = checks.find("testcase[@name='domain_cap'][@classname='sourcegate.demo.alpha']")
    assert kept is not None and kept.find("failure") is None
    skipped = kept.find("skipped")
    assert skipped is not None
    assert (skipped.get("message") or "").startswith(
        "1 domain_cap failure(s) the baseline already had: not blocking (compare.block_on is new): ")
    assert checks.get("failures") == "2"  # the new fabricated_url in alpha, the unread_citation of new case delta
    new = checks.find("testcase[@name='fabricated_url'][@classname='sourcegate.demo.alpha']/failure")
    assert new is not None


def test_under_block_on_all_the_baseline_failure_still_fails() -> None:
    checks = ET.fromstring(JUnitReporter().render(regression_report())).findall("testsuite")[0]
    assert checks.find("testcase[@name='domain_cap'][@classname='sourcegate.demo.alpha']/failure") is not None


@pytest.mark.parametrize("block_on", ["all", "new"])
def test_a_removed_cases_baseline_failures_fail_or_are_skipped_as_the_verdict_counts_them(block_on: str) -> None:
    report = regression_report(block_on)
    assert report.comparison is not None
    gone = (Finding("fabricated_url", "cited, never in any result", "https://made-up.example.net/x"),)
    cmp = replace(report.comparison, removed_results=(RemovedCase("omega", gone),))
    checks = ET.fromstring(JUnitReporter().render(replace(report, comparison=cmp))).findall("testsuite")[0]
    tc = checks.find("testcase[@name='fabricated_url'][@classname='sourcegate.demo.omega']")
    assert tc is not None
    why = "1 fabricated_url failure(s) of a baseline case not in this run, decided by its baseline result"
    if block_on == "all":
        failure = tc.find("failure")
        assert failure is not None and failure.get("message") == f"{why}: cited, never in any result"
        assert checks.get("failures") == "4"  # the three of the run, and the removed case's
    else:
        skipped = tc.find("skipped")
        assert skipped is not None
        assert skipped.get("message") == f"{why}: not blocking (compare.block_on is new)"
        assert checks.get("failures") == "2"  # the new failures of the run alone


def test_one_testcase_per_run_and_check_with_counts() -> None:
    report = regression_report()
    root = ET.fromstring(JUnitReporter().render(report))
    checks, figures = root.findall("testsuite")
    assert len(checks.findall("testcase")) == len(report.cases) * len(CHECKS)
    assert checks.get("failures") == "3" and checks.get("skipped") == str(len(report.cases))
    names = {(tc.get("classname"), tc.get("name")) for tc in checks.findall("testcase")}
    assert ("sourcegate.demo.alpha", "fabricated_url") in names
    failure = checks.find("testcase[@name='fabricated_url'][@classname='sourcegate.demo.alpha']/failure")
    assert failure is not None and "https://made-up.example.net/rust-1.80" in (failure.text or "")
    assert figures.get("name") == "demo.figures" and figures.get("failures") == "0"
    assert root.get("tests") == str(int(checks.get("tests", "")) + int(figures.get("tests", "")))


def test_control_characters_and_markup_stay_well_formed() -> None:
    _, cur = regression_pair()
    nasty = Finding("fabricated_url", "bell \x07 and </failure><x> & \"quotes\" \ufffe", "https://e.example/\x00")
    missing = Finding(INPUT_ERROR, "no run recorded for case 'gone'")
    cur = replace(cur, cases=(case("nasty\x1b", {}, [nasty]), case("gone", {}, [missing])))
    root = ET.fromstring(JUnitReporter().render(cur))
    failure = root.find(".//failure")
    assert failure is not None and failure.get("message") == "bell  and </failure><x> & \"quotes\" "
    error = root.find(".//testcase[@name='input_error']/error")
    assert error is not None and error.get("message") == "no run recorded for case 'gone'"
    assert isinstance(cur, Report)


def test_check_writes_junit_and_the_summary_where_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    golden = write_golden(tmp_path / "demo", ["a", "b"], bad=["b"])
    junit, summary = tmp_path / "junit.xml", tmp_path / "summary.md"
    argv = ["check", str(golden), "--junit", str(junit), "--summary", str(summary), "--json", str(tmp_path / "r")]
    assert main(argv) == 1
    root = ET.fromstring(junit.read_text(encoding="utf-8"))
    failed = root.findall(".//testcase/failure")
    assert [f.get("type") for f in failed] == ["fabricated_url"]
    text = summary.read_text(encoding="utf-8")
    assert text.startswith("## ❌ sourcegate: **fail** · golden set `demo`")
    assert "### All cases" in text and "<!--" not in text
