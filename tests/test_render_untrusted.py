"""Untrusted text in every rendering: no line break, no workflow command, and a PR comment that stays
under GitHub's limit whatever the report holds."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import pytest

from gate.cli import main
from gate.model import Attempt, Finding
from gate.report.comment import COMMENT_LIMIT, CommentReporter
from gate.report.junit import JUnitReporter
from gate.report.markdown import MarkdownReporter
from gate.report.summary import SummaryReporter
from gate.text.escape import md, md_code, plain
from gate.verdict.figurediff import FigureStatus
from tests.support.golden_factory import write_golden
from tests.support.report_factory import case, regression_pair, regression_report

ZWSP = "\u200b"
# What an attacker puts in a URL or message to reach the Actions runner through stdout.
INJECTED_URL = "https://e.example/x\n::add-mask::hunter2\r\n  ::error title=pwned::boom"
INJECTED_MESSAGE = "cited\n::set-output name=verdict::pass\u2028##[error]legacy form\x85::warning::w"


def _workflow_commands(text: str) -> list[str]:
    """The lines the runner would read as workflow commands (``::`` after spaces, ``##[`` anywhere)."""
    return [line for line in text.splitlines() if line.lstrip().startswith("::") or "##[" in line]


# ---------------------------------------------------------------- plain()


@pytest.mark.parametrize(("text", "expected"), [
    ("one\ntwo\r\nthree", "one two  three"),
    ("::add-mask::x", f":{ZWSP}:add-mask::x"),
    ("  ::error::x", f"  :{ZWSP}:error::x"),
    ("a ##[error]b", f"a ##{ZWSP}[error]b"),
    ("bell \x07 and \u202eevil", "bell  and evil"),
    ("http://[::1]:8080/", "http://[::1]:8080/"),
    ("plain text", "plain text"),
])
def test_plain_is_one_line_with_no_workflow_command(text: str, expected: str) -> None:
    assert plain(text) == expected


@pytest.mark.parametrize("escape", [md, md_code, plain])
def test_no_escape_lets_a_workflow_command_through(escape: object) -> None:
    out = escape(INJECTED_MESSAGE)  # type: ignore[operator]
    assert "\n" not in out and "\r" not in out
    assert _workflow_commands(out) == []


# ---------------------------------------------------------------- JUnit


def _injected_report() -> object:
    _, cur = regression_pair()
    bad = Finding("fabricated_url", INJECTED_MESSAGE, INJECTED_URL)
    two = Finding("fabricated_url", "::error::second", "::add-mask::secret-two")
    err = Finding("input_error", "::error::input\n::add-mask::x")
    rejected = Attempt(rejected=(INJECTED_URL,), findings=(bad, Finding("::error::check", INJECTED_MESSAGE)))
    return replace(cur, golden_name="demo\n::error::name",
                   cases=(replace(case("evil\n::error::id", {}, [bad, two]), attempts=(rejected,)),
                          case("gone", {}, [err])))


def test_junit_text_and_attributes_start_no_workflow_command() -> None:
    text = JUnitReporter().render(_injected_report())  # type: ignore[arg-type]
    assert _workflow_commands(text) == []
    root = ET.fromstring(text)  # still well-formed XML
    failure = root.find(".//failure")
    assert failure is not None and "hunter2" in (failure.text or "")  # kept as text, on one line
    assert all("\n" not in value for el in root.iter() for value in el.attrib.values())


def test_junit_to_stdout_through_the_cli_forms_no_workflow_command(
    tmp_path: Path, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    golden = write_golden(tmp_path / "demo", ["a"], bad=["a"])
    run = golden / "runs" / "a.json"
    # A cited URL whose text holds a line break and a workflow command after it.
    body = run.read_text(encoding="utf-8").replace(
        "https://made-up.example.net/a", "https://made-up.example.net/a%0A::add-mask::hunter2")
    run.write_text(body, encoding="utf-8")
    assert main(["check", str(golden), "--junit", "-", "--json", str(tmp_path / "r.json")]) == 1
    out = capfd.readouterr().out
    assert "<testsuites" in out and _workflow_commands(out) == []


@pytest.mark.parametrize("reporter", [MarkdownReporter(), SummaryReporter(), CommentReporter()])
def test_markdown_renderings_start_no_workflow_command(reporter: object) -> None:
    text = reporter.render(_injected_report())  # type: ignore[attr-defined]
    assert _workflow_commands(text) == []


# ---------------------------------------------------------------- comment size


def _largest_report() -> object:
    """Every untrusted field at the largest sizes found: a 100,000-character name, 3,000 figures
    and cases, reasons, notes and URLs of 100,000 characters, with the characters that escaping
    makes longest (``$`` and ``&`` become five characters each, backticks grow code fences)."""
    report = regression_report()
    cmp = report.comparison
    assert cmp is not None
    huge = "$&`|" * 25_000
    status = FigureStatus("blocking", huge)
    figures = tuple(replace(cmp.figures[i % len(cmp.figures)], key=f"f{i}", label=huge[: 2000 + i],
                            status=status) for i in range(3000))
    origin = replace(cmp.origin, file=huge, ref=huge, changed_files=tuple(f"{i}{huge[:3000]}" for i in range(3000)))
    url = "https://e.example/" + "$" * 100_000
    cases = tuple(case(f"c{i}-{'`' * 300}", {"query_quality": 1.0},
                       [Finding("fabricated_url", huge[:5000], url)]) for i in range(3000))
    return replace(report, golden_name="`" * 100_000, reasons=(huge, *(huge[:5000] for _ in range(3000))),
                   warnings=tuple(huge[:5000] for _ in range(3000)), cases=cases,
                   comparison=replace(cmp, figures=figures, origin=origin, added=tuple(c.id for c in cases),
                                      baseline_forced=True))


def test_the_comment_stays_under_githubs_limit_for_the_largest_inputs() -> None:
    body = CommentReporter().render(_largest_report())  # type: ignore[arg-type]
    assert len(body) < COMMENT_LIMIT
    assert body.rstrip().endswith("-->")  # the marker is still there, last
    assert re.search(r"\d+ more figure\(s\)", body)
    assert "more blocking figure(s)" in body and "more note(s) in the job summary" in body
