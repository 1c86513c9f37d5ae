"""Secrets are redacted from everything that leaves the gate.

An agent's SDK error can quote its key on stderr; the key then reached the trace's ``agent_error``,
``<case>.stderr.log``, ``report.json``, the markdown and HTML reports, the PR comment, and the gate's
stderr when every case failed. GitHub masks secrets in logs, not in comments or artifacts. Each
scenario runs a real agent process through ``sourcegate run`` (a real golden set and its snapshot),
then ``sourcegate check`` and ``sourcegate comment`` on its traces, with the key in the environment
as a CI job has it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gate.cli import main
from gate.text.redact import REDACTED, secret_values
from tests.support.environ import environ_overlay
from tests.support.run_golden import PLAN_ENV, make_golden, scripted_agent

EURO = "euro-adoption-after-2010"
SLOTS = "python-dataclass-slots"
KEY = "sk-ant-api03-Zq8vLx2NwR7tY4uP1mK9cB6dF3hJ0sGeXoQiVaWbTnMl"
TOKEN = "ghs_16C7e42F292c6912E7710c838347Ae178B4a"
LEAK = ("Traceback (most recent call last):\n  File \"agent.py\", line 3, in <module>\n"
        f"anthropic.AuthenticationError: Error code: 401 - invalid x-api-key {KEY!r} (GITHUB_TOKEN={TOKEN})\n")
ENV = {"ANTHROPIC_API_KEY": KEY, "GITHUB_TOKEN": TOKEN}


def _leaks(folder: Path) -> list[str]:
    """The files under ``folder`` that hold the key or the token."""
    return [str(f) for f in folder.rglob("*") if f.is_file()
            and (KEY in (text := f.read_text(encoding="utf-8", errors="replace")) or TOKEN in text)]


def test_a_key_an_agent_prints_reaches_no_trace_log_report_or_comment(tmp_path: Path) -> None:
    golden = make_golden(tmp_path / "set", [EURO, SLOTS])
    runs, reports = tmp_path / "traces", tmp_path / "reports"
    plan = {EURO: {"stderr": LEAK, "exit": 1}, SLOTS: {"answer": f"nothing (my key is {KEY})"}}
    with environ_overlay({**ENV, PLAN_ENV: json.dumps(plan)}):
        assert main(["run", str(golden), "--out", str(runs), "--", *scripted_agent(tmp_path)]) == 0
        assert main(["check", str(golden), "--runs", str(runs), "--judge", "off", "--json", str(reports / "r.json"),
                     "--markdown", str(reports / "r.md"), "--html", str(reports / "r.html"),
                     "--junit", str(reports / "r.xml")]) == 1
        assert main(["comment", str(reports / "r.json"), "--output", str(reports / "comment.md")]) == 0
    assert _leaks(runs) == [] and _leaks(reports) == []
    trace = json.loads((runs / f"{EURO}.json").read_text(encoding="utf-8"))
    assert f"invalid x-api-key '{REDACTED}' (GITHUB_TOKEN={REDACTED})" in trace["replay"]["agent_error"]
    assert "invalid x-api-key" in (runs / f"{EURO}.stderr.log").read_text(encoding="utf-8")
    assert REDACTED in (reports / "comment.md").read_text(encoding="utf-8")


def test_when_every_case_fails_the_gate_s_stderr_shows_no_key(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    golden = make_golden(tmp_path / "set", [EURO])
    with environ_overlay({**ENV, PLAN_ENV: json.dumps({EURO: {"stderr": LEAK, "exit": 1}})}):
        assert main(["run", str(golden), "--", *scripted_agent(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "the agent failed in every case" in err and "invalid x-api-key" in err
    assert KEY not in err and TOKEN not in err
    logs = golden / "runs"  # each case's stderr beside the runs kept (the message names them)
    assert f"each case's stderr beside them: {logs / '<case>.stderr.log'}" in err
    assert _leaks(logs) == [] and "invalid x-api-key" in (logs / f"{EURO}.stderr.log").read_text(encoding="utf-8")


def test_the_gate_redacts_its_own_secrets_from_a_trace_that_holds_them(tmp_path: Path) -> None:
    # A trace written elsewhere (an older run, another job) that holds this job's judge key.
    golden = make_golden(tmp_path / "set", [EURO])
    trace = golden / "runs" / f"{EURO}.json"
    data = json.loads(trace.read_text(encoding="utf-8"))
    data["answer"] += f"\n\nDebug: ANTHROPIC_API_KEY={KEY}"
    trace.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "reports"
    with environ_overlay(ENV):
        main(["check", str(golden), "--judge", "off", "--json", str(out / "r.json"), "--markdown", str(out / "r.md"),
              "--html", str(out / "r.html")])
    assert _leaks(out) == []
    [case] = json.loads((out / "r.json").read_text(encoding="utf-8"))["cases"]
    assert f"ANTHROPIC_API_KEY={REDACTED}" in case["answer"]


def test_secret_values_are_the_secret_named_variables_long_enough_to_be_secrets() -> None:
    env = {"ANTHROPIC_API_KEY": KEY, "INPUT_GITHUB-TOKEN": TOKEN, "CLIENT_SECRET": "s3cr3t-v4lue",
           "DEBUG_TOKEN": "1", "PATH": "/usr/bin", "API_KEY_FILE": "/etc/key"}
    assert set(secret_values(env, extra=("   ", "judge-key-given-as-input"))) == {
        KEY, TOKEN, "s3cr3t-v4lue", "judge-key-given-as-input"}
