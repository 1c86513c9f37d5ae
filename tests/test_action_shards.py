"""The action across a matrix: shard steps write partial reports and never gate or comment; the
merge step gates and comments once, with the report one unsharded step writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.action_runner import FABRICATED, GOOD, PR_NUMBER, REPO, Runner, annotations, run, write_set


def _report(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_shards_then_merge_gate_and_comment_once(runner: Runner, capsys: pytest.CaptureFixture[str]) -> None:
    runs = {f"case-{n}": GOOD for n in range(6)} | {"made-up": (GOOD[0], FABRICATED)}
    golden = write_set(runner.ws, "big", runs)
    event = runner.event(runner.commit())
    for i in (1, 2, 3):
        env = runner.env(event, golden_set=golden, judge="off", shard=f"{i}/3", report_dir=f"shards/s{i}")
        assert run(env) == 0, capsys.readouterr().out
        assert _report(runner.ws / "shards" / f"s{i}" / "report.json")["shard"]["index"] == i
    assert runner.server.comments(REPO, PR_NUMBER) == []  # shards never comment

    code = run(runner.env(event, golden_set=golden, judge="off", merge_from="shards", report_dir="merged"))
    assert code == 1
    assert runner.outputs()["verdict"] == "fail"
    assert len(runner.server.comments(REPO, PR_NUMBER)) == 1
    assert run(runner.env(event, golden_set=golden, judge="off", comment="false", report_dir="whole")) == 1
    assert _report(runner.ws / "merged" / "report.json") == _report(runner.ws / "whole" / "report.json")


def test_a_missing_shard_stops_the_merge_step(runner: Runner, capsys: pytest.CaptureFixture[str]) -> None:
    golden = write_set(runner.ws, "big", {f"case-{n}": GOOD for n in range(6)})
    event = runner.event(runner.commit())
    assert run(runner.env(event, golden_set=golden, judge="off", shard="1/2", report_dir="shards/s1")) == 0
    capsys.readouterr()
    assert run(runner.env(event, golden_set=golden, judge="off", merge_from="shards")) == 2
    assert any("shard 2/2 missing" in a for a in annotations(capsys.readouterr().out))
    assert runner.server.comments(REPO, PR_NUMBER) == []


@pytest.mark.parametrize(("inputs", "said"), [
    ({"shard": "3/2"}, "input 'shard' must be i/n"),
    ({"shard": "1/2", "merge_from": "shards"}, "exclude each other"),
    ({"merge_from": "../elsewhere"}, "inside the workspace"),
])
def test_malformed_shard_inputs_stop_the_step(runner: Runner, capsys: pytest.CaptureFixture[str],
                                              inputs: dict[str, str], said: str) -> None:
    golden = write_set(runner.ws, "big", {"case-0": GOOD})
    assert run(runner.env(runner.event(runner.commit()), golden_set=golden, **inputs)) == 2
    assert said in capsys.readouterr().out
