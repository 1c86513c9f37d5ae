"""A re-run's traces as any machine would write them: the same file when nothing but the timing changed,
and no path of the machine that ran it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gate.cli import main
from gate.runner.portable import portable_command, unchanged
from tests.support.run_golden import PLAN_ENV, faithful_plan, make_golden, scripted_agent

TRACE = {"format": "sourcegate-trace/1", "case": "a", "started_at": "2026-10-14T16:40:05Z", "answer": "x",
         "pages": [{"url": "https://a.example/", "started_at": "2026-10-14T16:40:05.72Z", "duration_ms": 0.3}],
         "searches": [{"query": 0, "started_at": "2026-10-14T16:40:05.67Z", "duration_ms": 0.7}]}


def test_a_trace_that_differs_only_in_its_timing_is_unchanged() -> None:
    timed = json.loads(json.dumps(TRACE))
    timed["pages"][0].update(started_at="2026-10-14T16:40:06.1Z", duration_ms=9.9)
    timed["searches"][0]["duration_ms"] = 1.2
    assert unchanged(TRACE, timed)
    assert not unchanged(TRACE, {**TRACE, "answer": "y"})
    assert not unchanged(TRACE, {**TRACE, "started_at": "2026-10-15T00:00:00Z"})  # the recording's time
    assert not unchanged(TRACE, {**TRACE, "pages": []})


def test_the_command_keeps_no_path_of_this_machine(tmp_path: Path) -> None:
    python = tmp_path / "venv" / "bin" / "python"
    work = tmp_path / "repo"
    found = {"python": str(python)}
    argv = [str(python), str(work / "agent" / "run.py"), "--flag", "/etc/other.conf"]
    assert portable_command(argv, str(work), found.get) == ("python", os.path.join("agent", "run.py"), "--flag",
                                                            "/etc/other.conf")
    # a program PATH finds elsewhere (or not at all) keeps its path: the name would run another one
    assert portable_command(argv, str(work), {"python": "/usr/bin/python"}.get)[0] == str(python)


def test_a_re_run_that_changed_nothing_leaves_the_committed_traces_as_they_were(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cases = ["euro-adoption-after-2010", "python-dataclass-slots"]
    golden = make_golden(tmp_path / "set", cases)
    monkeypatch.setenv(PLAN_ENV, json.dumps({c: faithful_plan(c) for c in cases}))
    agent = scripted_agent(tmp_path)
    assert main(["run", str(golden), "--", *agent]) == 0
    first = {p.name: p.read_bytes() for p in (golden / "runs").iterdir()}
    assert main(["run", str(golden), "--", *agent]) == 0  # the same agent again: its calls timed anew
    assert {p.name: p.read_bytes() for p in (golden / "runs").iterdir()} == first
