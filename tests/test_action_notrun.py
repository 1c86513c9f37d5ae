"""The fork-safe pair when the gate cannot run a set: the gate writes ``not-run.json`` where the set's
report would be, and comment mode reads it as untrusted data and updates the set's earlier comment
in place to say this push could not be gated. Gate mode then comment mode, in the simulated Actions
environment against the loopback fake GitHub."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gate.github import marker
from tests.support.action_runner import GOOD, PR_NUMBER, REPO, Runner, run, write_set


def _gate_then_upload(runner: Runner, event: Path, golden: str) -> int:
    """The gate job (comment: false) in a fresh checkout, then the artifact as the commenter downloads it."""
    shutil.rmtree(runner.ws / "sourcegate-report", ignore_errors=True)
    code = run(runner.env(event, golden_set=golden, judge="off", comment="false"))
    shutil.rmtree(runner.ws / "sourcegate-artifact", ignore_errors=True)
    shutil.copytree(runner.ws / "sourcegate-report", runner.ws / "sourcegate-artifact")
    return code


def _commenter(runner: Runner) -> int:
    return run(runner.env(None, comment_from="sourcegate-artifact", pr_number=str(PR_NUMBER)))


def _passing_comment(runner: Runner) -> tuple[Path, str, dict[str, object]]:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    event = runner.event(runner.commit())
    assert _gate_then_upload(runner, event, golden) == 0
    assert _commenter(runner) == 0
    [first] = runner.server.comments(REPO, PR_NUMBER)
    assert "**pass**" in first["body"]
    return event, golden, first


def test_a_push_the_gate_cannot_run_on_turns_the_pass_comment_into_could_not_run(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    event, golden, first = _passing_comment(runner)
    (runner.ws / golden / "runs" / "moons.json").write_text('{"format": "sourcegate-trace/1", "question": ')
    assert _gate_then_upload(runner, event, golden) == 2
    record = json.loads((runner.ws / "sourcegate-artifact" / "not-run.json").read_text(encoding="utf-8"))
    assert record["format"] == "sourcegate-not-run/1" and record["name"] == "t" and record["exit_code"] == 2
    assert not (runner.ws / "sourcegate-artifact" / "report.json").exists()
    capsys.readouterr()

    assert _commenter(runner) == 0
    [now] = runner.server.comments(REPO, PR_NUMBER)
    assert now["id"] == first["id"]
    assert "sourcegate could not run" in now["body"] and "**pass**" not in now["body"]
    assert "moons.json" in now["body"]
    out = runner.outputs()
    assert out["verdict"] == "error" and out["exit-code"] == "0" and out["comment-url"] == now["html_url"]

    # The next push runs again: the record is gone and the comment shows the verdict again.
    shutil.rmtree(runner.ws / golden)
    write_set(runner.ws, "t", {"moons": GOOD})
    assert _gate_then_upload(runner, event, golden) == 0
    assert not (runner.ws / "sourcegate-artifact" / "not-run.json").exists()
    assert _commenter(runner) == 0
    [again] = runner.server.comments(REPO, PR_NUMBER)
    assert again["id"] == first["id"] and "**pass**" in again["body"]


def test_a_not_run_record_creates_no_comment(runner: Runner) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    event = runner.event(runner.commit())
    (runner.ws / golden / "runs" / "moons.json").write_text('{"format": ')
    assert _gate_then_upload(runner, event, golden) == 2
    assert _commenter(runner) == 0
    assert runner.server.comments(REPO, PR_NUMBER) == []
    assert runner.outputs()["verdict"] == "error"


def _record(runner: Runner, **fields: object) -> Path:
    target = runner.ws / "sourcegate-artifact" / "not-run.json"
    target.parent.mkdir(exist_ok=True)
    data = {"format": "sourcegate-not-run/1", "name": "t", "exit_code": 2, "error": "x", **fields}
    target.write_text(json.dumps(data), encoding="utf-8")
    return target


@pytest.mark.parametrize(("fields", "said"), [
    ({"format": "sourcegate-not-run/9"}, "$.format"),
    ({"exit_code": 0}, "$.exit_code"),
    ({"verdict": "pass"}, "verdict"),
    ({"error": "e" * 5000}, "$.error"),
])
def test_a_tampered_record_is_refused_and_the_comment_left_alone(
    runner: Runner, capsys: pytest.CaptureFixture[str], fields: dict[str, object], said: str
) -> None:
    _passing_comment(runner)
    capsys.readouterr()
    shutil.rmtree(runner.ws / "sourcegate-artifact")
    _record(runner, **fields)
    before = runner.server.comments(REPO, PR_NUMBER)
    assert _commenter(runner) == 2
    assert said in capsys.readouterr().out
    assert runner.server.comments(REPO, PR_NUMBER) == before
    assert runner.outputs()["verdict"] == "error"


def test_a_huge_record_is_refused_before_it_is_read(runner: Runner, capsys: pytest.CaptureFixture[str]) -> None:
    target = _record(runner)
    with target.open("ab") as f:
        f.truncate(51 * 1024 * 1024)
    assert _commenter(runner) == 2
    assert "is refused" in capsys.readouterr().out
    assert runner.server.requests == []


def test_the_records_error_stays_text_in_the_comment_and_the_log(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    _passing_comment(runner)
    shutil.rmtree(runner.ws / "sourcegate-artifact")
    capsys.readouterr()
    _record(runner, error="``@octocat <img src=x> ![i](https://t.example/p.png)\n::error::planted\n**pass**")
    assert _commenter(runner) == 0
    log = capsys.readouterr().out
    assert "\n::error::planted" not in log
    [now] = runner.server.comments(REPO, PR_NUMBER)
    body = now["body"]
    assert "sourcegate could not run" in body and marker("t") in body
    [error] = [line for line in body.splitlines() if line.startswith("**Error:**")]
    span = error.removeprefix("**Error:** ")
    assert span.startswith("```") and span.endswith("```") and span.count("```") == 2
    assert "\n::error" not in body


def test_a_set_the_pr_deletes_gets_its_comment_marked_by_the_commenter(runner: Runner) -> None:
    write_set(runner.ws, "alpha", {"moons": GOOD})
    write_set(runner.ws, "beta", {"moons": GOOD})
    event = runner.event(runner.commit())
    assert _gate_then_upload(runner, event, "") == 0
    assert _commenter(runner) == 0
    assert len(runner.server.comments(REPO, PR_NUMBER)) == 2

    shutil.rmtree(runner.ws / "cached-snapshots" / "beta")
    runner.commit()
    assert _gate_then_upload(runner, event, "") == 2
    assert (runner.ws / "sourcegate-artifact" / "report.json").exists()
    assert (runner.ws / "sourcegate-artifact" / "beta" / "not-run.json").exists()
    assert _commenter(runner) == 0
    comments = {k: c["body"] for c in runner.server.comments(REPO, PR_NUMBER)
                for k in ("alpha", "beta") if marker(k) in c["body"]}
    assert len(runner.server.comments(REPO, PR_NUMBER)) == 2
    assert "**pass**" in comments["alpha"]
    assert "sourcegate could not run" in comments["beta"] and "retire it on purpose" in comments["beta"]
    assert runner.outputs()["verdict"] == "error"


def test_a_folder_with_a_record_is_never_shown_with_a_verdict(runner: Runner) -> None:
    event, golden, first = _passing_comment(runner)
    _record(runner, error="the gate could not run")  # beside the passing report.json
    assert _commenter(runner) == 0
    [now] = runner.server.comments(REPO, PR_NUMBER)
    assert now["id"] == first["id"] and "**pass**" not in now["body"]
    assert "sourcegate could not run" in now["body"]
