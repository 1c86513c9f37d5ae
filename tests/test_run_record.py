"""``sourcegate run GOLDEN --record -- CMD``: from a golden set with no snapshot to a recorded one in one
command, through the agent itself; then the same command without ``--record`` replays it offline.

The live web is a loopback stand-in (a search API answering in Brave's shape, and a page), allowed
through ``record.allow``, with the provider's endpoint set in ``sourcegate.yaml`` as record mode
allows; the agent is a real Python process asking the replay server. Also here: a recording that
left something unrecorded (exit 3, its last line naming the command that records it), ``--record
all`` moving ``snapshot_at``, the recording's clock (``SOURCEGATE_NOW``, the trace's ``started_at``)
and what a failed agent leaves to read.
"""

from __future__ import annotations

import json
import shlex
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from gate.cli import main
from gate.config import Config
from gate.load.golden import load_golden
from gate.pipeline import run_paths
from gate.verdict.goldenage import snapshot_age_warning
from tests.support.run_golden import make_golden
from tests.support.web_sites import Reply, Site, flaky, page

KEY = "sk-live-0123456789abcdef"
QUESTION = "Why pin GitHub Actions to a commit SHA?"
AGENT = r'''
import json, os, sys
import requests

base = os.environ["SOURCEGATE_REPLAY_URL"]
plan = json.loads(os.environ["PLAN"])
print(f"now {os.environ.get('SOURCEGATE_NOW')}", file=sys.stderr)
found = requests.get(f"{base}/search", params={"provider": "brave", "q": plan["query"]}, timeout=10)
found.raise_for_status()
url = found.json()["web"]["results"][0]["url"]
page = requests.get(f"{base}/fetch", params={"url": url}, timeout=10)
page.raise_for_status()
print(json.dumps({"answer": f"Because a tag can move [{url}].", "citations": [{"url": url}]}))
'''


def _search_api(site: list[Site]) -> Any:
    def answer(method: str, asked: int) -> Reply:
        body = {"type": "search", "web": {"results": [{"title": "Pinning actions", "url": site[0].url("/pinning"),
                                                       "description": "A tag can move; a commit SHA cannot."}]}}
        return Reply(200, json.dumps(body).encode(), "application/json")
    return answer


@pytest.fixture
def web() -> Any:
    holder: list[Site] = []
    site = Site("127.0.0.1", {"/api/search": _search_api(holder),
                              "/pinning": page("Pin actions to a full-length commit SHA: a tag can move.")})
    holder.append(site)
    with site:
        yield site


def _new_set(root: Path, web: Site) -> Path:
    root.mkdir(parents=True)
    (root / "golden.yaml").write_text(
        f"format: sourcegate-golden/1\nversion: 1\nname: mine\ncases:\n- id: pin-actions\n  question: {QUESTION!r}\n",
        encoding="utf-8")
    config = {"record": {"search": {"brave": {"endpoint": web.url("/api/search"), "key_env": "MINE_KEY"}},
                         "allow": [web.authority]}}
    (root / "sourcegate.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return root


def _agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, query: str = "pin github actions sha",
           code: str = AGENT) -> list[str]:
    script = tmp_path / "agent.py"
    script.write_text(code, encoding="utf-8")
    monkeypatch.setenv("PLAN", json.dumps({"query": query}))
    monkeypatch.setenv("MINE_KEY", KEY)
    return [sys.executable, str(script)]


def _everything(root: Path) -> str:
    return "\n".join(f"{p.relative_to(root)}\n{p.read_text(encoding='utf-8')}"
                     for p in sorted(root.rglob("*")) if p.is_file())


def test_one_command_records_the_snapshot_through_the_agent_and_writes_the_traces(
        tmp_path: Path, web: Site, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    golden = _new_set(tmp_path / "mine", web)
    agent = _agent(tmp_path, monkeypatch)
    assert main(["run", str(golden), "--record", "--", *agent]) == 0
    err = capsys.readouterr().err
    assert "3 entries recorded" in err and "version 1 -> 2" in err and KEY not in err
    assert "version: 2" in (golden / "golden.yaml").read_text(encoding="utf-8")
    recorded = json.loads((golden / "snapshot" / "RECORDED.json").read_text(encoding="utf-8"))
    assert sorted(e["layer"] for e in recorded["entries"]) == ["extraction", "page", "search"]
    trace = json.loads((golden / "runs" / "pin-actions.json").read_text(encoding="utf-8"))
    assert trace["queries"] == ["pin github actions sha"] and trace["replay"]["misses"] == []
    assert [p["url"] for p in trace["pages"]] == [web.url("/pinning")]
    assert KEY not in _everything(golden)
    [case] = run_paths([str(golden)], None, judge_mode="off").cases
    assert {f.check for f in case.hard_failures} <= {"domain_floor"}

    # the same command without --record replays it, and the live web is not asked again
    seen = len(web.seen)
    assert main(["run", str(golden), "--", *agent]) == 0
    assert len(web.seen) == seen
    again = json.loads((golden / "runs" / "pin-actions.json").read_text(encoding="utf-8"))
    assert again["replay"]["misses"] == [] and again["started_at"] == trace["started_at"]


def test_recording_new_episodes_records_only_what_the_snapshot_lacks(
        tmp_path: Path, web: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    golden = _new_set(tmp_path / "mine", web)
    assert main(["run", str(golden), "--record", "--", *_agent(tmp_path, monkeypatch)]) == 0
    seen = len(web.seen)
    agent = _agent(tmp_path, monkeypatch, query="why pin actions to a sha")
    assert main(["run", str(golden), "--record", "--", *agent]) == 0
    assert len(web.seen) == seen + 1  # the new query; the page was recorded already
    assert "version: 3" in (golden / "golden.yaml").read_text(encoding="utf-8")


def test_record_with_check_is_refused_before_any_agent_runs(
        tmp_path: Path, web: Site, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    golden = _new_set(tmp_path / "mine", web)
    assert main(["run", str(golden), "--record", "--check", "--", *_agent(tmp_path, monkeypatch)]) == 2
    assert "baseline update" in capsys.readouterr().err and web.seen == []


def test_without_record_a_set_with_no_snapshot_says_how_to_record_it(
        tmp_path: Path, web: Site, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    golden = _new_set(tmp_path / "mine", web)
    assert main(["run", str(golden), "--", *_agent(tmp_path, monkeypatch)]) == 2
    assert f"sourcegate run {golden} --record -- CMD ARGS..." in capsys.readouterr().err


# ------------------------------------------------------------------------------ what a recording left out

def test_a_recording_that_left_a_page_unrecorded_exits_3_and_its_last_line_records_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    holder: list[Site] = []
    busy = flaky(Reply(503, b"busy, try later"), page("Pin actions to a full-length commit SHA: a tag can move."))
    with Site("127.0.0.1", {"/api/search": _search_api(holder), "/pinning": busy}) as web:
        holder.append(web)
        golden = _new_set(tmp_path / "mine", web)
        agent = _agent(tmp_path, monkeypatch, code=AGENT.replace("page.raise_for_status()\n", ""))
        assert main(["run", str(golden), "--record", "--", *agent]) == 3
        err = capsys.readouterr().err
        again = f"sourcegate run {golden} --record -- {shlex.join(agent)}"
        assert err.strip().splitlines()[-1] == (
            "sourcegate: error: the recording left 1 page unrecorded (each case's replay_miss says which and why; "
            f"the traces and what was recorded are written): record them with `{again}`")
        assert "not recorded: " in err and "HTTP 503 is a transient failure" in err
        trace = json.loads((golden / "runs" / "pin-actions.json").read_text(encoding="utf-8"))
        assert [m["layer"] for m in trace["replay"]["misses"]] == ["pages"]
        assert "version: 2" in (golden / "golden.yaml").read_text(encoding="utf-8")  # the search is kept

        # the command it names records what was left, and the recording is complete
        assert main(shlex.split(again)[1:]) == 0
        assert json.loads((golden / "runs" / "pin-actions.json").read_text(encoding="utf-8"))["replay"]["misses"] == []


def test_record_all_moves_snapshot_at_to_the_recordings_time_and_keeps_the_files_layout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    holder: list[Site] = []
    said = ["Pin actions to a full-length commit SHA: a tag can move."]
    web = Site("127.0.0.1", {"/api/search": _search_api(holder),
                             "/pinning": lambda _method, _n: Reply(200, said[0].encode())})
    holder.append(web)
    with web:
        _record_all_moves_snapshot_at(tmp_path, web, said, monkeypatch, capsys)


def _record_all_moves_snapshot_at(tmp_path: Path, web: Site, said: list[str], monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    golden = _new_set(tmp_path / "mine", web)
    text = (golden / "golden.yaml").read_text(encoding="utf-8").replace(
        "version: 1\n", "# recorded by hand, once\nversion: 1  # ours\n"
        "snapshot_at: '2020-01-01T00:00:00Z'  # long ago\nresnapshot_days: 7\n")
    (golden / "golden.yaml").write_text(text, encoding="utf-8")
    agent = _agent(tmp_path, monkeypatch)
    assert snapshot_age_warning(load_golden(str(golden)), Config(), datetime.now(UTC)) is not None

    assert main(["run", str(golden), "--record", "--", *agent]) == 0  # what the set lacked: snapshot_at stays
    assert load_golden(str(golden)).snapshot_at == "2020-01-01T00:00:00Z"
    assert main(["run", str(golden), "--record", "all", "--case", "pin-actions", "--", *agent]) == 0
    assert load_golden(str(golden)).snapshot_at == "2020-01-01T00:00:00Z"  # some cases only: not the set's web
    capsys.readouterr()

    assert main(["run", str(golden), "--record", "all", "--", *agent]) == 0
    started = json.loads((golden / "runs" / "pin-actions.json").read_text(encoding="utf-8"))["started_at"]
    moved = load_golden(str(golden))
    assert moved.snapshot_at == started[:19] + "Z"  # the recording's time, to the second
    assert snapshot_age_warning(moved, Config(), datetime.now(UTC)) is None
    after = (golden / "golden.yaml").read_text(encoding="utf-8")
    assert after == text.replace("version: 1  # ours", "version: 2  # ours").replace(
        "'2020-01-01T00:00:00Z'", f'"{moved.snapshot_at}"')
    assert f"snapshot_at 2020-01-01T00:00:00Z -> {moved.snapshot_at}" in capsys.readouterr().err

    # again, with the version line as the bump writes it: it goes up once more, snapshot_at moves again
    (golden / "golden.yaml").write_text(after.replace("version: 2  # ours", "version: 2  # the snapshot changed: "
                                                      "record the baseline again (sourcegate baseline update)"))
    said[0] = "Pin actions to a commit SHA: tags move."
    assert main(["run", str(golden), "--record", "all", "--", *agent]) == 0
    assert load_golden(str(golden)).version == 3 and load_golden(str(golden)).snapshot_at >= moved.snapshot_at


# ------------------------------------------------------------------------------ the recording's clock

CLOCK_AGENT = r'''
import json, os, sys
from gate import Recorder
rec = Recorder()
rec.answer("Estonia, Latvia, Lithuania and Croatia.")
rec.save()
print(os.environ["SOURCEGATE_NOW"], file=sys.stderr)
'''


def test_a_re_run_is_dated_by_the_recording_not_the_wall_clock(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    euro = "euro-adoption-after-2010"
    golden = make_golden(tmp_path / "set", [euro])
    recorded = json.loads((golden / "runs" / f"{euro}.json").read_text(encoding="utf-8"))["started_at"]
    script = tmp_path / "agent.py"
    script.write_text(CLOCK_AGENT, encoding="utf-8")
    a_year_later = datetime(2027, 10, 14, tzinfo=UTC)
    from gate.runner.orchestrate import RunOptions, run_agent

    summary = run_agent(RunOptions(str(golden), (sys.executable, str(script))), clock=lambda: a_year_later)
    [run] = summary.runs
    assert run.started_at == datetime.fromisoformat(recorded.replace("Z", "+00:00"))
    trace = json.loads((golden / "runs" / f"{euro}.json").read_text(encoding="utf-8"))
    assert trace["started_at"] == recorded  # the agent's Recorder read SOURCEGATE_NOW, and run keeps it


def test_a_case_never_recorded_takes_the_snapshot_at_of_golden_yaml(tmp_path: Path) -> None:
    euro = "euro-adoption-after-2010"
    golden = make_golden(tmp_path / "set", [euro])
    (golden / "runs" / f"{euro}.json").unlink()
    data = yaml.safe_load((golden / "golden.yaml").read_text(encoding="utf-8"))
    (golden / "golden.yaml").write_text(yaml.safe_dump({**data, "snapshot_at": "2026-09-01T00:00:00Z"}),
                                        encoding="utf-8")
    script = tmp_path / "agent.py"
    script.write_text(CLOCK_AGENT, encoding="utf-8")
    assert main(["run", str(golden), "--", sys.executable, str(script)]) == 0
    trace = json.loads((golden / "runs" / f"{euro}.json").read_text(encoding="utf-8"))
    assert trace["started_at"] == "2026-09-01T00:00:00Z"


# ------------------------------------------------------------------------------ a failed agent

FAILING = r'''
import sys
sys.stderr.write("starting\n" * 200)
raise RuntimeError("The api_key client option must be set either by passing api_key to the client or by "
                   "setting the OPENAI_API_KEY environment variable; see the documentation at "
                   "https://platform.openai.com/docs/api-reference/authentication for every way to set it")
'''


def test_a_failed_agent_shows_its_last_exception_whole_and_its_stderr_is_kept_in_a_log(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cases = ["euro-adoption-after-2010", "python-dataclass-slots"]
    golden = make_golden(tmp_path / "set", cases)
    script = tmp_path / "agent.py"
    script.write_text(FAILING, encoding="utf-8")
    assert main(["run", str(golden), "--", sys.executable, str(script)]) == 1  # every case failed
    err = capsys.readouterr().err
    whole = ("RuntimeError: The api_key client option must be set either by passing api_key to the client or by "
             "setting the OPENAI_API_KEY environment variable; see the documentation at "
             "https://platform.openai.com/docs/api-reference/authentication for every way to set it")
    assert whole in err
    assert f"each case's stderr beside them: {golden / 'runs' / '<case>.stderr.log'}" in err
    log = (golden / "runs" / f"{cases[0]}.stderr.log").read_text(encoding="utf-8")
    assert log.endswith(whole + "\n") and "starting" in log and len(log.encode()) <= 4096

    # one case that answers: the traces are written, each failed case's log beside them
    plan = tmp_path / "some.py"
    plan.write_text("import json, os, runpy\n"
                    f"if os.environ['SOURCEGATE_CASE'] == {cases[0]!r}: runpy.run_path({str(script)!r})\n"
                    "print(json.dumps({'answer': 'yes'}))\n", encoding="utf-8")
    assert main(["run", str(golden), "--", sys.executable, str(plan)]) == 0
    trace = json.loads((golden / "runs" / f"{cases[0]}.json").read_text(encoding="utf-8"))
    assert whole in trace["replay"]["agent_error"]
    assert str(golden / "runs" / f"{cases[0]}.stderr.log") in trace["replay"]["agent_error"]
    assert (golden / "runs" / f"{cases[0]}.stderr.log").read_text(encoding="utf-8").endswith(whole + "\n")
    assert not (golden / "runs" / f"{cases[1]}.stderr.log").exists()


def test_init_names_the_recording_command_and_following_it_records_the_set(
        tmp_path: Path, web: Site, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["init", "mine"]) == 0
    said = capsys.readouterr().err
    named = said.split("`sourcegate run ", 1)[1].split("`", 1)[0]
    assert named == "mine --record -- CMD ARGS..."
    golden = yaml.safe_load(Path("mine/golden.yaml").read_text(encoding="utf-8"))
    golden["cases"][0]["question"] = QUESTION
    Path("mine/golden.yaml").write_text(yaml.safe_dump(golden), encoding="utf-8")
    config = yaml.safe_load(Path("mine/sourcegate.yaml").read_text(encoding="utf-8"))
    config["record"]["search"] = {"brave": {"endpoint": web.url("/api/search"), "key_env": "MINE_KEY"}}
    config["record"]["allow"] = [web.authority]
    Path("mine/sourcegate.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    command = named.replace("CMD ARGS...", " ".join(_agent(tmp_path, monkeypatch))).split()
    assert main(["run", *command]) == 0
    assert main(["check", "mine", "--judge", "off", "-q"]) in (0, 1)  # gated: a verdict, not a usage error
    assert Path("mine/runs/first-case.json").is_file() and Path("mine/snapshot/RECORDED.json").is_file()
