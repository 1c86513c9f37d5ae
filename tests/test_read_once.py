"""Load once, pass values: a check against a base revision reads each input file once, and asks git little.

An audit hook counts every file the command opens for reading and every process it starts, while the
command runs in this process (the CLI through ``main(argv)``, the Action through its entrypoint): the
loaded golden set, its rules and its runs travel with the request; the comparison's hashing of the
working tree takes the blob ids of what the run read (``gate.files.digests``); the base revision's
objects are read from git once (``gate.git.objects``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gate.action.entrypoint import main as action_main
from gate.cli import main
from gate.score.workers import MIN_RUNS_PER_WORKER
from tests.support.gitrepo import GitRepo
from tests.support.golden_factory import write_golden

EXAMPLE = Path(__file__).resolve().parent.parent / "cached-snapshots" / "example"
SET = "sets/example"


@dataclass
class Seen:
    opens: Counter[str] = field(default_factory=Counter)
    git_calls: int = 0


_seen: list[Seen] = []


def _hook(event: str, args: tuple[object, ...]) -> None:
    if not _seen:
        return
    if event == "open" and isinstance(args[0], str):
        mode = args[1] if len(args) > 1 else "r"
        if isinstance(mode, str) and ("w" in mode or "a" in mode or "x" in mode):
            return
        _seen[-1].opens[os.path.realpath(args[0])] += 1
    elif event == "subprocess.Popen" and isinstance(args[1], (list, tuple)) and args[1] and \
            os.path.basename(str(args[1][0])) == "git":
        _seen[-1].git_calls += 1


sys.addaudithook(_hook)


@contextmanager
def watching() -> Iterator[Seen]:
    seen = Seen()
    _seen.append(seen)
    try:
        yield seen
    finally:
        _seen.pop()


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("read-once")
    shutil.copytree(EXAMPLE, root / SET)
    repo = GitRepo(root)
    return root, repo.commit("the base: the example set")


def _inputs(root: Path) -> list[str]:
    found = []
    for folder, _, names in os.walk(root / SET):
        found += [os.path.realpath(os.path.join(folder, n)) for n in names]
    return found


def _read_more_than_once(seen: Seen, root: Path) -> dict[str, int]:
    return {os.path.relpath(f, root): seen.opens[f] for f in _inputs(root) if seen.opens[f] > 1}


def test_check_against_the_base_reads_each_file_of_the_set_once(repo: tuple[Path, str],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    root, base = repo
    monkeypatch.chdir(root)
    with watching() as seen:
        code = main(["check", SET, "--baseline-ref", base, "--json", str(root / "report.json"), "-q"])
    assert code == 1  # the example set fails, as its baseline says
    assert not _read_more_than_once(seen, root)
    assert seen.opens[os.path.realpath(root / SET / "golden.yaml")] == 1
    # the commit once, the folders on the way, the configuration, baseline, golden.yaml and cache: a few
    assert seen.git_calls <= 10


def test_the_action_reads_each_file_once_and_the_base_once(repo: tuple[Path, str], tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    root, base = repo
    monkeypatch.chdir(root)  # the container's working folder is the workspace
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 7, "base": {"sha": base}, "head": {"sha": base}},
                                 "repository": {"full_name": "o/r"}}), encoding="utf-8")
    env = {"GITHUB_WORKSPACE": str(root), "GITHUB_EVENT_NAME": "pull_request", "GITHUB_EVENT_PATH": str(event),
           "GITHUB_REPOSITORY": "o/r", "INPUT_GOLDEN-SET": SET, "INPUT_COMMENT": "false",
           "INPUT_REPORT-DIR": "action-report", "GITHUB_OUTPUT": str(tmp_path / "output"),
           "GITHUB_STEP_SUMMARY": str(tmp_path / "summary")}
    with watching() as seen:
        code = action_main(env, [])
    assert code == 1  # the example set fails (fail-on: hard, the default)
    assert re.search(r"^verdict<<(\S+)\nfail\n\1$", (tmp_path / "output").read_text(encoding="utf-8"), re.M)
    assert not _read_more_than_once(seen, root)
    assert seen.git_calls <= 10


def test_run_check_gates_the_runs_it_holds_without_reading_them_back(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    shutil.copytree(EXAMPLE, tmp_path / SET)
    base = GitRepo(tmp_path).commit("the base")
    agent = tmp_path / "agent.py"
    agent.write_text('import json, os\nprint(json.dumps({"answer": "nothing for " + os.environ["SOURCEGATE_CASE"]}))\n',
                     encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    with watching() as seen:
        code = main(["run", SET, "--check", "--baseline-ref", base, "--json", str(tmp_path / "r.json"), "-q",
                     "--", sys.executable, str(agent)])
    assert code == 1  # no answer cites anything: no_citations in every case
    assert not _read_more_than_once(seen, tmp_path)
    assert seen.opens[os.path.realpath(tmp_path / SET / "golden.yaml")] == 1


def test_workers_read_the_traces_and_hand_back_their_blob_ids_so_the_parent_reads_none(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # check --jobs 2 on a set large enough for two workers: they read the traces; the comparison with
    # the base lists the changed files from the ids they handed back, opening no trace in this process.
    ids = [f"case-{i:03d}" for i in range(2 * MIN_RUNS_PER_WORKER)]
    write_golden(tmp_path / SET, ids)
    monkeypatch.chdir(tmp_path)
    assert main(["baseline", "update", SET]) == 0
    base = GitRepo(tmp_path).commit("the base: a set of two workers' runs")
    with watching() as seen:
        code = main(["check", SET, "--baseline-ref", base, "--jobs", "2", "--json", str(tmp_path / "r.json"), "-q"])
    assert code == 0
    runs = os.path.realpath(tmp_path / SET / "runs")
    assert not [f for f in seen.opens if f.startswith(runs + os.sep)]
    assert seen.git_calls <= 10
