"""Output paths are checked before the work: a path that cannot be written, that the run reads, or
that two outputs share stops the command with exit 2, the flag and the path named, before any judge
call, any agent or any write. Each refusal is shown against a live judge on a loopback server that
counts its calls (zero), next to the same command with a good path, which does call it."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from gate.cli import main
from gate.deliver.targets import Target, check_targets
from gate.errors import InputError
from gate.files.outputs import unwritable
from tests.support.anthropic_server import AnthropicServer, error_reply
from tests.support.golden_factory import write_golden
from tests.support.run_golden import PLAN_ENV, faithful_plan, make_golden, scripted_agent
from tests.test_action import API_KEY, GOOD, Runner, annotations, run, write_set

Make = Callable[[Path, Path], str]
"""(tmp folder, golden set) -> the output path to give"""


@pytest.fixture(scope="module")
def golden_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A two-case golden set, written once for the module."""
    return write_golden(tmp_path_factory.mktemp("golden") / "demo", ["a", "b"])


@pytest.fixture
def golden(golden_once: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The two-case golden set: a copy of its own (the tests put things in its way)."""
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return Path(shutil.copytree(golden_once, tmp_path / "demo"))


@pytest.fixture(scope="module")
def api_server() -> Iterator[AnthropicServer]:
    """A live judge's API on loopback that answers 529, served once for the module."""
    with AnthropicServer(lambda request: error_reply(529), api_key=API_KEY) as server:
        yield server


@pytest.fixture
def api(api_server: AnthropicServer, monkeypatch: pytest.MonkeyPatch) -> AnthropicServer:
    """A live judge's API on loopback: any call it gets is work the gate did (its count starts at zero)."""
    api_server.requests.clear()
    api_server.replies.clear()
    monkeypatch.setenv("ANTHROPIC_BASE_URL", api_server.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
    return api_server


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _file_above(t: Path, g: Path) -> str:
    (t / "file").write_text("x", encoding="utf-8")
    return str(t / "file" / "r.json")


def _folder(t: Path, g: Path) -> str:
    (t / "taken").mkdir()
    return str(t / "taken")


BAD: dict[str, tuple[Make, str]] = {
    "a folder": (_folder, "a folder is in the way"),
    "a trailing slash": (lambda t, g: str(t / "out") + "/", "it ends with '/', so it names a folder"),
    "under a file": (_file_above, "a folder above it is a file"),
    "empty": (lambda t, g: "", "an empty path"),
    "golden.yaml": (lambda t, g: str(g / "golden.yaml"), "this run reads the golden set's golden.yaml"),
    "a trace": (lambda t, g: str(g / "runs" / "a.json"), "this run reads a file in the golden set's runs/"),
    "a new file in runs/": (lambda t, g: str(g / "runs" / "report.json"), "a file in the golden set's runs/"),
    "the configuration": (lambda t, g: str(g / "sourcegate.yaml"), "this run reads the configuration"),
    "the baseline": (lambda t, g: str(g / "baseline.json"), "this run reads the baseline"),
    "the judge cache": (lambda t, g: str(g / "judgements" / "x.json"), "the golden set's judge cache"),
    "the snapshot": (lambda t, g: str(g / "snapshot" / "index.json"), "the golden set's snapshot/"),
}


# ---------------------------------------------------------------- check


@pytest.mark.parametrize("flag", ["--json", "--markdown", "--junit", "--summary", "--otlp-json"])
@pytest.mark.parametrize("bad", list(BAD), ids=list(BAD))
def test_check_refuses_a_bad_output_path_before_any_judge_call(
    golden: Path, tmp_path: Path, api: AnthropicServer, capsys: pytest.CaptureFixture[str], flag: str, bad: str,
) -> None:
    make, reason = BAD[bad]
    target = make(tmp_path, golden)
    before = _tree(tmp_path)
    good = tmp_path / "r.md"
    args = ["check", str(golden), "--judge", "live", flag, target]
    assert main([*args, *(["--markdown", str(good)] if flag != "--markdown" else [])]) == 2
    err = capsys.readouterr().err
    assert f"{flag} {target or repr('')}: cannot write here: " in err and reason in err, err
    assert "Traceback" not in err
    assert api.calls == 0
    assert _tree(tmp_path) == before and not good.exists()  # nothing written, not even the good report


def test_the_same_check_with_a_good_path_does_call_the_judge(golden: Path, tmp_path: Path,
                                                              api: AnthropicServer) -> None:
    # The control of the test above: its zero calls mean the check came first, not that no judge ran.
    assert main(["check", str(golden), "--judge", "live", "--json", str(tmp_path / "r.json"), "-q"]) == 3
    assert api.calls > 0 and (tmp_path / "r.json").exists()


def test_a_missing_folder_is_still_made(golden: Path, tmp_path: Path) -> None:
    out = tmp_path / "new" / "deeper" / "r.json"
    assert main(["check", str(golden), "--json", str(out), "-q"]) == 0
    assert json.loads(out.read_text(encoding="utf-8"))["verdict"] == "pass"


def test_one_file_given_to_two_reporters_is_refused(golden: Path, tmp_path: Path, api: AnthropicServer,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    same = tmp_path / "r.txt"
    link = tmp_path / "link.txt"
    link.symlink_to(same)  # a symlink to it is the same file
    assert main(["check", str(golden), "--judge", "live", "--json", str(same), "--junit", str(link)]) == 2
    err = capsys.readouterr().err
    assert f"--junit {link}: cannot write here: --json and --junit would both write this file" in err
    assert api.calls == 0 and not same.exists()


def test_devices_may_be_shared_but_stdout_takes_one_report(golden: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(golden), "--json", "-", "--junit", os.devnull, "--summary", os.devnull, "-q"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)["verdict"] == "pass"  # the one report on stdout, and nothing else
    assert main(["check", str(golden), "--json", "-", "--markdown", "-", "--junit", os.devnull]) == 2
    assert "--json and --markdown all write to stdout: only one report" in capsys.readouterr().err


def test_the_job_summary_of_the_runner_is_checked_too(golden: Path, tmp_path: Path, api: AnthropicServer,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "summary").mkdir()
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary"))
    assert main(["check", str(golden), "--judge", "live", "--json", str(tmp_path / "r.json")]) == 2
    assert f"$GITHUB_STEP_SUMMARY {tmp_path / 'summary'}: cannot write here: a folder is in the way" in (
        capsys.readouterr().err)
    assert api.calls == 0 and not (tmp_path / "r.json").exists()


def test_two_sets_whose_names_make_one_file_name_are_refused_before_either_runs(
    tmp_path: Path, api: AnthropicServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    # A name is cut to 100 characters in a file name: these two differ only after that.
    first, second = "n" * 100 + "-first", "n" * 100 + "-second"
    a = write_golden(tmp_path / "a", ["x"], name=first)
    b = write_golden(tmp_path / "b", ["x"], name=second)
    out = tmp_path / "out"
    assert main(["check", str(a), str(b), "--judge", "live", "--json", str(out / "{name}.json")]) == 2
    err = capsys.readouterr().err
    assert f"--json {out / ('n' * 100 + '.json')} (golden set {second!r}): cannot write here: golden sets " \
           f"{first!r} and {second!r} would both write this file" in err
    assert api.calls == 0 and not out.exists()


def test_a_second_sets_files_are_protected_from_the_first_sets_reports(
    tmp_path: Path, api: AnthropicServer, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    a = write_golden(tmp_path / "a", ["x"], name="a")
    b = write_golden(tmp_path / "b", ["x"], name="b")
    before = _tree(b)
    assert main(["check", str(a), str(b), "--judge", "live", "--json", str(b / "runs" / "{name}.json")]) == 2
    assert "this run reads a file in the golden set's runs/" in capsys.readouterr().err
    assert api.calls == 0 and _tree(b) == before


def test_trace_files_and_an_explicit_baseline_are_protected(golden: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    trace = golden / "runs" / "a.json"
    assert main(["check", str(trace), "--markdown", str(trace)]) == 2
    assert "this run reads a trace file of this run" in capsys.readouterr().err
    base = tmp_path / "base-{name}.json"
    assert main(["check", str(golden), "--baseline", str(base), "--json", str(tmp_path / "base-demo.json")]) == 2
    assert "this run reads the baseline (--baseline)" in capsys.readouterr().err


# ---------------------------------------------------------------- merge, baseline, run, import, comment


def test_merge_checks_its_outputs_before_reading_a_partial(golden: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    part = tmp_path / "part.json"
    part.write_text("not json", encoding="utf-8")  # read first, it would be the error
    assert main(["merge", str(golden), str(part), "--json", str(golden / "golden.yaml")]) == 2
    err = capsys.readouterr().err
    assert f"--json {golden / 'golden.yaml'}: cannot write here: this run reads the golden set's golden.yaml" in err
    assert main(["merge", str(golden), str(part), "--markdown", str(part)]) == 2
    assert "this run reads a partial report of this merge" in capsys.readouterr().err
    assert part.read_text(encoding="utf-8") == "not json"


def test_baseline_update_refuses_a_target_before_the_set_runs(golden: Path, tmp_path: Path, api: AnthropicServer,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    before = _tree(golden)
    assert main(["baseline", "update", str(golden), "--judge", "live", "--baseline", str(golden / "golden.yaml")]) == 2
    assert "--baseline" in capsys.readouterr().err
    (golden / "baseline.json").mkdir()
    assert main(["baseline", "update", str(golden), "--judge", "live"]) == 2
    assert f"--baseline {golden / 'baseline.json'}: cannot write here: a folder is in the way" in (
        capsys.readouterr().err)
    (golden / "baseline.json").rmdir()
    assert api.calls == 0 and _tree(golden) == before


def test_baseline_update_refuses_a_symlink_out_of_the_set_before_it_runs(
    golden: Path, tmp_path: Path, api: AnthropicServer, capsys: pytest.CaptureFixture[str],
) -> None:
    outside = tmp_path / "elsewhere.json"
    (golden / "baseline.json").symlink_to(outside)
    assert main(["baseline", "update", str(golden), "--judge", "live"]) == 2
    assert "refusing to write through a symlink that leads out of the golden set" in capsys.readouterr().err
    assert api.calls == 0 and not outside.exists()


def test_run_checks_the_reports_of_check_before_any_agent_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    golden = make_golden(tmp_path / "set", ["euro-adoption-after-2010"])
    monkeypatch.setenv(PLAN_ENV, json.dumps({"euro-adoption-after-2010": faithful_plan("euro-adoption-after-2010")}))
    before = _tree(golden)
    (tmp_path / "taken").mkdir()
    code = main(["run", str(golden), "--check", "--json", str(tmp_path / "taken"), "--", *scripted_agent(tmp_path)])
    err = capsys.readouterr().err
    assert code == 2 and f"--json {tmp_path / 'taken'}: cannot write here: a folder is in the way" in err
    assert "answered" not in err and "wrote" not in err and _tree(golden) == before


def test_run_refuses_an_out_folder_that_is_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    golden = make_golden(tmp_path / "set", ["euro-adoption-after-2010"])
    (tmp_path / "file").write_text("x", encoding="utf-8")
    code = main(["run", str(golden), "--out", str(tmp_path / "file" / "traces"), "--", *scripted_agent(tmp_path)])
    assert code == 2
    assert f"--out {tmp_path / 'file' / 'traces'}: cannot write here: a folder above it is a file" in (
        capsys.readouterr().err)


def test_import_never_overwrites_its_own_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recorded = tmp_path / "q7.json"
    recorded.write_text("{}", encoding="utf-8")
    assert main(["import", "anthropic", str(recorded), "--out", str(tmp_path), "--force"]) == 2
    assert f"--out {recorded}: cannot write here: this run reads an input of this import" in capsys.readouterr().err
    assert recorded.read_text(encoding="utf-8") == "{}"


def test_import_refuses_an_out_folder_under_a_file_before_reading_an_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / "file").write_text("x", encoding="utf-8")
    broken = tmp_path / "broken.json"
    broken.write_text("{", encoding="utf-8")  # read first, it would be the error
    assert main(["import", "anthropic", str(broken), "--out", str(tmp_path / "file" / "runs")]) == 2
    assert "cannot write here: a folder above it is a file" in capsys.readouterr().err


def test_comment_output_cannot_replace_its_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "report.json"
    report.write_text("{}", encoding="utf-8")
    assert main(["comment", str(report), "--output", str(report)]) == 2
    assert "this run reads the report (REPORT)" in capsys.readouterr().err
    assert report.read_text(encoding="utf-8") == "{}"


# ---------------------------------------------------------------- the action


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Runner]:
    from tests.support.github_server import FakeGitHub

    with FakeGitHub() as server:
        r = Runner(tmp_path, server)
        monkeypatch.chdir(r.ws)
        for name in ("ANTHROPIC_API_KEY", "GITHUB_TOKEN", "GITHUB_EVENT_PATH", "GITHUB_OUTPUT",
                     "GITHUB_STEP_SUMMARY", "SOURCEGATE_COMMENT_AUTHORS"):
            monkeypatch.delenv(name, raising=False)
        yield r


@pytest.mark.parametrize(("where", "reason"), [
    ("sourcegate-report/report.json", "a folder is in the way"),
    ("runs", "this run reads a file in the golden set's runs/"),
])
def test_the_action_refuses_a_report_file_before_the_judge_runs(
    runner: Runner, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], where: str, reason: str,
) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    report_dir = "sourcegate-report"
    if where.endswith("report.json"):
        (runner.ws / where).mkdir(parents=True)
    else:
        report_dir = f"{golden}/{where}"
    event = runner.event(runner.commit())
    with AnthropicServer(lambda request: error_reply(529), api_key=API_KEY) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        code = run(runner.env(event, golden_set=golden, anthropic_api_key=API_KEY, comment="false",
                              report_dir=report_dir))
        assert api.calls == 0
    log = capsys.readouterr().out
    assert code == 2, log
    [error] = annotations(log)
    assert "input 'report-dir'" in error and reason in error
    assert not (runner.ws / "sourcegate-report" / "report.md").exists()


# ---------------------------------------------------------------- the checks themselves


def test_unwritable_says_nothing_of_a_writable_path(tmp_path: Path) -> None:
    assert unwritable(str(tmp_path / "a" / "b" / "r.json")) is None
    assert unwritable(str(tmp_path), folder=True) is None
    assert unwritable("-") is None
    assert unwritable(os.devnull) is None
    assert unwritable(str(tmp_path / "r.json"), folder=True) is None  # a folder that does not exist yet
    (tmp_path / "f").write_text("x", encoding="utf-8")
    assert unwritable(str(tmp_path / "f"), folder=True) == "it is not a folder"
    assert not (tmp_path / "a").exists()


def test_unwritable_sees_a_folder_without_permission(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root may write into any folder")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        assert unwritable(str(locked / "r.json")) == f"no permission to create it in {locked}"
        with pytest.raises(InputError, match="--json"):
            check_targets([Target("--json", str(locked / "r.json"))])
    finally:
        locked.chmod(0o755)


def test_a_file_every_output_appends_to_may_be_shared(tmp_path: Path) -> None:
    summary = str(tmp_path / "summary.md")
    check_targets([Target("$GITHUB_STEP_SUMMARY", summary, append=True, owner="a"),
                   Target("$GITHUB_STEP_SUMMARY", summary, append=True, owner="b")])
    with pytest.raises(InputError, match="--json and \\$GITHUB_STEP_SUMMARY would both write"):
        check_targets([Target("--json", summary), Target("$GITHUB_STEP_SUMMARY", summary, append=True)])
