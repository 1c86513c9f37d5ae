"""The action when a set has no verdict, or the step cannot run: nothing dropped silently, no stale
comment, outputs on every error path, messages true to the mode. In the simulated Actions
environment (the ``runner`` fixture) against the loopback fake GitHub."""

from __future__ import annotations

import json
import shutil

import pytest

from gate import cli
from gate.action.notrun import not_run_comment
from gate.github import FORK_HINT, marker
from tests.support.action_runner import FABRICATED, GOOD, PR_NUMBER, REPO, Runner, annotations, run, write_set
from tests.support.github_server import forbidden_integration

# --------------------------------------------------------------------------------------------
# A set the pull request deletes is not skipped silently


def test_a_set_the_pr_deletes_fails_the_step_and_says_how_to_retire_it(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    write_set(runner.ws, "alpha", {"moons": GOOD})
    write_set(runner.ws, "beta", {"made-up": (FABRICATED,)})
    base = runner.commit()
    event = runner.event(base)
    assert run(runner.env(event, judge="off")) == 1  # beta fails at the base: its comment says fail
    capsys.readouterr()
    shutil.rmtree(runner.ws / "cached-snapshots" / "beta")
    runner.commit()

    code = run(runner.env(event, judge="off"))
    log = capsys.readouterr().out
    assert code == 2, log
    out = runner.outputs()
    assert out["verdict"] == "error" and out["exit-code"] == "2"
    sets = json.loads(out["sets"])
    assert [(s["name"], s["verdict"]) for s in sets] == [("alpha", "pass"), ("beta", "error")]
    [cannot] = [a for a in annotations(log) if "could not run" in a]
    assert "cached-snapshots/beta" in cannot and "'golden-set' input" in cannot and base[:12] in cannot
    summary = runner.summary.read_text(encoding="utf-8")
    assert "`beta` error" in summary and "retire it on purpose" in summary
    comments = {k: c for c in runner.server.comments(REPO, PR_NUMBER)
                for k in ("alpha", "beta") if marker(k) in c["body"]}
    assert "sourcegate could not run" in comments["beta"]["body"]
    assert "retire it on purpose" in comments["beta"]["body"]
    assert "**pass**" in comments["alpha"]["body"]

    # Naming the sets retires beta on purpose.
    assert run(runner.env(event, judge="off", golden_set="cached-snapshots/alpha")) == 0


# --------------------------------------------------------------------------------------------
# judge: auto is live only with the key of the provider that will judge


def test_auto_replays_without_the_configured_providers_key(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    (runner.ws / golden / "sourcegate.yaml").write_text("judge:\n  provider: openai\n", encoding="utf-8")
    event = runner.event(runner.commit())
    code = run(runner.env(event, golden_set=golden, anthropic_api_key="sk-ant-x", comment="false"))
    log = capsys.readouterr().out
    assert code == 0, log
    assert runner.outputs()["judge"] == "replay"
    assert "no openai-api-key was given" in " ".join(annotations(log, "notice"))


def test_auto_runs_a_provider_that_needs_no_key_live(runner: Runner, capsys: pytest.CaptureFixture[str]) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    (runner.ws / golden / "sourcegate.yaml").write_text("judge:\n  provider: scripted\n", encoding="utf-8")
    event = runner.event(runner.commit())
    assert run(runner.env(event, golden_set=golden, comment="false")) == 0, capsys.readouterr().out
    assert runner.outputs()["judge"] == "live"
    report = json.loads((runner.ws / "sourcegate-report" / "report.json").read_text(encoding="utf-8"))
    assert report["judge"]["usage"]["calls"] >= 1


# --------------------------------------------------------------------------------------------
# A set that could not run updates its comment of an earlier push


@pytest.mark.parametrize("several", [False, True])
def test_a_push_the_gate_cannot_run_on_updates_the_comment_in_place(
    runner: Runner, capsys: pytest.CaptureFixture[str], several: bool
) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    other = write_set(runner.ws, "other", {"moons": GOOD}) if several else None
    paths = f"{golden}\n{other}" if other else golden
    event = runner.event(runner.commit())
    assert run(runner.env(event, golden_set=paths, judge="off")) == 0
    [first] = [c for c in runner.server.comments(REPO, PR_NUMBER) if marker("t") in c["body"]]
    assert "**pass**" in first["body"]

    (runner.ws / golden / "runs" / "moons.json").write_text('{"format": "x`<b>@octocat</b>", "question": ')
    assert run(runner.env(event, golden_set=paths, judge="off")) == 2
    [now] = [c for c in runner.server.comments(REPO, PR_NUMBER) if marker("t") in c["body"]]
    assert now["id"] == first["id"]
    body = now["body"]
    assert "sourcegate could not run" in body and "**pass**" not in body and "moons.json" in body
    assert len(runner.server.comments(REPO, PR_NUMBER)) == (2 if several else 1)
    if several:
        [kept] = [c for c in runner.server.comments(REPO, PR_NUMBER) if marker("other") in c["body"]]
        assert "**pass**" in kept["body"]


def test_a_set_that_never_had_a_comment_gets_none_when_it_cannot_run(runner: Runner) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    (runner.ws / golden / "runs" / "moons.json").write_text('{"format": ')
    assert run(runner.env(runner.event(runner.commit()), golden_set=golden, judge="off")) == 2
    assert runner.server.comments(REPO, PR_NUMBER) == []


def test_the_could_not_run_comment_keeps_the_error_as_text() -> None:
    body = not_run_comment("n`](x)", "bad ``@octocat <img src=x> ![i](https://t.example/p.png)\n::error::x", 2, None)
    [error] = [line for line in body.splitlines() if line.startswith("**Error:**")]
    span = error.removeprefix("**Error:** ")
    assert span.startswith("```bad ``@octocat") and span.endswith("```")  # one span, its fence the longest run
    assert span.count("```") == 2
    assert "\n::error" not in body and marker("n`](x)") in body


# --------------------------------------------------------------------------------------------
# verdict=error and exit-code on every error path


@pytest.mark.parametrize(
    ("inputs", "said"),
    [
        ({"fail_on": "bogus"}, "input 'fail-on'"),
        ({"report_dir": "../x"}, "input 'report-dir'"),
        ({"golden_set": "cached-snapshots/nope"}, "no such file or folder"),
        ({"baseline_ref": "f95f852bd8fca8fcc58a9a2d6c842781e32a215e"}, "fetch-depth: 0"),
        ({"shard": "3/2"}, "input 'shard'"),
        ({"comment_from": "sourcegate-artifact"}, "needs the 'pr-number' input"),
        ({"comment_from": "sourcegate-artifact", "pr_number": "2"}, "no report here"),
    ],
)
def test_every_error_path_writes_verdict_error_and_the_exit_code(
    runner: Runner, capsys: pytest.CaptureFixture[str], inputs: dict[str, str], said: str
) -> None:
    write_set(runner.ws, "t", {"moons": GOOD})
    runner.commit()
    inputs = {"golden_set": "cached-snapshots/t", **inputs}
    assert run(runner.env(None, **inputs)) == 2
    assert said in capsys.readouterr().out
    out = runner.outputs()
    assert out["verdict"] == "error" and out["exit-code"] == "2"


def test_comment_mode_writes_its_exit_code(runner: Runner) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    target = runner.ws / "sourcegate-artifact" / "report.json"
    assert cli.main(["check", str(runner.ws / golden), "--json", str(target), "--judge", "off"]) == 0
    assert run(runner.env(None, comment_from="sourcegate-artifact", pr_number=str(PR_NUMBER))) == 0
    out = runner.outputs()
    assert out["verdict"] == "pass" and out["exit-code"] == "0"


def test_an_unwritable_github_output_is_a_clear_error(runner: Runner, capsys: pytest.CaptureFixture[str]) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    env = runner.env(None, golden_set=golden, judge="off", comment="false")
    env["GITHUB_OUTPUT"] = str(runner.tmp)  # a folder: cannot be appended to
    assert run(env) == 2
    log = capsys.readouterr()
    [error] = [a for a in annotations(log.out) if "GITHUB_OUTPUT" in a]
    assert "cannot write the step's outputs (GITHUB_OUTPUT)" in error
    assert "Traceback" not in log.out + log.err


# --------------------------------------------------------------------------------------------
# The commenter links to the gate's run


@pytest.mark.parametrize(("payload", "link"), [
    ({"workflow_run": {"id": 4242, "event": "pull_request"}}, "/actions/runs/4242"),
    ({"workflow_run": {"event": "pull_request"}}, None),
])
def test_the_commenter_links_to_the_gates_run_not_its_own(
    runner: Runner, payload: dict[str, object], link: str | None
) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    target = runner.ws / "sourcegate-artifact" / "report.json"
    assert cli.main(["check", str(runner.ws / golden), "--json", str(target), "--judge", "off"]) == 0
    event = runner.tmp / "workflow_run.json"
    event.write_text(json.dumps(payload), encoding="utf-8")
    env = runner.env(None, comment_from="sourcegate-artifact", pr_number=str(PR_NUMBER))
    env.update({"GITHUB_EVENT_NAME": "workflow_run", "GITHUB_EVENT_PATH": str(event), "GITHUB_RUN_ID": "999"})
    assert run(env) == 0
    [posted] = runner.server.comments(REPO, PR_NUMBER)
    assert "/actions/runs/999" not in posted["body"]
    if link is None:
        assert "/actions/runs/" not in posted["body"] and "the job summary" in posted["body"]
    else:
        assert f"the [job summary](https://github.com/{REPO}{link})" in posted["body"]


# --------------------------------------------------------------------------------------------
# Messages true to the mode


def test_a_refused_comment_says_the_fork_hint_once(runner: Runner, capsys: pytest.CaptureFixture[str]) -> None:
    golden = write_set(runner.ws, "t", {"made-up": (FABRICATED,)})
    runner.server.script("create_comment", forbidden_integration())
    assert run(runner.env(runner.event(runner.commit(), fork=True), golden_set=golden, judge="off")) == 1
    log = capsys.readouterr().out
    [said] = [line for line in log.splitlines() if "could not post the PR comment" in line]
    assert said.count(FORK_HINT) == 1 and "The verdict and exit code are unchanged" in said


def test_comment_mode_says_a_refused_comment_fails_it(runner: Runner, capsys: pytest.CaptureFixture[str]) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    target = runner.ws / "sourcegate-artifact" / "report.json"
    assert cli.main(["check", str(runner.ws / golden), "--json", str(target), "--judge", "off"]) == 0
    runner.server.script("create_comment", forbidden_integration())
    assert run(runner.env(None, comment_from="sourcegate-artifact", pr_number=str(PR_NUMBER))) == 5
    log = capsys.readouterr().out
    [said] = [line for line in log.splitlines() if "could not post the PR comment" in line]
    assert "unchanged" not in said and "exit 5" in said and said.count(FORK_HINT) == 1
    assert runner.outputs()["exit-code"] == "5"


@pytest.mark.parametrize(("inputs", "said", "not_said"), [
    ({"judge_provider": "gemini"}, "input 'judge-provider' must be one of anthropic, openai, scripted", "one of ,"),
    ({"shard": "0/2"}, "input 'shard' must be i/n", "--shard"),
    ({"golden_set": "cached-snapshots/t/golden.yaml"},
     "input 'golden-set' names files, not a golden-set folder", "--baseline-ref"),
])
def test_input_errors_name_the_input(runner: Runner, capsys: pytest.CaptureFixture[str], inputs: dict[str, str],
                                     said: str, not_said: str) -> None:
    write_set(runner.ws, "t", {"moons": GOOD})
    event = runner.event(runner.commit())
    assert run(runner.env(event, **{"golden_set": "cached-snapshots/t", **inputs})) == 2
    [error] = annotations(capsys.readouterr().out)
    assert said in error and not_said not in error
    if "golden_set" in inputs:
        assert "(cached-snapshots/t)" in error


def test_pull_request_target_is_warned_about(runner: Runner, capsys: pytest.CaptureFixture[str]) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    env = runner.env(runner.event(runner.commit()), golden_set=golden, judge="off", comment="false")
    assert run(env) == 0
    assert not [w for w in annotations(capsys.readouterr().out, "warning") if "pull_request_target" in w]
    env["GITHUB_EVENT_NAME"] = "pull_request_target"
    assert run(env) == 0
    [warning] = [w for w in annotations(capsys.readouterr().out, "warning") if "pull_request_target" in w]
    assert "docs/fork-safe.md" in warning


def test_a_pr_that_deletes_every_set_fails_the_step(runner: Runner, capsys: pytest.CaptureFixture[str]) -> None:
    write_set(runner.ws, "alpha", {"moons": GOOD})
    event = runner.event(runner.commit())
    shutil.rmtree(runner.ws / "cached-snapshots")
    runner.commit()
    assert run(runner.env(event, judge="off")) == 2
    assert any("cached-snapshots/alpha" in a for a in annotations(capsys.readouterr().out))
    assert runner.outputs()["verdict"] == "error"
