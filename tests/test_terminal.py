"""The terminal report: plain lines a person reads and copies URLs from, pinned by golden files."""

from __future__ import annotations

import os
import re
from dataclasses import replace
from pathlib import Path

import pytest

from gate.model import Finding
from gate.report.terminal import TerminalReporter, failure_rows, verdict_line
from gate.term.color import use_color
from gate.text.escape import plain
from tests.support.pty_run import gate_under_pty
from tests.support.report_factory import assert_golden, regression_pair, regression_report

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "cached-snapshots" / "example"
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _full(color: bool) -> str:
    report = regression_report()
    return TerminalReporter(color=color, verbose=True).render(report) + "\n" + verdict_line(report, color)


def test_terminal_report_matches_its_golden_file() -> None:
    assert_golden("terminal_regression.txt", _full(color=False))


def test_coloured_terminal_report_matches_its_golden_file_and_differs_only_by_colour() -> None:
    coloured = _full(color=True)
    assert_golden("terminal_regression_color.txt", coloured)
    assert "\x1b[" in coloured
    assert ANSI.sub("", coloured) == _full(color=False)


def test_new_failures_come_first_and_are_marked() -> None:
    rows = failure_rows(regression_report())
    assert [r.tag for r in rows] == ["new", "new", "baseline"]
    assert [r.case for r in rows] == ["alpha", "delta", "alpha"]
    lines = TerminalReporter().render(regression_report()).splitlines()
    assert lines[0].startswith("new       alpha  fabricated_url   https://made-up.example.net/rust-1.80  ")


def test_without_a_baseline_nothing_is_marked_and_the_version_is_shown() -> None:
    report = regression_pair()[0]
    text = TerminalReporter().render(report)
    assert text.startswith("alpha  domain_cap  ")
    assert verdict_line(report) == ("sourcegate: FAIL · golden set demo v3 · 4 cases, 2 hard failures · "
                                    "1 domain_cap failure(s)\n")


def test_quiet_output_is_the_verdict_line_and_loose_traces_show_no_version() -> None:
    report = replace(regression_pair()[0], golden_version=None, verdict="pass", reasons=("all good",))
    assert verdict_line(report) == "sourcegate: PASS · golden set demo · 4 cases, 2 hard failures\n"


def test_untrusted_text_cannot_emit_escape_sequences_or_fake_lines() -> None:
    evil = Finding("fabricated_url", "cited\x1b[2J\x1b]0;pwned\x07\nsourcegate: PASS\r\x9b31m",
                   "https://example.org/a\x1b[8m?q=1#x")
    report = regression_pair()[0]
    first = report.cases[0]
    report = replace(report, cases=(replace(first, id="al\x1bpha\n", hard_failures=(evil,)), *report.cases[1:]))
    text = TerminalReporter(color=False).render(report) + verdict_line(report)
    assert "\x1b" not in text and "\x9b" not in text and "\x07" not in text and "\r" not in text
    assert text.count("\n") == 3  # two failure lines and the verdict line
    assert "https://example.org/a[8m?q=1#x" in text


def test_plain_text_keeps_visible_text_and_removes_controls() -> None:
    assert plain("a\x1b[31mb\u202ec\nd\x85e") == "a[31mbc d e"
    assert plain("https://example.org/a_b(c)*d") == "https://example.org/a_b(c)*d"
    assert plain("abcdef", max_len=4) == "abc…"


@pytest.mark.parametrize(("choice", "env", "tty", "expected"), [
    ("auto", {}, True, True),
    ("auto", {}, False, False),
    ("auto", {"TERM": "dumb"}, True, False),
    ("auto", {"NO_COLOR": "1"}, True, False),
    ("auto", {"NO_COLOR": ""}, True, True),  # an empty NO_COLOR is unset (no-color.org)
    ("auto", {"FORCE_COLOR": "1"}, False, True),
    ("auto", {"NO_COLOR": "1", "FORCE_COLOR": "1"}, True, False),
    ("always", {"NO_COLOR": "1"}, False, True),
    ("never", {"FORCE_COLOR": "1"}, True, False),
])
def test_colour_follows_the_flag_then_no_color_then_force_color_then_the_terminal(
        choice: str, env: dict[str, str], tty: bool, expected: bool) -> None:
    assert use_color(choice, env, tty) is expected


README = ROOT / "docs" / "cli.md"
START, END = "<!-- readme-terminal:start -->\n", "<!-- readme-terminal:end -->\n"


def test_the_docs_show_the_terminal_output_of_the_example_set() -> None:
    from tests.test_readme import example_report

    report = example_report()
    expected = ("```text\n$ sourcegate check cached-snapshots/example\n"
                + TerminalReporter(width=100).render(report) + "\n" + verdict_line(report, width=100) + "```\n")
    text = README.read_text(encoding="utf-8")
    before, rest = text.split(START, 1)
    shown, after = rest.split(END, 1)
    if os.environ.get("SOURCEGATE_UPDATE_GOLDEN") == "1":
        README.write_text(before + START + expected + END + after, encoding="utf-8")
        return
    assert shown == expected, "docs/cli.md's terminal output is stale: regenerate with SOURCEGATE_UPDATE_GOLDEN=1"


def test_the_verdict_line_is_printed_when_every_report_goes_to_a_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from gate.cli import main

    assert main(["check", str(EXAMPLE), "--json", str(tmp_path / "r.json"), "--junit", str(tmp_path / "j.xml")]) == 1
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith("sourcegate: FAIL · golden set example v1 · 18 cases")


def test_with_a_report_on_stdout_the_verdict_line_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from gate.cli import main

    assert main(["check", str(EXAMPLE), "--json", "-"]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out)["verdict"] == "fail"  # stdout stays parseable
    assert err.startswith("sourcegate: FAIL · golden set example v1")


def _under_pty(*argv: str, env: dict[str, str]) -> tuple[str, int]:
    """Run ``sourcegate ARGV`` in a child with its stdout on a pseudo-terminal; (what it printed there, exit code)."""
    return gate_under_pty(list(argv), env)


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "GITHUB_STEP_SUMMARY")}
    return {**env, "PYTHONPATH": str(ROOT), "TERM": "xterm", **extra}


def test_on_a_terminal_check_prints_plain_lines_with_copyable_urls() -> None:
    out, code = _under_pty("check", str(EXAMPLE), env=_env(NO_COLOR="1"))
    assert code == 1
    assert "\x1b[" not in out and "\u200b" not in out and "\\." not in out  # no colour, no markdown escapes
    assert "https://www.who.int/publications/i/item/9789240114319" in out
    assert "new       who-physical-activity-adults    fabricated_url" in out
    assert "## " not in out and "|---" not in out
    assert "\nsourcegate: FAIL · golden set example v1 · 18 cases" in out  # the verdict, last (wrapped)


def test_on_a_terminal_colour_is_on_and_urls_stay_intact() -> None:
    out, _ = _under_pty("check", str(EXAMPLE), env=_env())
    assert "\x1b[1;31mFAIL\x1b[0m" in out
    urls = re.findall(r"https://\S+", out)
    assert "https://www.who.int/publications/i/item/9789240114319" in urls
    assert not any("\x1b" in u for u in urls)


def test_quiet_prints_the_verdict_line_only_wrapped_between_words_at_the_terminal_s_width() -> None:
    out, code = _under_pty("check", str(EXAMPLE), "-q", "--color", "never", env=_env(COLUMNS="100"))
    assert code == 1
    assert out.startswith("sourcegate: FAIL · golden set example v1 · 18 cases, 16 hard failures (3 new) ·")
    lines = out.rstrip("\n").splitlines()
    assert len(lines) > 1 and all(len(line) <= 100 for line in lines)
    assert " ".join(line.strip() for line in lines).endswith("13 already in the baseline")  # no word cut


def test_notes_wrap_between_words_within_the_terminal() -> None:
    from tests.test_readme import example_report

    report = replace(example_report(), warnings=("a note " * 40 + "https://example.org/" + "x" * 150,))
    for width in (60, 100):
        text = TerminalReporter(width=width).render(report) + verdict_line(report, width=width)
        for line in text.splitlines():
            assert len(line) <= width or re.fullmatch(r"\s*https?://\S+", line), line


def test_each_url_is_printed_once_and_whole_however_narrow_the_terminal() -> None:
    from tests.test_readme import example_report

    report = example_report()
    urls = {f.url for c in report.cases for f in c.hard_failures if f.url}
    for width in (60, 100, 160):
        text = TerminalReporter(width=width).render(report)
        lines = text.split("\n\nnote:", 1)[0].splitlines()  # the failures' lines
        # A URL ends before a space, a comma, a bracket, or a colon that closes it ("on <URL>: ...").
        printed = [u.rstrip(":") for line in lines for u in re.findall(r"https?://[^\s,)]+", line)]
        assert urls <= set(printed)  # each whole, on one line
        for line in lines:  # and once on its line: the message names it, no column repeats it
            found = re.findall(r"https?://[^\s,)]+", line)
            assert len(found) == len(set(found)), line
            assert len(line) <= width or re.fullmatch(r"\s*\S+", line) or "https://" in line, line
