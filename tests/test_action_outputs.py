"""The action writes its reports inside the workspace only: a pull request that commits the report
folder (or a report file) as a symlink leading out of it gets an input error, and nothing outside
is written or removed."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.github_server import FakeGitHub
from tests.test_action import GOOD, Runner, annotations, run, write_set


@pytest.fixture
def runner(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Runner]:
    with FakeGitHub() as server:
        r = Runner(tmp_path, server)
        monkeypatch.chdir(r.ws)  # the runner starts a container action in the workspace
        for name in ("ANTHROPIC_API_KEY", "GITHUB_TOKEN", "GITHUB_EVENT_PATH", "GITHUB_OUTPUT",
                     "GITHUB_STEP_SUMMARY", "SOURCEGATE_COMMENT_AUTHORS"):
            monkeypatch.delenv(name, raising=False)
        yield r


def _outside(runner: Runner) -> Path:
    outside = runner.tmp / "outside"
    outside.mkdir()
    (outside / "report.json").write_text("precious", encoding="utf-8")
    return outside


def _refused(runner: Runner, log: str, code: int, outside: Path) -> None:
    assert code == 2, log
    [error] = annotations(log)
    assert "refusing to write through a symlink that leads out of the workspace" in error
    assert [p.name for p in outside.iterdir()] == ["report.json"]
    assert (outside / "report.json").read_text(encoding="utf-8") == "precious"


def test_a_report_folder_committed_as_a_symlink_out_of_the_workspace_is_refused(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    outside = _outside(runner)
    (runner.ws / "sourcegate-report").symlink_to(outside, target_is_directory=True)
    event = runner.event(runner.commit())
    code = run(runner.env(event, golden_set=golden, comment="false"))
    _refused(runner, capsys.readouterr().out, code, outside)


def test_a_report_file_committed_as_a_symlink_out_of_the_workspace_is_refused(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    outside = _outside(runner)
    (runner.ws / "sourcegate-report").mkdir()
    (runner.ws / "sourcegate-report" / "report.json").symlink_to(outside / "report.json")
    event = runner.event(runner.commit())
    code = run(runner.env(event, golden_set=golden, comment="false"))
    _refused(runner, capsys.readouterr().out, code, outside)


def test_a_report_folder_symlinked_inside_the_workspace_is_used(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    (runner.ws / "reports").mkdir()
    os.symlink("reports", runner.ws / "sourcegate-report", target_is_directory=True)
    event = runner.event(runner.commit())
    code = run(runner.env(event, golden_set=golden, comment="false"))
    assert code == 0, capsys.readouterr().out
    assert json.loads((runner.ws / "reports" / "report.json").read_text(encoding="utf-8"))["verdict"] == "pass"
