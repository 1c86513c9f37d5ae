"""``sourcegate run``: a real agent process per case against the in-process replay server.

The agent here is a scripted Python process (``tests/support/run_golden.py``): it searches and
fetches what its plan says, through ``$SOURCEGATE_REPLAY_URL``, and prints its answer on stdout.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest

from gate.cli import main
from gate.pipeline import run_paths
from gate.results import CaseResult
from tests.support.pty_run import start_gate
from tests.support.run_golden import PLAN_ENV, as_traced, faithful_plan, make_golden, scripted_agent

EURO = "euro-adoption-after-2010"
SLOTS = "python-dataclass-slots"
UK = "uk-digital-switchover"
PHYSICAL = "who-physical-activity-adults"
WIKI = "https://en.wikipedia.org/wiki/Enlargement_of_the_eurozone"


def _plan(monkeypatch: pytest.MonkeyPatch, plan: dict[str, Any]) -> None:
    monkeypatch.setenv(PLAN_ENV, json.dumps(plan))


def _trace(golden: Path, case: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((golden / "runs" / f"{case}.json").read_text(encoding="utf-8"))
    return data


def _results(golden: Path) -> dict[str, CaseResult]:
    return {c.id: c for c in run_paths([str(golden)], None, judge_mode="off").cases}


def _failed(result: CaseResult) -> set[str]:
    return {f.check for f in result.hard_failures}


def test_a_stdout_answer_gets_a_trace_of_what_was_served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    golden = make_golden(tmp_path / "set", [EURO, SLOTS])
    _plan(monkeypatch, {EURO: faithful_plan(EURO), SLOTS: faithful_plan(SLOTS)})
    assert main(["run", str(golden), "--jobs", "2", "--", *scripted_agent(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert f"case {EURO}: answered (trace assembled from what was served)" in err
    assert "wrote 2 trace(s)" in err
    trace = _trace(golden, EURO)
    assert trace["replay"]["served"] is True and trace["replay"]["misses"] == []
    assert trace["replay"]["agent_error"] is None
    assert trace["queries"] == faithful_plan(EURO)["search"]
    assert trace["results"] and {r["query"] for r in trace["results"]} <= {0, 1}
    assert [p["url"] for p in trace["pages"]] == faithful_plan(EURO)["fetch"]
    assert trace["pages"][0]["status"] == 200 and "eurozone" in trace["pages"][0]["text"]
    results = _results(golden)
    assert _failed(results[EURO]) == set() and _failed(results[SLOTS]) == set()


def test_a_miss_is_a_hard_failure_naming_the_query_and_how_to_record_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    golden = make_golden(tmp_path / "set", [EURO])
    plan = faithful_plan(EURO)
    plan["search"] = [*plan["search"], "euro adoption 2027 candidates"]
    plan["fetch"] = [*plan["fetch"], "https://example.org/not-recorded"]
    _plan(monkeypatch, {EURO: plan})
    agent = scripted_agent(tmp_path)
    assert main(["run", str(golden), "--", *agent]) == 0
    misses = _trace(golden, EURO)["replay"]["misses"]
    assert misses == [{"layer": "search", "key": "euro adoption 2027 candidates", "provider": "trace",
                       "request": "GET /search", "reason": "not in the snapshot"},
                      {"layer": "pages", "key": "https://example.org/not-recorded", "provider": None,
                       "request": "GET /fetch", "reason": "not in the snapshot"}]
    found = [f for f in _results(golden)[EURO].hard_failures if f.check == "replay_miss"]
    assert len(found) == 2
    assert "'euro adoption 2027 candidates' (trace, GET /search) is not in the snapshot" in found[0].message
    # the real set, not GOLDEN, and the agent's own command
    assert f"`sourcegate run {golden} --record -- {shlex.join(as_traced(agent))}`" in found[0].message
    assert found[1].url == "https://example.org/not-recorded"


def test_on_miss_warn_makes_a_miss_a_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    golden = make_golden(tmp_path / "set", [EURO], config={"replay": {"on_miss": "warn"}})
    plan = faithful_plan(EURO)
    plan["search"] = [*plan["search"], "euro adoption 2027 candidates"]
    _plan(monkeypatch, {EURO: plan})
    assert main(["run", str(golden), "--check", "--judge", "off", "--json", str(tmp_path / "r.json"),
                 "--", *scripted_agent(tmp_path)]) == 0
    result = _results(golden)[EURO]
    assert "replay_miss" not in _failed(result)
    assert [w.kind for w in result.warnings] == ["replay_miss"]
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert report["verdict"] == "pass"


def test_a_failing_agent_is_its_case_s_agent_error_and_the_others_still_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    golden = make_golden(tmp_path / "set", [EURO, SLOTS, UK, PHYSICAL])
    _plan(monkeypatch, {
        EURO: {**faithful_plan(EURO), "exit": 3, "stderr": "Traceback ...\nRuntimeError: <b>boom</b>\n"},
        SLOTS: {"sleep": 30},
        UK: {**faithful_plan(UK), "stdout": "thinking...\nno json here\n"},
        PHYSICAL: faithful_plan(PHYSICAL),  # one answered: the runs are written
    })
    # The deadline is every case's: long enough that an answering agent started on a loaded machine
    # (four interpreters at once on two cores) is not cut off too.
    assert main(["run", str(golden), "--timeout", "4", "--jobs", "4", "--", *scripted_agent(tmp_path)]) == 0
    assert capsys.readouterr().err.count("agent_error") == 3
    results = _results(golden)
    assert {k: _failed(v) for k, v in results.items() if k != PHYSICAL} == {
        EURO: {"agent_error"}, SLOTS: {"agent_error"}, UK: {"agent_error"}}
    assert "agent_error" not in _failed(results[PHYSICAL])
    euro = results[EURO].hard_failures[0].message
    assert "exited with code 3" in euro and "RuntimeError: <b>boom</b>" in euro
    assert "timed out after 4 s" in results[SLOTS].hard_failures[0].message
    assert "printed no answer" in results[UK].hard_failures[0].message
    assert all(s.status == "not_checked" for s in results[EURO].checks)
    assert _trace(golden, EURO)["queries"] == faithful_plan(EURO)["search"]  # what it was served is kept


def test_a_run_with_check_exits_with_the_gate_s_verdict(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    golden = make_golden(tmp_path / "set", [EURO, SLOTS])
    _plan(monkeypatch, {EURO: {**faithful_plan(EURO), "exit": 1}, SLOTS: faithful_plan(SLOTS)})
    assert main(["run", str(golden), "--check", "--judge", "off", "--", *scripted_agent(tmp_path)]) == 1
    assert "agent_error" in capsys.readouterr().out  # the markdown report, on stdout by default


def test_parallel_cases_get_only_their_own_requests(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cases = [EURO, SLOTS, UK]
    golden = make_golden(tmp_path / "set", cases)
    _plan(monkeypatch, {c: {**faithful_plan(c), "sleep": 0.3} for c in cases})
    assert main(["run", str(golden), "--jobs", "3", "--", *scripted_agent(tmp_path)]) == 0
    for case in cases:
        trace = _trace(golden, case)
        assert trace["queries"] == faithful_plan(case)["search"]
        assert [p["url"] for p in trace["pages"]] == faithful_plan(case)["fetch"]


def test_out_writes_elsewhere_and_leaves_the_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    golden = make_golden(tmp_path / "set", [EURO])
    before = (golden / "runs" / f"{EURO}.json").read_bytes()
    _plan(monkeypatch, {EURO: faithful_plan(EURO)})
    out = tmp_path / "produced"
    assert main(["run", str(golden), "--out", str(out), "--", *scripted_agent(tmp_path)]) == 0
    assert (golden / "runs" / f"{EURO}.json").read_bytes() == before
    assert json.loads((out / f"{EURO}.json").read_text(encoding="utf-8"))["replay"]["served"] is True


def test_the_runs_folder_is_replaced_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    golden = make_golden(tmp_path / "set", [EURO])
    (golden / "runs" / "old-case.json").write_text("{}", encoding="utf-8")
    _plan(monkeypatch, {EURO: faithful_plan(EURO)})
    assert main(["run", str(golden), "--", *scripted_agent(tmp_path)]) == 0
    assert sorted(os.listdir(golden / "runs")) == [f"{EURO}.json"]
    assert sorted(os.listdir(golden)) == ["golden.yaml", "runs", "snapshot"]  # no temporary folder left


@pytest.mark.parametrize(("argv", "message"), [
    (["run", "{golden}"], "no agent command"),
    (["run", "{golden}", "--", "no-such-agent-command"], "'no-such-agent-command' is not found"),
    (["run", "{golden}", "--jobs", "0", "--", sys.executable], "--jobs must be 1 or more"),
    (["run", "{golden}", "--out", "{tmp}/o", "--check", "--", sys.executable], "--check gates"),
    (["run", "{tmp}/nowhere", "--", sys.executable], "golden"),
])
def test_bad_usage_is_an_input_error_and_writes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                        argv: list[str], message: str) -> None:
    golden = make_golden(tmp_path / "set", [EURO])
    before = (golden / "runs" / f"{EURO}.json").read_bytes()
    args = [a.format(golden=golden, tmp=tmp_path) for a in argv]
    assert main(args) == 2
    assert message in capsys.readouterr().err
    assert (golden / "runs" / f"{EURO}.json").read_bytes() == before


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_sigterm_stops_every_agent_exits_130_and_leaves_the_old_runs(tmp_path: Path, stop: int) -> None:
    golden = make_golden(tmp_path / "set", [EURO, SLOTS])
    before = {n: (golden / "runs" / n).read_bytes() for n in os.listdir(golden / "runs")}
    pids = tmp_path / "pid"
    plan = {c: {"sleep": 60, "pid_file": str(pids)} for c in (EURO, SLOTS)}
    env = {**os.environ, PLAN_ENV: json.dumps(plan), "PYTHONPATH": str(Path(__file__).resolve().parent.parent)}
    # The gate is a process of its own, forked from this one (its imports done), with Ctrl-C handled as
    # it is by default: Python leaves SIGINT ignored when its parent ignored it, as a shell does for a
    # job started in the background, which may be this test run.
    gate = start_gate(["run", str(golden), "--jobs", "2", "--", *scripted_agent(tmp_path)], env)
    files = [Path(f"{pids}.{c}") for c in (EURO, SLOTS)]
    deadline = time.monotonic() + 60
    while not all(f.exists() and f.read_text() for f in files) and time.monotonic() < deadline:
        time.sleep(0.01)
    agents = [int(f.read_text()) for f in files]
    os.kill(gate.pid, stop)
    done = gate.finish()
    assert done.returncode == 130, done.stderr
    assert f"sourcegate: interrupted: every agent stopped, nothing written; {golden / 'runs'} kept as it was" in (
        done.stderr)
    assert "internal error" not in done.stderr
    for pid in agents:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    assert {n: (golden / "runs" / n).read_bytes() for n in os.listdir(golden / "runs")} == before
    assert sorted(os.listdir(golden)) == ["golden.yaml", "runs", "snapshot"]


def _runs(golden: Path) -> dict[str, bytes]:
    return {n: (golden / "runs" / n).read_bytes() for n in os.listdir(golden / "runs")}


@pytest.mark.parametrize(("config", "extra", "message"), [
    ({"checks": {"domian_cap": 3}}, [], "unknown key 'domian_cap' (did you mean 'domain_cap'?)"),
    (None, ["--baseline", "nonexist.json"], "nonexist.json: no such baseline file"),
])
def test_run_check_refuses_a_bad_config_or_baseline_before_any_agent_starts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        config: dict[str, Any] | None, extra: list[str], message: str) -> None:
    golden = make_golden(tmp_path / "set", [EURO], config=config)
    before = _runs(golden)
    pids = tmp_path / "pid"
    _plan(monkeypatch, {EURO: {**faithful_plan(EURO), "pid_file": str(pids)}})
    monkeypatch.chdir(tmp_path)
    assert main(["run", str(golden), "--check", *extra, "--", *scripted_agent(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert message in err and "case euro" not in err
    assert not Path(f"{pids}.{EURO}").exists()  # the agent never started
    assert _runs(golden) == before


def test_run_check_reads_the_rules_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import gate.rules

    golden = make_golden(tmp_path / "set", [EURO], config={"judge": {"mode": "off"}})
    _plan(monkeypatch, {EURO: faithful_plan(EURO)})
    real = gate.rules.load_config
    calls: list[object] = []

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(gate.rules, "load_config", counted)
    assert main(["run", str(golden), "--check", "--json", str(tmp_path / "r.json"), "--",
                 *scripted_agent(tmp_path)]) == 0
    assert len(calls) == 1
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["verdict"] == "pass"


@pytest.mark.parametrize("check", [[], ["--check", "--judge", "off"]])
def test_when_every_agent_fails_the_old_runs_are_kept_and_the_run_exits_1(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], check: list[str]) -> None:
    golden = make_golden(tmp_path / "set", [EURO, SLOTS])
    before = _runs(golden)
    scratch = tmp_path / "tmp"  # the system's temporary folder, for this run alone
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    _plan(monkeypatch, {c: {"exit": 1, "stderr": "no API key: set ANTHROPIC_API_KEY\x1b[31m\n"} for c in (EURO, SLOTS)})
    assert main(["run", str(golden), *check, "--", *scripted_agent(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert f"the agent failed in every case (2), no trace written, {golden / 'runs'} kept as it was" in captured.err
    assert "no API key: set ANTHROPIC_API_KEY?[31m" in captured.err  # the agent's stderr, made one printable line
    assert captured.out == ""  # no report: nothing was checked
    logs = {f"{c}.stderr.log" for c in (EURO, SLOTS)}
    assert {n: b for n, b in _runs(golden).items() if n not in logs} == before  # the traces as they were
    assert f"each case's stderr beside them: {golden / 'runs' / '<case>.stderr.log'}" in captured.err
    for name in logs:  # each log where the message says it is, and none in the temporary folder
        assert (golden / "runs" / name).read_text(encoding="utf-8").startswith("no API key")
    assert sorted(os.listdir(golden)) == ["golden.yaml", "runs", "snapshot"]
    assert os.listdir(scratch) == []


@pytest.mark.parametrize("option", [["--json", "out.json"], ["--markdown", "-"], ["--baseline", "b.json"],
                                    ["--judge", "off"], ["--comment"]])
def test_report_options_without_check_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  option: list[str]) -> None:
    golden = make_golden(tmp_path / "set", [EURO])
    before = _runs(golden)
    assert main(["run", str(golden), *option, "--", sys.executable]) == 2
    assert f"usage: {option[0]} needs --check" in capsys.readouterr().err
    assert _runs(golden) == before


def test_a_cut_page_stays_cut_in_a_trace_served_from_fetch_or_extract(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gate.snapshot.records import PageRecord
    from gate.snapshot.store import SnapshotStore

    golden = make_golden(tmp_path / "set", [EURO, SLOTS])
    store = SnapshotStore(str(golden / "snapshot"))
    page = store.page(WIKI)
    store.put_page(PageRecord(url=page.url, status=page.status, body=page.body[:500], final_url=page.final_url,
                              content_type=page.content_type, fetched_at=page.fetched_at, truncated=True))
    _plan(monkeypatch, {EURO: {"fetch": [WIKI], "answer": "Estonia."},
                        SLOTS: {"extract": [WIKI], "answer": "Estonia."}})
    assert main(["run", str(golden), "--", *scripted_agent(tmp_path)]) == 0
    assert [p["truncated"] for p in _trace(golden, EURO)["pages"]] == [True]
    assert [p["truncated"] for p in _trace(golden, SLOTS)["pages"]] == [True]
