"""What a new user meets first: --version, python -m gate, "did you mean", help that fits a screen,
``check`` with no path, and every configuration error at once."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest

from gate import __version__
from gate.cli import build_parser, main
from gate.commands.helptext import EXAMPLES, subparsers
from tests.support.golden_factory import write_golden
from tests.support.pty_run import python_dash_m

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "cached-snapshots" / "example"


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out == f"sourcegate {__version__}\n"


def test_python_dash_m_gate_works_like_the_console_script() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # `gate/__main__.py` run as `-m` runs it, in a child forked from this process (no new interpreter)...
    version = python_dash_m("gate", ["--version"], env)
    assert (version.returncode, version.stdout) == (0, f"sourcegate {__version__}\n")
    # ...and in a new interpreter, as a person types it.
    done = subprocess.run([sys.executable, "-m", "gate", "chek"], capture_output=True, text=True, env=env,
                          check=False)
    assert done.returncode == 2
    assert "invalid choice: 'chek' (did you mean 'check'?)" in done.stderr


@pytest.mark.parametrize(("argv", "hint"), [
    (["chek"], "(did you mean 'check'?)"),
    (["baseline", "updte", "x"], "(did you mean 'update'?)"),
    (["snapshot", "verfy", "x"], "(did you mean 'verify'?)"),
    (["check", str(EXAMPLE), "--judge", "replya"], "(did you mean 'replay'?)"),
])
def test_a_mistyped_choice_gets_a_suggestion(argv: list[str], hint: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert hint in capsys.readouterr().err


@pytest.mark.parametrize(("key", "hint"), [("questoin", "question"), ("freshnes", "freshness")])
def test_a_misspelt_key_of_golden_yaml_is_the_error_shown_first_with_the_key_meant(
        tmp_path: Path, key: str, hint: str, capsys: pytest.CaptureFixture[str]) -> None:
    golden = tmp_path / "example"
    shutil.copytree(EXAMPLE, golden)
    text = (golden / "golden.yaml").read_text(encoding="utf-8")
    (golden / "golden.yaml").write_text(text.replace(f"  {hint}:", f"  {key}:", 1), encoding="utf-8")
    assert main(["check", str(golden)]) == 2
    err = capsys.readouterr().err
    assert f"golden.yaml at $.cases[0].{key}: unknown key '{key}' (did you mean '{hint}'?)" in err


def test_nothing_close_gets_no_suggestion(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["xyzzy"]) == 2
    err = capsys.readouterr().err
    assert "did you mean" not in err and "choose from check, baseline" in err


def test_every_command_has_help_that_fits_a_screen_and_ends_with_an_example(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("COLUMNS", "80")
    commands = subparsers(build_parser())
    assert set(commands) == set(EXAMPLES), "every command has one example, and every example a command"
    for name in commands:
        assert main([*name.split(), "--help"]) == 0
        text = capsys.readouterr().out
        lines = text.rstrip("\n").splitlines()
        assert len(lines) <= 40, f"`sourcegate {name} --help` is {len(lines)} lines"
        assert lines[-2:] == ["example:", f"  {EXAMPLES[name]}"], name


def test_check_with_no_path_runs_the_golden_sets_under_cached_snapshots(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copytree(EXAMPLE, tmp_path / "cached-snapshots" / "example")
    (tmp_path / "cached-snapshots" / "notes").mkdir()  # a folder without golden.yaml is no set
    monkeypatch.chdir(tmp_path)
    assert main(["check", "--json", "r.json", "-q"]) == 1
    assert capsys.readouterr().out.startswith("sourcegate: FAIL · golden set example v1 · 18 cases")
    assert (tmp_path / "r.json").is_file()


def test_check_with_no_path_and_no_golden_set_says_what_to_do(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["check"]) == 2
    err = capsys.readouterr().err
    assert "no golden set (a folder with golden.yaml) under cached-snapshots/" in err
    assert "sourcegate init" in err


def test_every_configuration_error_is_reported_at_once_with_its_path(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "sourcegate.yaml"
    config.write_text("checks:\n  domain_cap: two\n  bogus: 1\njudge:\n  mode: sometimes\n"
                      "soft:\n  grounding_rate:\n    flor: 0.5\nextra: true\n", encoding="utf-8")
    assert main(["check", str(EXAMPLE), "--config", str(config), "-q"]) == 2
    err = capsys.readouterr().err
    assert f"{config}: 5 errors in the configuration:" in err
    for line in ("  $.extra: unknown key 'extra' (known: format, checks,",
                 "  $.checks.bogus: unknown key 'bogus' (known: disabled, domain_cap,",
                 "  $.checks.domain_cap: 'two' is not of type 'integer'",
                 "  $.judge.mode: 'sometimes' is not one of ['live', 'batch', 'replay', 'off']",
                 "  $.soft.grounding_rate.flor: unknown key 'flor' (did you mean 'floor'?)"):
        assert line in err


def test_a_long_list_of_configuration_errors_is_capped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "sourcegate.yaml"
    config.write_text("".join(f"key{i}: 1\n" for i in range(50)), encoding="utf-8")
    assert main(["check", str(EXAMPLE), "--config", str(config), "-q"]) == 2
    err = capsys.readouterr().err
    assert "20+ errors in the configuration:" in err
    assert err.count("unknown key") == 20
    assert "(more not shown: the first 20 are listed)" in err


# Keys and values a pull request writes into sourcegate.yaml: a newline, a carriage return, an escape
# or a line separator in them must never start a line of stderr (a workflow command in CI, e.g.
# ``::add-mask::``) nor reach the terminal raw.
HOSTILE_CONFIGS = {
    "unknown key": 'checks: {"::error::x\\n::add-mask::y": 1}\n',
    "key of a price": 'judge:\n  prices: {"m\\n::error::p": {input: 1}}\n',
    "did you mean": 'soft:\n  grounding_rate: {"flor\\n::error::q": 0.5}\n',
    "several errors": ('checks: {"a\\r::warning::w": 1, "b\\e[31mred": 2, "c\\L::error::ls": 3}\n'
                       'judge: {prices: {"m\\n::error::p": {input: 1}}}\n'),
    "duplicate key": '"a\\n::error::d": 1\n"a\\n::error::d": 2\n',
    "a value": 'judge: {base_url: "https://example.com/\\n::error::u"}\n',
    "an endpoint": 'record: {search: {mine: {endpoint: "https://example.com/\\u2028::error::e"}}}\n',
}


@pytest.mark.parametrize("text", HOSTILE_CONFIGS.values(), ids=HOSTILE_CONFIGS.keys())
def test_a_configuration_error_never_lets_a_key_start_a_line(
        text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "sourcegate.yaml"
    config.write_text(text, encoding="utf-8")
    assert main(["check", str(EXAMPLE), "--config", str(config), "-q"]) == 2
    err = capsys.readouterr().err
    lines = err.splitlines()  # every line break Python knows: \r, \x1c-\x1e, \x85, \u2028, ...
    assert lines and all(line.startswith(("sourcegate: error: ", "  $")) for line in lines), err
    assert not any(ch.isspace() and ch not in " \n" or not ch.isprintable() and ch != "\n" for ch in err), err


def test_a_configuration_key_that_is_not_plain_is_quoted_in_the_path(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "sourcegate.yaml"
    config.write_text(HOSTILE_CONFIGS["key of a price"], encoding="utf-8")
    assert main(["check", str(EXAMPLE), "--config", str(config), "-q"]) == 2
    assert (f"{config} at $.judge.prices['m\\n::error::p']: 'output' is a required property"
            in capsys.readouterr().err)


@pytest.mark.parametrize(("argv", "hint", "help_of"), [
    (["check", "--jsn", "x.json"], "--jsn (did you mean '--json'?)", "sourcegate check --help"),
    (["check", "--markdwn=x.md"], "(did you mean '--markdown'?)", "sourcegate check --help"),
    (["run", "set", "--jbos", "3", "--", "agent"], "(did you mean '--jobs'?)", "sourcegate run --help"),
    (["baseline", "update", "set", "--forse"], "(did you mean '--force'?)", "sourcegate baseline update --help"),
    (["check", "--bogus"], "unrecognized arguments: --bogus (see", "sourcegate check --help"),
])
def test_an_unknown_option_of_a_command_gets_a_suggestion_and_that_command_s_help(
        argv: list[str], hint: str, help_of: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert hint in err and f"(see `{help_of}`)" in err


def test_a_report_written_to_stdout_is_the_only_thing_on_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(EXAMPLE), "--junit", "-"]) == 1
    out = capsys.readouterr().out
    assert ElementTree.fromstring(out).tag == "testsuites"  # no markdown before it


@pytest.mark.parametrize("argv", [
    ["--json", "-", "--markdown", "-"],
    ["--junit", "-", "--summary", "-"],
])
def test_two_reports_to_stdout_are_refused(tmp_path: Path, argv: list[str],
                                           capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(EXAMPLE), *argv]) == 2
    captured = capsys.readouterr()
    assert "only one report can go to stdout" in captured.err and captured.out == ""


def test_with_several_sets_stdout_for_a_per_set_report_is_refused_with_a_name_pattern(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = write_golden(tmp_path / "a", ["x"], name="a")
    b = write_golden(tmp_path / "b", ["x"], name="b")
    assert main(["check", str(a), str(b), "--json", "-"]) == 2
    captured = capsys.readouterr()
    assert ("--json - would write 2 documents to stdout, one after another: use a {name} pattern instead, "
            "one file per set (e.g. --json reports/{name}.json)") in captured.err
    assert captured.out == ""
    assert main(["check", str(a), str(b), "--json", "r.json"]) == 2
    assert "'-' for stdout" not in capsys.readouterr().err


@pytest.mark.parametrize("name", ["golden.yaml", "sourcegate.yaml"])
def test_a_golden_set_s_yaml_file_is_refused_naming_the_folder(name: str, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    golden = write_golden(tmp_path / "set", ["x"])
    assert main(["check", str(golden / name)]) == 2
    err = capsys.readouterr().err
    assert f"give the golden-set folder it is in (sourcegate check {golden})" in err and "JSON" not in err


def test_an_unknown_placeholder_in_an_output_path_is_refused(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x-{nme}.json"
    assert main(["check", str(EXAMPLE), "--json", str(out)]) == 2
    assert "unknown placeholder {nme}; only {name} (the golden set's name) is replaced" in capsys.readouterr().err
    assert os.listdir(tmp_path) == []


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
def test_a_failed_report_write_leaves_every_file_as_it_was_and_says_the_verdict(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "old.json").write_text("old\n", encoding="utf-8")
    argv = ["check", str(EXAMPLE), "--json", str(tmp_path / "old.json"), "--junit", str(tmp_path / "new.xml"),
            "--markdown", "/dev/full"]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert "/dev/full: cannot write here: No space left on device" in captured.err
    assert "sourcegate: FAIL · golden set example" in captured.err and captured.out == ""
    assert sorted(os.listdir(tmp_path)) == ["old.json"]  # no temporary left, no new file
    assert (tmp_path / "old.json").read_text(encoding="utf-8") == "old\n"


def test_every_command_that_judges_takes_the_same_judge_options() -> None:
    # a baseline judged by another provider than the check compares two judges, not two agents
    judging = {name: {o for a in p._actions for o in a.option_strings}
               for name, p in subparsers(build_parser()).items()}
    judging = {name: options for name, options in judging.items() if "--judge" in options}
    assert {"check", "run", "baseline update"} <= set(judging)
    for name, options in judging.items():
        assert "--judge-provider" in options, f"`sourcegate {name}` has --judge but no --judge-provider"
