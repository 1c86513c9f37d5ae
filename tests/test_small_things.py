"""Small things users notice: the licence file, a URL the question gives, a question that drifted."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from gate.cli import main
from gate.model import Case, Run
from gate.report.comment import CommentReporter
from gate.report.json import JsonReporter
from gate.score.case_warnings import case_warnings
from tests.support.report_factory import regression_report

ROOT = Path(__file__).resolve().parent.parent


def test_the_licence_file_is_the_one_pyproject_names() -> None:
    licence = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["license"]
    assert licence == "Apache-2.0"
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.split()[:4] == ["Apache", "License", "Version", "2.0,"]
    assert "END OF TERMS AND CONDITIONS" in text and "APPENDIX: How to apply the Apache License" in text


def test_a_trace_whose_question_differs_from_its_case_is_warned_naming_both() -> None:
    case = Case(id="q1", question="How many moons does Jupiter have?")
    [warning] = case_warnings(case, Run(case="q1", question="How many moons does Saturn have?", answer="a"), None)
    assert warning.kind == "question_differs"
    assert warning.message == ("the trace's question «How many moons does Saturn have?» differs from the case's "
                               "in golden.yaml «How many moons does Jupiter have?»")


def test_whitespace_or_an_empty_question_is_no_difference() -> None:
    case = Case(id="q1", question="How many moons\ndoes Jupiter have?")
    assert case_warnings(case, Run(case="q1", question=" How many moons does  Jupiter have? ", answer="a"),
                         None) == ()
    assert case_warnings(case, Run(case="q1", question="", answer="a"), None) == ()


def test_comment_outside_a_pull_request_prints_the_comment(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("GITHUB_EVENT_PATH", "GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID", "GITHUB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    report = regression_report()
    artifact = tmp_path / "report.json"
    artifact.write_text(JsonReporter().render(report), encoding="utf-8")
    assert main(["comment", str(artifact)]) == 0
    out, err = capsys.readouterr()
    assert out == CommentReporter().render(report)
    assert "not a pull request" in err and "printed, not posted" in err


def test_loose_trace_files_show_no_version(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    traces = sorted(str(p) for p in (ROOT / "cached-snapshots" / "example" / "runs").glob("*.json"))[:3]
    main(["check", *traces, "--markdown", "-", "--summary", str(tmp_path / "s.md"), "-q"])
    markdown = capsys.readouterr().out
    summary = (tmp_path / "s.md").read_text(encoding="utf-8")
    assert "Golden set `traces`, 3 cases" in markdown
    assert "None" not in markdown and "version None" not in summary and "golden set `traces` ·" in summary


def test_an_output_path_that_is_a_folder_is_an_input_error_naming_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "out.json").mkdir()
    traces = sorted(str(p) for p in (ROOT / "cached-snapshots" / "example" / "runs").glob("*.json"))[:3]
    assert main(["check", *traces, "--json", str(tmp_path / "out.json"), "--markdown", str(tmp_path / "r.md")]) == 2
    assert f"{tmp_path / 'out.json'}" in capsys.readouterr().err
    assert not (tmp_path / "r.md").exists()

