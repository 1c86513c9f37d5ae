"""The frozen web is part of the bar: a pull request cannot bring its own evidence.

Each scenario is a real git repository (the base: one case of the example set, its snapshot, no
baseline; it passes), a pull request on top, a real agent process re-run by ``sourcegate run`` against
the replay server into a folder of its own, then ``sourcegate check SET --runs DIR --baseline-ref BASE``,
as the workflows run it in two jobs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from gate.cli import main
from tests.support.environ import environ_overlay
from tests.support.gitrepo import GitRepo
from tests.support.run_golden import PLAN_ENV, make_golden

EURO = "euro-adoption-after-2010"
WIKI = "https://en.wikipedia.org/wiki/Enlargement_of_the_eurozone"
QUERY = "EU member states adopted euro after 2010"
LIE = "Slovenia will leave the euro in 2027, the Commission confirmed."
ANSWER = f"Slovenia will leave the euro in 2027 [1].\n\n1. Enlargement of the eurozone: {WIKI}"


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> GitRepo:
    """The base revision: the euro case of the example set with its snapshot, committed once for the module."""
    root = tmp_path_factory.mktemp("evidence-base") / "repo"
    make_golden(root / "set", [EURO])
    repo = GitRepo(root)
    repo.commit("base: one case and its snapshot")
    return repo.packed()


@pytest.fixture
def repo(base: GitRepo, tmp_path: Path) -> GitRepo:
    return base.copy(tmp_path / "repo")


def run_agent(repo: GitRepo, command: list[str], plan: dict[str, Any] | None = None) -> Path:
    """``sourcegate run set --out traces -- command``: the traces' folder."""
    out = repo.root.parent / "traces"
    with environ_overlay({PLAN_ENV: json.dumps({EURO: plan or {}})}):
        assert main(["run", str(repo.root / "set"), "--out", str(out), "--", *command]) == 0
    return out


def gate(repo: GitRepo, runs: Path, *argv: str) -> tuple[int, dict[str, Any]]:
    """``sourcegate check set --runs DIR --baseline-ref HEAD~1 --judge off``: exit code and JSON report."""
    report = repo.root.parent / "report.json"
    code = main(["check", str(repo.root / "set"), "--runs", str(runs), "--baseline-ref", "HEAD~1", "--judge", "off",
                 "--json", str(report), *argv])
    return code, json.loads(report.read_text(encoding="utf-8"))


def findings(report: dict[str, Any], check: str) -> list[dict[str, Any]]:
    return [f for c in report["cases"] for f in c["hard_failures"] if f["check"] == check]


AGENT_OF_ITS_OWN = r'''
import json, os, sys
from gate import Recorder

url, quote = sys.argv[1], sys.argv[2]
rec = Recorder()
rec.read(lambda u: "Latvia and Lithuania followed. " + quote + " And the moon is made of cheese.")(url)
rec.answer("The moon is made of cheese [1].\n\n1. " + url, [{"url": url, "quote": quote}])
rec.save()
'''


def test_an_agent_that_writes_its_own_trace_with_a_page_never_served_fails(repo: GitRepo) -> None:
    script = repo.root / "agent.py"
    script.write_text(AGENT_OF_ITS_OWN, encoding="utf-8")
    repo.commit("pr: an agent that makes no request and writes its own trace")
    runs = run_agent(repo, [sys.executable, str(script), WIKI, "And the moon is made of cheese."])
    code, report = gate(repo, runs)
    assert code == 1 and report["verdict"] == "fail"
    trace = json.loads((runs / f"{EURO}.json").read_text(encoding="utf-8"))
    assert trace["replay"]["served"] is False and trace["replay"]["unserved_pages"] == [WIKI]
    [unserved] = findings(report, "unserved_page")
    assert unserved["url"] == WIKI and "never served" in unserved["message"]
