"""The action's entrypoint, run in-process in a simulated GitHub Actions environment.

Each test gets a ``runner`` (``tests/support/action_runner.py``): what the runner gives a container
action (``INPUT_*`` variables, ``GITHUB_OUTPUT`` and ``GITHUB_STEP_SUMMARY`` files, a real
``pull_request`` webhook payload, ``GITHUB_API_URL`` pointing at the loopback fake GitHub), in a
workspace that is a real git repository.

Tests run the real gate, in-process as the action calls it. The plumbing (the request planned
from the inputs and the event, outputs, annotations, exit codes, masking) is also tested against a
stand-in for the gate, passed in as the action's ``gate`` value, that returns a given report: the
action writes its files, summary and comment as it would the real one's.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from gate import action, cli
from gate.action import check as action_check
from gate.action.plan import plan_check
from gate.errors import InputError
from gate.github import MARKER_PREFIX, marker, pr_context_from_env
from gate.load.gated import GatedRuns
from gate.model import Finding, Verdict
from gate.pipeline import MergeRequest, SetRequest
from gate.results import CaseResult, Counts
from gate.term.progress import Progress
from gate.verdict.report import Report
from tests.support.action_runner import (
    FABRICATED,
    GOOD,
    PR_NUMBER,
    REPO,
    Runner,
    annotations,
    run,
    write_set,
)
from tests.support.anthropic_server import AnthropicServer, error_reply
from tests.support.fresh_import import FreshImport
from tests.support.github_server import DEFAULT_TOKEN, FakeGitHub, forbidden_integration

API_KEY = "sk-ant-api03-DoNotLeakThisKey0123456789abcdefABCDEF"

# What the action's inputs offer, `sourcegate check` offers too: the two run the same code.
NEEDED_FLAGS = {"--judge", "--summary", "--junit", "--baseline-ref", "--comment", "--comment-author"}


def _check_flags() -> set[str]:
    parser = cli.build_parser()
    [sub] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return {opt for a in sub.choices["check"]._actions for opt in a.option_strings}


def test_the_check_command_has_every_option_the_action_offers() -> None:
    assert sorted(NEEDED_FLAGS - _check_flags()) == []


# --------------------------------------------------------------------------------------------
# The real gate, in-process


def test_a_clean_pass_sets_outputs_writes_the_summary_and_comments(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    event = runner.event(runner.commit())
    code = run(runner.env(event, golden_set=golden, judge="off"))
    log = capsys.readouterr().out
    assert code == 0, log
    out = runner.outputs()
    assert out["verdict"] == "pass" and out["hard-failures"] == "0" and out["exit-code"] == "0"
    assert out["judge"] == "off"
    assert json.loads((runner.ws / out["report-path"]).read_text())["verdict"] == "pass"
    assert annotations(log) == []
    assert "sourcegate" in runner.summary.read_text(encoding="utf-8")
    [posted] = runner.server.comments(REPO, PR_NUMBER)
    assert MARKER_PREFIX in posted["body"]


def test_a_hard_failure_annotates_the_run_file_and_exits_1(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD, "made-up": (GOOD[0], FABRICATED)})
    event = runner.event(runner.commit())
    code = run(runner.env(event, golden_set=golden, comment="false"))
    log = capsys.readouterr().out
    assert code == 1, log
    out = runner.outputs()
    assert out["verdict"] == "fail" and out["exit-code"] == "1"
    assert int(out["hard-failures"]) >= 1
    failures = [a for a in annotations(log) if "title=sourcegate fabricated_url" in a]
    assert failures == [a for a in failures if a.startswith(
        "::error file=cached-snapshots/t/runs/made-up.json,title=sourcegate fabricated_url%3A made-up::")]
    assert failures and FABRICATED in failures[0]
    assert runner.server.requests == []  # comment: false


def test_a_github_app_token_updates_its_comment_when_comment_author_names_it(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    event = runner.event(runner.commit())
    with FakeGitHub(app="my-app") as app:  # GET /user is 403; comments are written by my-app[bot]
        runner.server = app
        ours = app.add_comment(REPO, PR_NUMBER, f"old\n{marker('t')}", login="my-app[bot]", user_type="Bot")
        assert run(runner.env(event, golden_set=golden, judge="off", comment_author="my-app[bot]")) == 0
        assert not app.requests_to("create_comment") and len(app.requests_to("update_comment")) == 1
        assert [c["id"] for c in app.comments(REPO, PR_NUMBER)] == [ours["id"]]
        assert "not an accepted comment author" not in capsys.readouterr().out

        # Without the input: a second comment, and the log says which input prevents the next one.
        assert run(runner.env(event, golden_set=golden, judge="off")) == 0
        assert len(app.comments(REPO, PR_NUMBER)) == 2
        log = capsys.readouterr().out
        [hint] = [line for line in log.splitlines() if "not an accepted comment author" in line]
        assert "set `comment-author: my-app[bot]`" in hint


def test_comment_mode_passes_comment_author_through(runner: Runner, capsys: pytest.CaptureFixture[str]) -> None:
    _real_report(runner, {"moons": GOOD})
    with FakeGitHub(app="my-app") as app:
        runner.server = app
        ours = app.add_comment(REPO, PR_NUMBER, f"old\n{marker('t')}", login="my-app[bot]", user_type="Bot")
        env = runner.env(None, comment_from="sourcegate-artifact", pr_number=str(PR_NUMBER),
                         comment_author="my-app[bot]")
        assert run(env) == 0, capsys.readouterr()
        assert not app.requests_to("create_comment")
        assert [c["id"] for c in app.comments(REPO, PR_NUMBER)] == [ours["id"]]
        assert runner.outputs()["comment-url"] == ours["html_url"]


def test_a_fork_pr_without_key_or_write_permission_replays_and_keeps_the_verdict(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD, "made-up": (GOOD[0], FABRICATED)})
    base = runner.commit()
    same_repo = run(runner.env(runner.event(base), golden_set=golden, comment="false"))
    capsys.readouterr()
    runner.output.write_text("")
    runner.summary.write_text("")

    runner.server.script("create_comment", forbidden_integration())
    code = run(runner.env(runner.event(base, fork=True), golden_set=golden))
    log = capsys.readouterr()
    assert code == same_repo == 1
    out = runner.outputs()
    assert out["verdict"] == "fail" and out["judge"] == "replay"
    notices = " ".join(annotations(log.out, "notice"))
    assert "no anthropic-api-key" in notices and "fork" in notices
    assert runner.server.comments(REPO, PR_NUMBER) == []  # refused, and said so
    # The gate's own messages share stdout with the stop-commands tokens (so none can overtake them).
    assert "Resource not accessible by integration" in log.out or "read-only" in log.out
    assert "no anthropic\\-api\\-key" in runner.summary.read_text(encoding="utf-8")


def test_fail_on_none_reports_the_failure_but_passes_the_step(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    golden = write_set(runner.ws, "t", {"made-up": (FABRICATED,)})
    code = run(runner.env(runner.event(runner.commit()), golden_set=golden, comment="false", fail_on="none"))
    assert code == 0, capsys.readouterr().out
    assert runner.outputs()["verdict"] == "fail"


def test_a_malformed_run_file_exits_2_and_names_the_file(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    (runner.ws / golden / "runs" / "moons.json").write_text('{"format": "sourcegate-trace/1", "question": ')
    code = run(runner.env(runner.event(runner.commit()), golden_set=golden, comment="false"))
    log = capsys.readouterr()
    assert code == 2
    assert "moons.json" in log.out
    [error] = annotations(log.out)
    assert error.startswith("::error title=sourcegate could not run::") and "moons.json" in error
    assert runner.outputs()["verdict"] == "error"
    assert not (runner.ws / "sourcegate-report" / "report.json").exists()


def test_a_pr_that_switches_the_checks_off_is_judged_by_the_base_config(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD, "made-up": (GOOD[0], FABRICATED)})
    base = runner.commit()
    (runner.ws / golden / "sourcegate.yaml").write_text("checks:\n  disabled: [fabricated_url]\n")
    runner.commit()
    code = run(runner.env(runner.event(base), golden_set=golden, judge="off"))
    log = capsys.readouterr().out
    assert code == 1, log
    report = json.loads((runner.ws / runner.outputs()["report-path"]).read_text(encoding="utf-8"))
    assert report["summary"]["by_check"] == {"fabricated_url": 1}
    assert report["config_changes"] == [{"setting": "checks.disabled.fabricated_url", "base": "enabled",
                                         "pr": "disabled", "effect": "weakening"}]
    [posted] = runner.server.comments(REPO, PR_NUMBER)
    assert "### Configuration changed by this pull request" in posted["body"]
    assert "apply from the next pull request after this one is merged" in posted["body"]


def test_a_config_input_the_base_lacks_needs_trust_config(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    base = runner.commit()
    (runner.ws / "sg.yaml").write_text("checks:\n  domain_cap: 3\n")
    runner.commit()
    code = run(runner.env(runner.event(base), golden_set=golden, judge="off", config="sg.yaml", comment="false"))
    log = capsys.readouterr().out
    assert code == 2
    [error] = annotations(log)
    assert "sg.yaml" in error and "trust-config" in error
    code = run(runner.env(runner.event(base), golden_set=golden, judge="off", config="sg.yaml",
                          comment="false", trust_config="true"))
    assert code == 0, capsys.readouterr().out
    report = json.loads((runner.ws / "sourcegate-report" / "report.json").read_text(encoding="utf-8"))
    assert report["config"] == "sg.yaml" and any("--trust-config" in w for w in report["warnings"])


def test_the_gates_own_messages_stay_between_the_stop_commands_tokens(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    """Text the gate prints (file names, messages quoting pages) shares one stream with the tokens."""
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    (runner.ws / golden / "runs" / "moons.json").write_text('{"format": "sourcegate-trace/1", "question": ')
    run(runner.env(runner.event(runner.commit()), golden_set=golden, comment="false"))
    out = capsys.readouterr().out
    start = out.index("::stop-commands::")
    token = out[start + len("::stop-commands::"):].split("\n", 1)[0]
    end = out.index(f"::{token}::")
    assert start < out.index("sourcegate: error:") < end


def test_an_unavailable_judge_makes_the_run_inconclusive_never_a_silent_pass(
    runner: Runner, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Every hard check passes; the live judge's API answers 529 Overloaded to every call.
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    event = runner.event(runner.commit())
    with AnthropicServer(lambda request: error_reply(529), api_key=API_KEY) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        code = run(runner.env(event, golden_set=golden, anthropic_api_key=API_KEY, comment="false"))
        log = capsys.readouterr().out
        assert api.calls > 0  # the judge did run live, and failed
        assert code == 3, log
        out = runner.outputs()
        assert out["verdict"] == "inconclusive" and out["exit-code"] == "3" and out["judge"] == "live"
        [warning] = [w for w in annotations(log, "warning") if "title=sourcegate::" in w]
        assert "verdict inconclusive" in warning and "not a pass" in warning

        # fail-on none keeps the step green, but still says that the run is not a pass.
        runner.output.write_text("")
        code = run(runner.env(event, golden_set=golden, anthropic_api_key=API_KEY, comment="false",
                              fail_on="none"))
        log = capsys.readouterr().out
    assert code == 0
    assert runner.outputs()["verdict"] == "inconclusive"
    assert any("verdict inconclusive" in w and "not a pass" in w for w in annotations(log, "warning"))
    assert not list((runner.ws / golden).rglob("judgements/*.json"))  # failures are never cached


def test_a_live_judge_gets_the_key_input_and_never_a_process_variable(
    runner: Runner, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Only an OpenAI key is given, and the configuration's provider is anthropic: the Anthropic key
    # set on the step's environment must not stand in for the missing input, and auto replays.
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    with AnthropicServer(lambda request: error_reply(529), api_key=API_KEY) as api:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", API_KEY)
        code = run(runner.env(None, golden_set=golden, openai_api_key="sk-proj-x", comment="false"))
        assert api.calls == 0
    assert code == 0
    assert runner.outputs()["judge"] == "replay"
    assert "no anthropic-api-key was given" in " ".join(annotations(capsys.readouterr().out, "notice"))


# --------------------------------------------------------------------------------------------
# Plumbing, against a stand-in for the gate


def _report(verdict: Verdict, failures: Sequence[tuple[str, str, str]] = (), reasons: Sequence[str] = (),
            soft: dict[str, float] | None = None) -> Report:
    cases: dict[str, list[Finding]] = {}
    for case, check, url in failures:
        cases.setdefault(case, []).append(Finding(check, f"{url} was never in any search result", url))
    if not cases:
        cases["moons"] = []
    return Report(verdict=verdict, reasons=tuple(reasons), golden_name="t", golden_version=1,
                  cases=tuple(CaseResult(id=case, question="How many moons does Jupiter have?",
                                         hard_failures=tuple(found), checks=(), counts=Counts(),
                                         soft=MappingProxyType(dict(soft or {})))
                              for case, found in cases.items()))


class FakeGate:
    """Stands in for the gate: records each request, and returns ``report`` (or raises ``error``)."""

    def __init__(self, report: Report | None, error: Exception | None = None) -> None:
        self.report, self.error = report, error
        self.requests: list[SetRequest | MergeRequest] = []

    def __call__(self, request: SetRequest | MergeRequest, progress: Progress) -> Report:
        self.requests.append(request)
        if self.error is not None:
            raise self.error
        assert self.report is not None
        return self.report

    def request(self, i: int = 0) -> SetRequest:
        """The ``i``-th request, a golden set's (not a merge's)."""
        request = self.requests[i]
        assert isinstance(request, SetRequest)
        return request


def test_the_request_comes_from_inputs_and_event(runner: Runner) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    base = runner.commit()
    fake = FakeGate(_report("pass"))
    assert run(runner.env(runner.event(base), golden_set=golden, config="sg.yaml"), fake) == 0
    [request] = fake.requests
    assert isinstance(request, SetRequest) and request.paths == (golden,)
    assert request.judge_mode == "replay" and request.baseline_ref == base and request.config_file == "sg.yaml"
    assert runner.outputs()["report-path"] == "sourcegate-report/report.json"
    assert json.loads((runner.ws / "sourcegate-report" / "report.json").read_text())["verdict"] == "pass"
    # The comment is posted with the github-token input (the fake GitHub refuses any other token) ...
    [posted] = runner.server.requests_to("create_comment")
    assert posted.headers["authorization"] in (f"Bearer {DEFAULT_TOKEN}", f"token {DEFAULT_TOKEN}")
    # ... and the judge gets no key: it replays.
    assert request.judge_keys is None
    assert "GITHUB_TOKEN" not in os.environ and "ANTHROPIC_API_KEY" not in os.environ


def test_comment_author_becomes_one_login_each_and_only_when_commenting(runner: Runner) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    event = runner.event(runner.commit())
    fake = FakeGate(_report("pass"))
    with_comment = runner.env(event, golden_set=golden, comment_author="my-app[bot],\n other-app[bot]")
    without = runner.env(event, golden_set=golden, comment_author="my-app[bot]", comment="false")
    pr = pr_context_from_env(with_comment)
    assert plan_check(action.read_inputs(with_comment), [golden], pr).comment_authors == (
        "my-app[bot]", "other-app[bot]")
    assert plan_check(action.read_inputs(without), [golden], pr).comment_authors == ()
    with FakeGitHub(app="other-app") as app:  # its comments are written by other-app[bot]
        runner.server = app
        ours = app.add_comment(REPO, PR_NUMBER, f"old\n{marker('t')}", login="other-app[bot]", user_type="Bot")
        assert run(runner.env(event, golden_set=golden, comment_author="my-app[bot],\n other-app[bot]"), fake) == 0
        assert not app.requests_to("create_comment") and len(app.requests_to("update_comment")) == 1
        assert [c["id"] for c in app.comments(REPO, PR_NUMBER)] == [ours["id"]]
        before = len(app.requests)
        assert run(runner.env(event, golden_set=golden, comment_author="my-app[bot]", comment="false"), fake) == 0
        assert len(app.requests) == before


def test_a_key_turns_the_judge_live_and_is_masked_before_anything_else(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    fake = FakeGate(_report("pass"))
    code = run(runner.env(runner.event(runner.commit()), golden_set=golden, anthropic_api_key=API_KEY), fake)
    log = capsys.readouterr()
    assert code == 0
    assert log.out.splitlines()[0] == f"::add-mask::{API_KEY}"
    assert (log.out + log.err).count(API_KEY) == 1
    assert API_KEY not in runner.summary.read_text() + runner.outputs()["judge"]
    request = fake.request()
    assert request.judge_mode == "live"
    assert request.judge_keys is not None and request.judge_keys["anthropic"] == API_KEY
    assert API_KEY not in repr(request)  # a value that is never shown
    assert "ANTHROPIC_API_KEY" not in os.environ  # a value, never a process variable


def test_a_batch_judge_gets_the_key_input_too(runner: Runner, capsys: pytest.CaptureFixture[str]) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    fake = FakeGate(_report("pass"))
    env = runner.env(runner.event(runner.commit()), golden_set=golden, judge="batch", anthropic_api_key=API_KEY)
    assert run(env, fake) == 0
    request = fake.request()
    assert request.judge_mode == "batch"
    assert request.judge_keys is not None and request.judge_keys["anthropic"] == API_KEY
    assert "is not used" not in capsys.readouterr().out


def test_live_without_a_key_falls_back_to_replay_and_says_so(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    fake = FakeGate(_report("pass"))
    assert run(runner.env(None, golden_set=golden, judge="live"), fake) == 0
    assert fake.request().judge_mode == "replay" and fake.request().judge_keys is None
    assert "judge 'live' was asked for but no anthropic-api-key" in capsys.readouterr().out
    assert runner.outputs()["judge"] == "replay"


@pytest.mark.parametrize(
    ("verdict", "warnings", "fail_on", "expected"),
    [
        ("pass", False, "hard", 0),
        ("pass", True, "hard", 0),
        ("pass", True, "soft", 1),
        ("fail", False, "hard", 1),
        ("fail", False, "none", 0),
        ("inconclusive", False, "hard", 3),
        ("inconclusive", False, "soft", 3),
        ("inconclusive", False, "none", 0),
    ],
)
def test_the_exit_code_follows_the_verdict_and_fail_on(
    runner: Runner, verdict: Verdict, warnings: bool, fail_on: str, expected: int,
) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    reasons = ["grounding_rate 0.62 is below its floor 0.8 (warning)"] if warnings else []
    soft = {"grounding_rate": 0.62, "hallucination_rate": 0.25}
    fake = FakeGate(_report(verdict, reasons=reasons, soft=soft))
    assert run(runner.env(None, golden_set=golden, fail_on=fail_on), fake) == expected
    out = runner.outputs()
    assert out["verdict"] == verdict and out["exit-code"] == str(expected)
    assert out["grounding-rate"] == "0.6200" and out["hallucination-rate"] == "0.2500"
    assert out["soft-warnings"] == ("1" if warnings else "0")


@pytest.mark.parametrize(("error", "code"), [(InputError("no such golden set"), 2), (RuntimeError("a bug"), 4)])
def test_input_and_internal_errors_fail_even_with_fail_on_none(
    runner: Runner, capsys: pytest.CaptureFixture[str], error: Exception, code: int
) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    assert run(runner.env(None, golden_set=golden, fail_on="none"), FakeGate(None, error)) == code
    assert runner.outputs()["verdict"] == "error"
    [cannot] = [a for a in annotations(capsys.readouterr().out) if "could not run" in a]
    assert str(error) in cannot


def test_more_failures_than_github_shows_are_summed_up(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    failures = [("moons", "fabricated_url", f"https://x.example/{i}") for i in range(14)]
    assert run(runner.env(None, golden_set=golden), FakeGate(_report("fail", failures))) == 1
    errors = annotations(capsys.readouterr().out)
    per_failure = [e for e in errors if e.startswith("::error file=cached-snapshots/t/runs/moons.json,")]
    assert len(per_failure) == action.MAX_ANNOTATIONS - 1
    assert any("5 more hard failures" in e for e in errors)
    assert runner.outputs()["hard-failures"] == "14"


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_the_gate_output_cannot_issue_workflow_commands(
    runner: Runner, capsys: pytest.CaptureFixture[str], stream: str
) -> None:
    # A page or answer could hold "::set-output" or "::add-mask"; while the gate runs, the
    # runner must not read any line as a command, whichever stream it is printed on.
    golden = write_set(runner.ws, "t", {"moons": GOOD})

    def noisy(request: SetRequest | MergeRequest, progress: Progress) -> Report:
        print("::error::injected by a page", file=getattr(sys, stream))
        raise InputError("the page said so")

    run(runner.env(None, golden_set=golden), noisy)
    lines = capsys.readouterr().out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("::stop-commands::"))
    token = lines[start].split("::")[2]
    end = lines.index(f"::{token}::")
    assert start < lines.index("::error::injected by a page") < end
    assert len(token) == 32


def _give_away(folder: Path, uid: int = 65534) -> None:
    """Make ``folder`` and everything in it another user's, as the runner's mount is to the container."""
    for path in [folder, *folder.rglob("*")]:
        os.lchown(path, uid, uid)


def test_the_workspace_is_read_by_git_without_writing_any_git_configuration(runner: Runner) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    base = runner.commit()
    code = run(runner.env(runner.event(base), golden_set=golden, comment="false", judge="off"))
    assert code == 0 and "baseline" in runner.summary.read_text(encoding="utf-8")
    assert not runner.gitconfig.exists()  # the user's global configuration is left as it was


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving files to another user needs root")
def test_a_workspace_owned_by_another_user_is_read_at_its_base_commit(runner: Runner) -> None:
    # The runner mounts the workspace owned by another user than the container's root: git calls such a
    # repository "dubious" and reads nothing from it. The gate's own git commands trust it on their
    # command line (nothing written anywhere), since they run nothing the repository configures.
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    assert cli.main(["baseline", "update", str(runner.ws / golden), "--judge", "off"]) == 0
    base = runner.commit()
    _give_away(runner.ws)
    with pytest.raises(subprocess.CalledProcessError):
        runner.git("rev-parse", "HEAD")  # git itself refuses the repository
    (runner.ws / golden / "runs" / "moons.json").unlink()  # a change only the base commit does not have
    code = run(runner.env(runner.event(base), golden_set=golden, comment="false", judge="off"))
    assert code == 1 and not runner.gitconfig.exists()
    report = json.loads((runner.ws / "sourcegate-report" / "report.json").read_text(encoding="utf-8"))
    assert report["comparison"]["changed_files"] == [f"{golden}/runs/moons.json"]


def test_a_base_commit_missing_from_the_checkout_is_an_input_error(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    runner.commit()
    fake = FakeGate(_report("pass"))
    code = run(runner.env(runner.event("f95f852bd8fca8fcc58a9a2d6c842781e32a215e"), golden_set=golden), fake)
    assert code == 2 and fake.requests == []
    assert "fetch-depth: 0" in capsys.readouterr().out


def test_outside_a_git_checkout_the_baseline_is_left_to_the_gate(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    # No repository at all: not a missing commit. The gate reads the base and says what it cannot read.
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    fake = FakeGate(_report("pass"))
    base = "f95f852bd8fca8fcc58a9a2d6c842781e32a215e"
    assert run(runner.env(runner.event(base), golden_set=golden, comment="false"), fake) == 0
    assert fake.request().baseline_ref == base
    assert "fetch-depth" not in capsys.readouterr().out


def test_every_golden_set_is_found_and_none_is_an_input_error(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = FakeGate(_report("pass"))
    assert run(runner.env(None), fake) == 2
    assert "no golden set found under cached-snapshots/" in capsys.readouterr().out
    write_set(runner.ws, "one", {"moons": GOOD})
    assert run(runner.env(None), fake) == 0
    assert fake.request(-1).paths == ("cached-snapshots/one",)
    assert runner.outputs()["report-path"] == "sourcegate-report/report.json"
    write_set(runner.ws, "two", {"moons": GOOD})
    (runner.ws / "cached-snapshots" / "notes").mkdir()  # no golden.yaml: not a set
    fake.requests.clear()
    assert run(runner.env(None), fake) == 0
    assert [fake.request(i).paths for i in (0, 1)] == [("cached-snapshots/one",), ("cached-snapshots/two",)]
    assert runner.outputs()["report-path"].splitlines() == [
        "sourcegate-report/one/report.json", "sourcegate-report/two/report.json"]
    assert len(fake.requests) == 2


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("fail-on", "sometimes", "input 'fail-on' must be one of hard, soft, none; got 'sometimes'"),
        ("judge", "maybe", "input 'judge' must be one of auto, live, batch, replay, off"),
        ("comment", "perhaps", "input 'comment' must be true or false"),
        ("baseline-ref", "--output=/etc/passwd", "input 'baseline-ref' is not a git revision"),
        ("report-dir", "../outside", "input 'report-dir' must be a relative path inside the workspace"),
        ("pr-number", "2; rm -rf /", "input 'pr-number' must be a positive integer"),
        ("comment-author", "my app[bot]", "input 'comment-author': 'my app[bot]' is not a GitHub login"),
        ("comment-author", "--config=x", "input 'comment-author': '--config=x' is not a GitHub login"),
    ],
)
def test_a_malformed_input_exits_2_with_a_clear_message(
    runner: Runner, capsys: pytest.CaptureFixture[str], name: str, value: str, message: str,
) -> None:
    fake = FakeGate(_report("pass"))
    assert run(runner.env(None, **{name.replace("-", "_"): value}), fake) == 2
    [error] = annotations(capsys.readouterr().out)
    assert error.startswith("::error title=sourcegate::") and message in error
    assert fake.requests == []


def test_the_key_is_masked_even_when_another_input_is_malformed(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    fake = FakeGate(_report("pass"))
    assert run(runner.env(None, anthropic_api_key=f"  {API_KEY}\n", fail_on="sometimes"), fake) == 2
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"::add-mask::{API_KEY}"
    assert lines[-1].startswith("::error title=sourcegate::input 'fail-on'")
    assert fake.requests == []


def test_arguments_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert action.main({}, ["--golden-set", "x"]) == 2
    assert "takes no arguments" in capsys.readouterr().out


# --------------------------------------------------------------------------------------------
# Comment mode: the fork-safe pair's second job


def _real_report(runner: Runner, runs: dict[str, Sequence[str]]) -> Path:
    """A report.json written by the real CLI, as the gate job would upload it."""
    golden = write_set(runner.ws, "t", runs)
    target = runner.ws / "sourcegate-artifact" / "report.json"
    assert cli.main(["check", str(runner.ws / golden), "--json", str(target)]) in (0, 1, 3)
    return target


def test_comment_mode_renders_the_untrusted_report_again_and_posts_it(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    _real_report(runner, {"made-up": (FABRICATED,)})
    env = runner.env(None, comment_from="sourcegate-artifact", pr_number=str(PR_NUMBER))
    assert run(env) == 0, capsys.readouterr()
    [posted] = runner.server.comments(REPO, PR_NUMBER)
    assert MARKER_PREFIX in posted["body"] and "fail" in posted["body"]
    out = runner.outputs()
    assert out["verdict"] == "fail" and out["comment-url"] == posted["html_url"]
    # The second run updates the same comment: one comment per golden set, ever.
    assert run(env) == 0
    assert [c["id"] for c in runner.server.comments(REPO, PR_NUMBER)] == [posted["id"]]


def test_comment_mode_shows_what_the_artifact_says_as_text_only(runner: Runner) -> None:
    path = _real_report(runner, {"made-up": (FABRICATED,)})
    report = json.loads(path.read_text())
    report["reasons"] = ["@octocat ![x](https://tracker.example/p.png) </details><!--"]
    report["cases"][0]["hard_failures"][0]["check"] = "x`](https://evil.example)"
    path.write_text(json.dumps(report))
    assert run(runner.env(None, comment_from="sourcegate-artifact", pr_number="2")) == 0
    [posted] = runner.server.comments(REPO, PR_NUMBER)
    for raw in ("@octocat", "![x]", "</details><!--"):
        assert raw not in posted["body"]
    # The check id is shown literally, in a code span whose fence its backtick cannot close.
    assert posted["body"].count("evil.example") == posted["body"].count("``x`](https://evil.example)``") == 1


def test_comment_mode_refuses_a_report_that_is_not_one(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _real_report(runner, {"made-up": (FABRICATED,)})
    report = json.loads(path.read_text())
    report["verdict"] = "pass; ok"
    path.write_text(json.dumps(report))
    assert run(runner.env(None, comment_from="sourcegate-artifact", pr_number="2")) == 2
    assert "$.verdict" in capsys.readouterr().out
    assert runner.server.requests == []


def test_comment_mode_fails_when_github_refuses_the_comment(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    _real_report(runner, {"moons": GOOD})
    runner.server.script("create_comment", forbidden_integration())
    assert run(runner.env(None, comment_from="sourcegate-artifact", pr_number="2")) == 5
    assert "the pull request comment was not posted" in capsys.readouterr().out
    assert runner.outputs()["comment-url"] == ""


def test_comment_mode_needs_the_pr_number_from_github(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    _real_report(runner, {"moons": GOOD})
    assert run(runner.env(None, comment_from="sourcegate-artifact")) == 2
    assert "needs the 'pr-number' input" in capsys.readouterr().out
    assert runner.server.requests == []


# --------------------------------------------------------------------------------------------
# Units


def test_input_variables_are_named_as_the_runner_names_them() -> None:
    assert action.input_env_name("golden-set") == "INPUT_GOLDEN-SET"
    assert action.input_env_name("fail-on") == "INPUT_FAIL-ON"
    assert action.input_env_name("my input") == "INPUT_MY_INPUT"


def test_workflow_command_escaping() -> None:
    assert action.escape_data("100%\r\nnext") == "100%25%0D%0Anext"
    assert action.escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    line = action.workflow_command("error", "bad\n::add-mask::x", file="runs/a,b.json", title="t: x")
    assert line == "::error file=runs/a%2Cb.json,title=t%3A x::bad%0A::add-mask::x"
    assert "\n" not in line


def test_outputs_are_multiline_safe() -> None:
    block = action.output_block("report-path", "a\nb", delimiter="ghadelimiter_x")
    assert block == "report-path<<ghadelimiter_x\na\nb\nghadelimiter_x\n"
    with pytest.raises(ValueError, match="delimiter"):
        action.output_block("x", "ghadelimiter_x", delimiter="ghadelimiter_x")
    assert action.output_block("x", "") != action.output_block("x", "")  # a fresh delimiter each time


@pytest.mark.parametrize(
    ("requested", "has_key", "mode", "says_why"),
    [("auto", True, "live", False), ("auto", False, "replay", True), ("live", False, "replay", True),
     ("live", True, "live", False), ("replay", True, "replay", False), ("off", False, "off", False)],
)
def test_the_judge_mode(requested: str, has_key: bool, mode: str, says_why: bool) -> None:
    got, why = action.resolve_judge(requested, has_key)
    assert got == mode and (why is not None) == says_why


def test_the_soft_warnings_are_the_reasons_that_do_not_block() -> None:
    report = _report("pass", reasons=["x (warning)", "y 0.10 is below its floor 0.5 (blocking)"])
    assert action.outcome_from_report(report).soft_warnings == ("x (warning)",)


def test_starting_the_action_imports_neither_the_sdk_nor_the_gate(cli_import: FreshImport) -> None:
    # The shared fresh process imports the action's package first, as `python -m gate.action` does.
    assert "gate.action" in cli_import.action_modules
    assert sorted(m for m in ("anthropic", "requests", "gate.cli") if m in cli_import.action_modules) == []


def test_the_traces_of_an_agent_s_job_are_read_from_their_own_folder(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    # The committed runs pass; the traces the agent's job uploaded (downloaded beside the checkout)
    # cite a URL no search showed: the gate judges those, and annotates them where they are.
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    base = runner.commit()
    traces = runner.ws / "sourcegate-traces"
    traces.mkdir()
    shutil.copy(runner.ws / golden / "runs" / "moons.json", traces / "moons.json")
    made_up = json.loads((traces / "moons.json").read_text(encoding="utf-8"))
    made_up["answer"] += f" See also [more]({FABRICATED})."
    (traces / "moons.json").write_text(json.dumps(made_up), encoding="utf-8")
    code = run(runner.env(runner.event(base), golden_set=golden, runs="sourcegate-traces", comment="false",
                          judge="off"))
    log = capsys.readouterr().out
    assert code == 1 and runner.outputs()["verdict"] == "fail"
    [failure] = [a for a in annotations(log) if "fabricated_url" in a]
    assert failure.startswith("::error file=sourcegate-traces/moons.json,")


def test_the_delivery_of_an_agent_s_job_gets_the_traces_it_gated(
    runner: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    # What is written about the runs (spans, when asked for) is about the traces of input 'runs',
    # not the committed runs/ beside them.
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    base = runner.commit()
    traces = runner.ws / "sourcegate-traces"
    traces.mkdir()
    rerun = json.loads((runner.ws / golden / "runs" / "moons.json").read_text(encoding="utf-8"))
    rerun["answer"] += " (re-run)"
    (traces / "moons.json").write_text(json.dumps(rerun), encoding="utf-8")
    handed: list[GatedRuns] = []
    real = action_check.deliver

    def deliver(report: Report, gated: GatedRuns, *rest: Any) -> int:
        handed.append(gated)
        return real(report, gated, *rest)

    monkeypatch.setattr(action_check, "deliver", deliver)
    run(runner.env(runner.event(base), golden_set=golden, runs="sourcegate-traces", comment="false", judge="off"))
    [gated] = handed
    assert gated.load()["moons"].answer == rerun["answer"]


def test_a_missing_folder_of_traces_fails_the_step_saying_so(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    # The agent's job failed and uploaded nothing: no traces is an input error, never a pass.
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    code = run(runner.env(runner.event(runner.commit()), golden_set=golden, runs="sourcegate-traces",
                          comment="false", judge="off"))
    assert code == 2 and runner.outputs()["verdict"] == "error"
    assert "no such folder of traces" in capsys.readouterr().out


@pytest.mark.parametrize(("runs", "said"), [
    ("../elsewhere", "must be a relative path inside the workspace"),
    ("out-link", "leads out of the workspace"),
])
def test_a_folder_of_traces_outside_the_workspace_is_refused(
    runner: Runner, capsys: pytest.CaptureFixture[str], runs: str, said: str
) -> None:
    golden = write_set(runner.ws, "t", {"moons": GOOD})
    (runner.ws / "out-link").symlink_to(runner.tmp)
    code = run(runner.env(runner.event(runner.commit()), golden_set=golden, runs=runs, comment="false"))
    assert code == 2 and said in capsys.readouterr().out
