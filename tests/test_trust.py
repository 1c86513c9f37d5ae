"""Nothing in a pull request can weaken the gate: rules and judgements come from the base revision.

Each scenario is a real git repository with two commits: the base (the example set, or a part of
it) and a pull request on top. The gate runs in-process through ``main(argv)`` with
``--baseline-ref`` naming the base, as the action runs it.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from gate.cli import main
from gate.config import CompareConfig, Config, JudgeConfig, SoftBound
from gate.files.jsonio import validate
from gate.judge.cache import NOT_VERIFIED
from gate.report.comment import CommentReporter
from gate.report.json import JsonReporter
from gate.report.markdown import MarkdownReporter
from gate.store.serialise import report_from_dict
from gate.verdict.configdiff import config_changes
from gate.verdict.report import Report
from tests.support.anthropic_server import AnthropicServer, Reply, Request
from tests.support.environ import environ_overlay
from tests.support.gitrepo import GitRepo
from tests.support.report_factory import assert_golden, regression_report
from tests.support.scripted_judge import scripted_judge

EXAMPLE = Path(__file__).resolve().parent.parent / "cached-snapshots" / "example"
ALL_CHECKS = ["fabricated_url", "unread_citation", "no_citations", "domain_cap", "domain_floor",
              "url_unresolved", "passage_missing", "rejected_url_kept", "stale_sources", "no_primary_source"]
CLEAN_CASES = ("python-dataclass-slots", "numpy-2-5-highlights", "long-context-attention-approaches")


@pytest.fixture(scope="module")
def example_base(tmp_path_factory: pytest.TempPathFactory) -> GitRepo:
    """The example set (its baseline included) committed as the base revision, built once for the module."""
    root = tmp_path_factory.mktemp("example-base") / "repo"
    shutil.copytree(EXAMPLE, root / "set", ignore=shutil.ignore_patterns("snapshot"))
    r = GitRepo(root)
    r.commit("base: the example set")
    return r.packed()


@pytest.fixture
def repo(example_base: GitRepo, tmp_path: Path) -> GitRepo:
    """The example set (its baseline included) committed as the base revision: a copy of its own."""
    return example_base.copy(tmp_path / "repo")


def check(repo: GitRepo, *argv: str, ref: str = "HEAD~1") -> tuple[int, dict[str, Any], str]:
    """``sourcegate check set --baseline-ref HEAD~1 ...``: exit code, JSON report, markdown report."""
    out = repo.root.parent / "out"
    out.mkdir(exist_ok=True)
    code = main(["check", str(repo.root / "set"), "--baseline-ref", ref, *argv,
                 "--json", str(out / "report.json"), "--markdown", str(out / "report.md")])
    if code == 2:
        return code, {}, ""
    return (code, json.loads((out / "report.json").read_text(encoding="utf-8")),
            (out / "report.md").read_text(encoding="utf-8"))


def pr_config(repo: GitRepo, config: dict[str, Any], name: str = "set/sourcegate.yaml") -> None:
    """The pull request commits ``config`` as ``name``."""
    (repo.root / name).write_text(yaml.safe_dump({"format": "sourcegate-config/1", **config}), encoding="utf-8")
    repo.commit("pr: change the configuration")


def changes(report: dict[str, Any]) -> dict[str, tuple[Any, Any, str]]:
    return {c["setting"]: (c["base"], c["pr"], c["effect"]) for c in report.get("config_changes", [])}


# -- the configuration comes from the base revision ------------------------------------------


def test_a_pr_that_disables_every_check_still_fails_with_the_weakening_listed(repo: GitRepo) -> None:
    pr_config(repo, {"checks": {"disabled": ALL_CHECKS}})
    code, report, markdown = check(repo, "--judge", "off")
    assert code == 1 and report["verdict"] == "fail"
    assert report["summary"]["hard_failures"] == 16  # as at the base: nothing was switched off
    assert report["config"] is None  # the base has no sourcegate.yaml: the defaults decide
    got = changes(report)
    assert got == {
        f"checks.disabled.{c}": ("enabled", "disabled", "weakening") for c in ALL_CHECKS}
    assert "### Configuration changed by this pull request" in markdown
    assert "10 setting(s): 10 weakening" in markdown
    assert "apply from the next pull request after this one is merged" in markdown
    assert "| `checks.disabled.fabricated_url` | enabled | disabled | ⚠️ weakening |" in markdown


def test_a_pr_that_lowers_floors_still_fails_with_each_weakening_listed(repo: GitRepo) -> None:
    # passage_threshold is still accepted and no longer read (quotes are verbatim): it weakens nothing.
    pr_config(repo, {"checks": {"domain_floor": {"synthesis": 1}, "domain_cap": 10, "passage_threshold": 10,
                                "min_primary_share": 0.0, "stale_days": {"realtime": None}},
                     "soft": {"grounding_rate": {"floor": 0.1}, "hallucination_rate": {"ceiling": 0.9}}})
    code, report, _ = check(repo, "--judge", "off")
    assert code == 1
    by_check = report["summary"]["by_check"]
    assert by_check["domain_floor"] == 2 and by_check["domain_cap"] == 1 and by_check["stale_sources"] == 2
    assert changes(report) == {
        "checks.domain_cap": (2, 10, "weakening"),
        "checks.domain_floor.synthesis": (4, 1, "weakening"),
        "checks.min_primary_share": (0.2, 0.0, "weakening"),
        "checks.stale_days.realtime": (2, None, "weakening"),
        "soft.grounding_rate.floor": (0.8, 0.1, "weakening"),
        "soft.hallucination_rate.ceiling": (0.1, 0.9, "weakening"),
    }


def test_a_pr_that_blocks_only_new_failures_is_still_decided_by_all(repo: GitRepo) -> None:
    # The base's baseline is this very run, so every failure is "already in the baseline".
    assert main(["baseline", "update", str(repo.root / "set"), "--force", "--judge", "off"]) == 0
    repo.commit("base: the baseline is the current run")
    pr_config(repo, {"compare": {"block_on": "new"}})
    code, report, markdown = check(repo, "--judge", "off")
    assert code == 1 and report["verdict"] == "fail"
    assert all(c["new_failures"] == [] for c in report["comparison"]["cases"])
    assert changes(report) == {"compare.block_on": ("all", "new", "weakening")}
    # Under the PR's own rules it would have passed: the same run without --baseline-ref.
    assert main(["check", str(repo.root / "set"), "--judge", "off",
                 "--json", str(repo.root.parent / "local.json")]) == 0


def test_a_pr_that_tightens_is_listed_and_applies_after_the_merge(repo: GitRepo) -> None:
    pr_config(repo, {"checks": {"domain_cap": 1}, "soft": {"diversity": {"block": True, "tolerance": 0.01}},
                     "compare": {"min_cases": 3}})
    code, report, markdown = check(repo, "--judge", "off")
    assert code == 1
    assert report["summary"]["by_check"]["domain_cap"] == 1  # the base's cap of 2, not the PR's 1
    assert changes(report) == {
        "checks.domain_cap": (2, 1, "tightening"),
        "soft.diversity.block": (False, True, "tightening"),
        "soft.diversity.tolerance": (0.05, 0.01, "tightening"),
        "compare.min_cases": (5, 3, "tightening"),
    }
    assert "4 setting(s): 4 tightening" in markdown


def test_a_config_the_base_has_is_read_at_the_base(repo: GitRepo) -> None:
    (repo.root / "set" / "sourcegate.yaml").write_text("checks:\n  domain_cap: 1\n", encoding="utf-8")
    repo.commit("base: a stricter cap")
    pr_config(repo, {"checks": {"domain_cap": 5}})
    code, report, _ = check(repo, "--judge", "off")
    assert code == 1 and report["config"] == "HEAD~1:set/sourcegate.yaml"
    assert report["summary"]["by_check"]["domain_cap"] > 1
    assert changes(report) == {"checks.domain_cap": (1, 5, "weakening")}


def test_a_config_file_the_base_lacks_needs_trust_config(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    pr_config(repo, {"checks": {"disabled": ALL_CHECKS}}, name="gate.yaml")
    config = str(repo.root / "gate.yaml")
    code, _, _ = check(repo, "--config", config, "--judge", "off")
    assert code == 2
    err = capsys.readouterr().err
    assert "gate.yaml" in err and "not in the base revision HEAD~1" in err and "--trust-config" in err
    # The pull request that adds the gate says so explicitly.
    code, report, markdown = check(repo, "--config", config, "--trust-config", "--judge", "off")
    assert code == 0 and report["config"] == config
    assert any("--trust-config" in w for w in report["warnings"])
    assert "config_changes" not in report


def test_a_config_file_the_base_has_is_used_without_trust_config(repo: GitRepo) -> None:
    (repo.root / "gate.yaml").write_text("checks:\n  disabled: [stale_sources]\n", encoding="utf-8")
    repo.commit("base: a config file outside the set")
    pr_config(repo, {"checks": {"disabled": ALL_CHECKS}}, name="gate.yaml")
    code, report, _ = check(repo, "--config", str(repo.root / "gate.yaml"), "--judge", "off")
    assert code == 1 and report["config"] == "HEAD~1:gate.yaml"
    assert "stale_sources" not in report["summary"]["by_check"]
    assert set(changes(report)) == {f"checks.disabled.{c}" for c in ALL_CHECKS if c != "stale_sources"}


def test_without_a_revision_the_working_tree_config_is_used(repo: GitRepo, tmp_path: Path) -> None:
    pr_config(repo, {"checks": {"disabled": ALL_CHECKS}})
    out = tmp_path / "local.json"
    assert main(["check", str(repo.root / "set"), "--judge", "off", "--json", str(out)]) == 0
    assert "config_changes" not in json.loads(out.read_text(encoding="utf-8"))


def test_config_changes_compares_values_not_text() -> None:
    assert config_changes(Config(), Config(domain_cap=2, source="restated.yaml")) == ()
    pr = Config(compare=CompareConfig(block_on="new", max_baseline_age_days=None, significance=0.01),
                soft={**Config().soft, "primary_share": SoftBound(floor=0.5, block=True)})
    got = {c.setting: (c.base, c.pr, c.effect) for c in config_changes(Config(), pr)}
    assert got == {
        "soft.primary_share.floor": (None, 0.5, "tightening"),
        "soft.primary_share.block": (False, True, "tightening"),
        "compare.block_on": ("all", "new", "weakening"),
        "compare.max_baseline_age_days": (90.0, None, "weakening"),
        "compare.significance": (0.05, 0.01, "weakening"),
    }
    neutral = config_changes(Config(), Config(min_results=5))
    assert [(c.setting, c.effect) for c in neutral] == [("retrieval.min_results", "neutral")]


def test_setting_names_and_values_from_the_pr_are_escaped(repo: GitRepo) -> None:
    pr_config(repo, {"judge": {"prices": {"@evil <img src=x> | x": {"input": 1, "output": 2, "cache_write": 1,
                                                                   "cache_read": 1}}}})
    code, report, markdown = check(repo, "--judge", "off")
    assert code == 1
    section = markdown.split("### Configuration changed by this pull request", 1)[1].split("###", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `judge.prices")]
    assert len(rows) == 4 and all(line.count(" | ") == 3 for line in rows)
    # The name stays inside its code span (no mention, no HTML), its pipe cannot split the row.
    assert all("<img" not in re.sub(r"`[^`]*`", "", line) and "@" not in re.sub(r"`[^`]*`", "", line)
               for line in rows)


# -- judgements come from the base revision ----------------------------------------------------


def _clean_set(root: Path) -> None:
    """The example set cut down to three cases that pass every hard check, without its baseline."""
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("baseline.json", "snapshot"))
    golden = yaml.safe_load((root / "golden.yaml").read_text(encoding="utf-8"))
    golden["cases"] = [c for c in golden["cases"] if c["id"] in CLEAN_CASES]
    (root / "golden.yaml").write_text(yaml.safe_dump(golden, sort_keys=False), encoding="utf-8")
    for run in (root / "runs").iterdir():
        if run.stem not in CLEAN_CASES:
            run.unlink()


def fooled(request: Request) -> Reply:
    """A stand-in judge that calls every claim supported, quoting the claim's first cited page."""
    reply = scripted_judge(request)
    if request.tool_name == "grade_claims":
        for v in (reply.tool_input or {})["verdicts"]:
            v["verdict"] = "supported"
    return reply


@pytest.fixture
def api() -> Iterator[AnthropicServer]:
    with AnthropicServer(scripted_judge) as server, \
            environ_overlay({"ANTHROPIC_BASE_URL": server.url, "ANTHROPIC_API_KEY": server.api_key}):
        yield server


@pytest.fixture(scope="module")
def judged_pr_template(tmp_path_factory: pytest.TempPathFactory) -> GitRepo:
    """Base: three clean cases and no judge cache. PR: a judge cache recorded by a fooled judge.

    Built once for the module (the recording runs the gate with a live judge); each test copies it.
    """
    tmp_path = tmp_path_factory.mktemp("judged-pr")
    _clean_set(tmp_path / "repo" / "set")
    folder = tmp_path / "repo" / "set" / "judgements"
    pr_entries = tmp_path / "pr-judgements"
    shutil.move(folder, pr_entries)
    repo = GitRepo(tmp_path / "repo")
    (repo.root / "set" / "judgements").mkdir()
    (repo.root / "set" / "judgements" / "README.md").write_text("The judge cache.\n", encoding="utf-8")
    repo.commit("base: no judgements yet")
    with AnthropicServer(fooled) as liar, \
            environ_overlay({"ANTHROPIC_BASE_URL": liar.url, "ANTHROPIC_API_KEY": liar.api_key}):
        assert main(["check", str(repo.root / "set"), "--judge", "live",
                     "--json", str(tmp_path / "recording.json")]) in (0, 1)
        assert liar.calls > 0
    repo.commit("pr: judge-cache entries from a judge of its own")
    return repo.packed()


@pytest.fixture
def judged_pr(judged_pr_template: GitRepo, tmp_path: Path) -> GitRepo:
    """Base: three clean cases and no judge cache. PR: a judge cache recorded by a fooled judge (a copy of its own)."""
    return judged_pr_template.copy(tmp_path / "repo")


def _unscored_reasons(report: dict[str, Any]) -> list[str]:
    reasons = []
    for case in report["cases"]:
        j = case.get("judgement") or {}
        reasons += [v.get("unscored_reason") or "" for v in j.get("verdicts", [])]
        if j.get("claims_error"):
            reasons.append(j["claims_error"])
    return reasons


def test_replay_does_not_use_judgements_the_pr_added(judged_pr: GitRepo) -> None:
    code, report, markdown = check(judged_pr, "--judge", "replay")
    assert code == 3 and report["verdict"] == "inconclusive"  # unscored claims are never a pass
    reasons = _unscored_reasons(report)
    assert reasons and all(NOT_VERIFIED in r for r in reasons)
    [note] = [w for w in report["warnings"] if "added or changed by this pull request" in w]
    # Each entry asked for counts once (an unverified claim list means its grading is never asked for).
    added = len(list((judged_pr.root / "set" / "judgements").glob("*.json")))
    m = re.match(r"judge: (\d+) judge-cache entries added or changed by this pull request were not used", note)
    assert m and 0 < int(m.group(1)) <= added
    assert NOT_VERIFIED in markdown


def test_without_a_revision_the_working_tree_judgements_are_used(judged_pr: GitRepo, tmp_path: Path) -> None:
    out = tmp_path / "local.json"
    main(["check", str(judged_pr.root / "set"), "--json", str(out)])
    report = json.loads(out.read_text(encoding="utf-8"))
    assert not any(NOT_VERIFIED in r for r in _unscored_reasons(report))
    assert report["judge"]["counts"]["unscored"] == 0


def test_judgements_in_the_base_are_used_and_a_modified_one_is_not(tmp_path: Path) -> None:
    _clean_set(tmp_path / "repo" / "set")
    repo = GitRepo(tmp_path / "repo")
    repo.commit("base: the judge cache")
    code, report, _ = check(repo, ref="HEAD")
    assert code == 0 and report["judge"]["counts"]["unscored"] == 0
    assert not [w for w in report["warnings"] if "pull request" in w]
    # The PR edits the entries (same keys, other content): an edited entry counts as added.
    for entry in (repo.root / "set" / "judgements").glob("*.json"):
        data = json.loads(entry.read_text(encoding="utf-8"))
        entry.write_text(json.dumps(data, indent=4), encoding="utf-8")
    repo.commit("pr: reformat the judgements")
    code, report, _ = check(repo)
    assert code == 3
    assert [w for w in report["warnings"] if "judge-cache entries added or changed by this pull request" in w]
    reasons = _unscored_reasons(report)
    assert reasons and all(NOT_VERIFIED in r for r in reasons)


def test_live_judges_the_prs_entries_afresh_and_lists_disagreements(judged_pr: GitRepo,
                                                                    api: AnthropicServer) -> None:
    code, report, markdown = check(judged_pr, "--judge", "live")
    assert api.calls > 0
    assert code in (0, 1) and report["verdict"] != "inconclusive"
    assert not any(NOT_VERIFIED in r for r in _unscored_reasons(report))
    assert report["judge"]["counts"]["unscored"] == 0
    assert [w for w in report["warnings"] if "judged afresh" in w]
    disagreements = [w for w in report["warnings"] if "disagrees with a fresh judgement" in w]
    assert disagreements and all("(grade_claims)" in w for w in disagreements)
    assert "disagrees with a fresh judgement" in markdown


# -- the renderings, pinned ----------------------------------------------------------------------


def _with_changes() -> Report:
    pr = Config(disabled=frozenset({"fabricated_url"}), domain_cap=1, compare=CompareConfig(block_on="new"),
                judge=JudgeConfig(model="claude-haiku-4-5"))
    return replace(regression_report(), config_changes=config_changes(Config(), pr))


def test_the_comment_with_config_changes_matches_its_golden_file() -> None:
    assert_golden("comment_config_changes.md", CommentReporter().render(_with_changes()))


def test_the_markdown_report_with_config_changes_matches_its_golden_file() -> None:
    assert_golden("markdown_config_changes.md", MarkdownReporter().render(_with_changes()))


def test_config_changes_round_trip_through_the_json_report() -> None:
    report = _with_changes()
    data = json.loads(JsonReporter().render(report))
    validate(data, "report", "report.json")
    assert report_from_dict(data).config_changes == report.config_changes


def test_dropping_a_class_from_require_primary_is_a_weakening() -> None:
    pr = Config(require_primary=("regulatory",), min_primary_share=0.0, min_relevance=1)
    got = {c.setting: (c.base, c.pr, c.effect) for c in config_changes(Config(), pr)}
    assert got == {
        "checks.require_primary.legal": ("required", "not required", "weakening"),
        "checks.require_primary.medical": ("required", "not required", "weakening"),
        "checks.min_primary_share": (0.2, 0.0, "weakening"),
        "retrieval.min_relevance": (3, 1, "neutral"),
    }


# -- cases the pull request removes are decided by the base's baseline ---------------------------

FAILING_CASES = ("ecb-deposit-rate-now", "fomc-september-2026-decision", "four-day-week-evidence",
                 "halvorsen-fy2026-revenue", "ibuprofen-paracetamol-together", "nobel-chemistry-2026",
                 "solar-wind-vs-coal-2025", "storm-dervla-disruption", "uk-fixed-mortgage-rates",
                 "ultra-processed-food-health", "who-physical-activity-adults")
"""The example set's cases that fail (15 hard failures); the baseline has 13 of them, in all but the
last and storm-dervla-disruption."""


def remove_cases(repo: GitRepo, ids: tuple[str, ...]) -> None:
    """The pull request deletes ``ids`` from golden.yaml and their runs, and commits."""
    golden = repo.root / "set" / "golden.yaml"
    data = yaml.safe_load(golden.read_text(encoding="utf-8"))
    data["cases"] = [c for c in data["cases"] if c["id"] not in ids]
    golden.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    for case_id in ids:
        (repo.root / "set" / "runs" / f"{case_id}.json").unlink()
    repo.commit("pr: remove cases")


def test_a_pr_that_deletes_its_failing_cases_still_fails_under_block_on_all(repo: GitRepo) -> None:
    remove_cases(repo, FAILING_CASES)
    code, report, markdown = check(repo, "--judge", "off")
    assert code == 1 and report["verdict"] == "fail"
    assert report["summary"]["hard_failures"] == 0  # what is left of the run passes
    removed = {r["id"]: [f["check"] for f in r["hard_failures"]] for r in report["comparison"]["removed_results"]}
    assert list(removed) == report["comparison"]["removed_cases"]
    assert sorted(removed) == sorted(FAILING_CASES)
    assert sum(map(len, removed.values())) == 13
    assert removed["storm-dervla-disruption"] == [] and removed["who-physical-activity-adults"] == []
    assert report["reasons"][0].startswith(
        "13 hard failures in 9 baseline cases not in this run, decided by the baseline's result (")
    assert report["reasons"][0].endswith(", and compare.block_on is all")
    assert report["reasons"][1].startswith(
        "11 cases of the baseline are not in this run and were decided by their baseline result: "
        "9 with 13 hard failure(s) the baseline already had: ")
    assert report["reasons"][1].endswith(
        "; 2 without a hard failure (storm-dervla-disruption, who-physical-activity-adults)")
    assert "not blocking" not in report["reasons"][1]
    assert ("11 baseline case(s) not in this run, decided by their baseline result (9 of them with hard "
            "failures): ") in " ".join(report["comparison"]["notes"])
    assert "**Why:** 13 hard failures in 9 baseline cases not in this run" in markdown
    assert "**Baseline cases not in this run, decided by their baseline result**" in markdown
    validate(report, "report", "report.json")
    assert report_from_dict(report).comparison.removed_results[0].id == FAILING_CASES[0]  # type: ignore[union-attr]


def test_under_block_on_new_the_deleted_cases_failures_were_not_new_and_do_not_block(repo: GitRepo) -> None:
    (repo.root / "set" / "sourcegate.yaml").write_text("compare:\n  block_on: new\n", encoding="utf-8")
    repo.commit("base: only new failures block")
    code, report, _ = check(repo, "--judge", "off")  # the base itself: two failures are new
    assert code == 1 and "(in storm-dervla-disruption, who-physical-activity-adults)" in report["reasons"][0]
    remove_cases(repo, FAILING_CASES)
    code, report, markdown = check(repo, "--judge", "off")
    assert code == 0 and report["verdict"] == "pass"
    assert report["reasons"][0] == "no new hard failure and no soft figure regressed beyond noise"
    removal = report["reasons"][1]
    assert removal.startswith("11 cases of the baseline are not in this run and were decided by their baseline "
                              "result: 9 with 13 hard failure(s) the baseline already had: ")
    assert ", not blocking: compare.block_on is new;" in removal
    assert all(case_id in removal for case_id in FAILING_CASES)
    assert "- 11 cases of the baseline are not in this run" in markdown


def test_a_pr_that_deletes_a_passing_case_changes_nothing_but_is_listed(repo: GitRepo) -> None:
    _, before, _ = check(repo, "--judge", "off", ref="HEAD")
    remove_cases(repo, ("python-dataclass-slots",))
    code, report, markdown = check(repo, "--judge", "off")
    assert code == 1 and report["verdict"] == before["verdict"] == "fail"
    removal = ("1 case of the baseline is not in this run and was decided by its baseline result: "
               "1 without a hard failure (python-dataclass-slots)")
    assert removal in report["reasons"]
    # every other reason on hard failures as before, the case count of the first one aside (the soft
    # figures are means over the cases both runs have, so they move a little)
    def hard(reasons: list[str]) -> list[str]:
        return [r for r in reasons if "hard failure" in r and r != removal]

    assert hard(report["reasons"]) == [before["reasons"][0].replace("in 11 of 18 cases", "in 11 of 17 cases"),
                                       *hard(before["reasons"][1:])]
    assert report["comparison"]["removed_results"] == [{"id": "python-dataclass-slots", "hard_failures": []}]
    assert "decided by its baseline result" in markdown


def test_without_a_revision_deleted_cases_are_only_listed(repo: GitRepo, tmp_path: Path) -> None:
    # The baseline then comes from the working tree, which the pull request can edit anyway.
    remove_cases(repo, FAILING_CASES)
    out = tmp_path / "local.json"
    assert main(["check", str(repo.root / "set"), "--judge", "off", "--json", str(out)]) == 0
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["verdict"] == "pass"
    assert report["reasons"] == ["no new hard failure and no soft figure regressed beyond noise"]
    assert "removed_results" not in report["comparison"]
    assert sorted(report["comparison"]["removed_cases"]) == sorted(FAILING_CASES)
    assert f"11 baseline case(s) not in this run: {', '.join(FAILING_CASES)}" in report["comparison"]["notes"]


def test_shards_treat_no_case_as_removed_and_their_merge_decides_the_deleted_ones(repo: GitRepo,
                                                                                   tmp_path: Path) -> None:
    remove_cases(repo, FAILING_CASES)
    code, full, _ = check(repo, "--judge", "off")
    assert code == 1
    files = []
    for i in (1, 2):
        file = tmp_path / f"shard-{i}.json"
        assert main(["check", str(repo.root / "set"), "--judge", "off", "--baseline-ref", "HEAD~1",
                     "--shard", f"{i}/2", "--json", str(file)]) == 0
        shard = json.loads(file.read_text(encoding="utf-8"))
        # a shard is not compared: the other shard's cases (and the deleted ones) are not "removed"
        assert "comparison" not in shard and shard["verdict"] == "pass"
        assert not [t for t in (*shard["reasons"], *shard["warnings"]) if "not in this run" in t]
        files.append(file)
    merged = tmp_path / "merged.json"
    assert main(["merge", str(repo.root / "set"), *map(str, files), "--baseline-ref", "HEAD~1",
                 "--json", str(merged)]) == 1
    report = json.loads(merged.read_text(encoding="utf-8"))
    assert report["verdict"] == "fail" and report["reasons"] == full["reasons"]
    assert report["comparison"]["removed_results"] == full["comparison"]["removed_results"]
    assert report["comparison"]["common_cases"] == full["comparison"]["common_cases"]
