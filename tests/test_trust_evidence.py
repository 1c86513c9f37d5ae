"""The frozen web is part of the bar: a pull request cannot bring its own evidence.

Each scenario is a real git repository (the base: one case of the example set, its snapshot, no
baseline; it passes), a pull request on top, a real agent process re-run by ``sourcegate run`` against
the replay server into a folder of its own, then ``sourcegate check SET --runs DIR --baseline-ref BASE``,
as the workflows run it in two jobs.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from gate.cli import main
from gate.snapshot.records import url_key
from tests.support.environ import environ_overlay
from tests.support.gitrepo import GitRepo
from tests.support.run_golden import EXAMPLE, PLAN_ENV, make_golden, scripted_agent

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


def _rewrite(file: Path, field: str, text: str) -> None:
    """Append ``text`` to the entry's ``field`` (a new file: the snapshot's files may be hard links)."""
    data = json.loads(file.read_text(encoding="utf-8"))
    data[field] += " " + text
    file.unlink()
    file.write_text(json.dumps(data, indent=2), encoding="utf-8")


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


def test_a_pr_that_appends_a_sentence_to_a_recorded_page_and_cites_it_fails(repo: GitRepo, tmp_path: Path) -> None:
    snapshot = repo.root / "set" / "snapshot"
    _rewrite(snapshot / "pages" / f"{url_key(WIKI)}.json", "body", LIE)
    _rewrite(snapshot / "extractions" / f"{url_key(WIKI)}.json", "text", LIE)
    repo.commit("pr: a recorded page says what the answer needs")
    plan = {"search": [QUERY], "extract": [WIKI], "answer": ANSWER, "citations": [{"url": WIKI, "quote": LIE}]}
    runs = run_agent(repo, scripted_agent(tmp_path), plan)
    [trace] = [json.loads((runs / f"{EURO}.json").read_text(encoding="utf-8"))]
    assert trace["replay"]["served"] is True and LIE in trace["pages"][0]["text"]  # the server served the PR's page
    code, report = gate(repo, runs)
    assert code == 1 and report["verdict"] == "fail"
    [changed] = findings(report, "page_changed")
    assert changed["url"] == WIKI and "not the base revision's recording" in changed["message"]
    assert changed["sentence"].startswith("Slovenia will leave the euro in 2027")


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
    # and what the page says is not what the base recorded for its URL
    assert [f["url"] for f in findings(report, "page_changed")] == [WIKI]


NEW = "https://www.consilium.europa.eu/en/press/press-releases/2026/slovenia-euro/"


def _record_new_page(repo: GitRepo) -> None:
    """The pull request records a page the base's snapshot never had (its page and extraction entries)."""
    snapshot = repo.root / "set" / "snapshot"
    for layer, field in (("pages", "body"), ("extractions", "text")):
        entry = json.loads((snapshot / layer / f"{url_key(WIKI)}.json").read_text(encoding="utf-8"))
        entry.update({"key": url_key(NEW), "url": NEW, field: f"Press release. {LIE}"})
        if layer == "pages":
            entry["final_url"] = NEW
        (snapshot / layer / f"{url_key(NEW)}.json").write_text(json.dumps(entry, indent=2), encoding="utf-8")
    repo.commit("pr: a page recorded in this pull request")


def _citing_new(tmp_path: Path) -> tuple[list[str], dict[str, Any]]:
    plan = {"search": [QUERY], "extract": [NEW], "answer": f"Slovenia will leave the euro in 2027 [1].\n\n1. {NEW}",
            "citations": [{"url": NEW, "quote": LIE}]}
    return scripted_agent(tmp_path), plan


def test_a_page_recorded_in_the_pr_is_listed_for_the_reviewer_and_does_not_block(repo: GitRepo,
                                                                                  tmp_path: Path) -> None:
    _record_new_page(repo)
    runs = run_agent(repo, *_citing_new(tmp_path))
    code, report = gate(repo, runs, "--markdown", str(tmp_path / "report.md"), "--html", str(tmp_path / "r.html"))
    assert code == 0 and report["verdict"] == "pass"
    [case] = report["cases"]
    assert case["unrecorded_pages"] == [NEW] and case["hard_failures"] == []
    markdown = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "### Pages recorded in this pull request (1)" in markdown
    assert 'id="unrecorded"' in (tmp_path / "r.html").read_text(encoding="utf-8")


def test_the_base_can_make_a_page_recorded_in_the_pr_block(repo: GitRepo, tmp_path: Path) -> None:
    (repo.root / "set" / "sourcegate.yaml").write_text("replay:\n  unrecorded_pages: fail\n", encoding="utf-8")
    repo.commit("base: only the frozen web is evidence")
    _record_new_page(repo)
    runs = run_agent(repo, *_citing_new(tmp_path))
    code, report = gate(repo, runs)
    assert code == 1
    [unrecorded] = findings(report, "page_unrecorded")
    assert unrecorded["url"] == NEW and "not in the base revision's snapshot" in unrecorded["message"]
    # The pull request's own configuration cannot turn it off: the base's decides, the change is listed.
    (repo.root / "set" / "sourcegate.yaml").write_text("replay:\n  unrecorded_pages: list\n", encoding="utf-8")
    repo.commit("pr: pages of its own are fine")
    code, report = gate(repo, runs, "--baseline-ref", "HEAD~2")
    assert code == 1 and findings(report, "page_unrecorded")
    assert {(c["setting"], c["effect"]) for c in report["config_changes"]} == {
        ("replay.unrecorded_pages", "weakening")}


def test_a_page_recorded_again_with_the_same_text_is_the_bases(repo: GitRepo, tmp_path: Path) -> None:
    entry = repo.root / "set" / "snapshot" / "pages" / f"{url_key(WIKI)}.json"
    data = json.loads(entry.read_text(encoding="utf-8"))
    data["fetched_at"] = "2027-01-01T00:00:00Z"  # another recording, the same page: read from git and compared
    entry.unlink()
    entry.write_text(json.dumps(data, indent=1), encoding="utf-8")
    repo.commit("pr: the page recorded again")
    quote = "Latvia followed on 1 January 2014 at 0.702804 lats per euro"
    plan = {"search": [QUERY], "fetch": [WIKI], "answer": f"Latvia joined in 2014 [1].\n\n1. {WIKI}",
            "citations": [{"url": WIKI, "quote": quote}]}
    runs = run_agent(repo, scripted_agent(tmp_path), plan)
    code, report = gate(repo, runs)
    [case] = report["cases"]
    assert code == 0 and case["hard_failures"] == [] and "unrecorded_pages" not in case


def test_the_example_sets_committed_runs_read_their_snapshot_as_the_base_recorded_it(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE, tmp_path / "repo" / "set")
    GitRepo(tmp_path / "repo").commit("base: the example set")
    out = tmp_path / "report.json"
    assert main(["check", str(tmp_path / "repo" / "set"), "--baseline-ref", "HEAD", "--judge", "off",
                 "--json", str(out)]) == 1  # its 16 hard failures, as without the comparison
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["summary"]["hard_failures"] == 16
    assert not [c["id"] for c in report["cases"] if "unrecorded_pages" in c]
