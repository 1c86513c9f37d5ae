"""Small things users notice: the licence file, a URL the question gives, a question that drifted."""

from __future__ import annotations

import tomllib
from pathlib import Path

from gate.case_warnings import case_warnings
from gate.model import Case, Run

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
