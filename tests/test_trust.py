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


# -- removed cases: the pull request's are checked as the base defines them, the base's own keep their
# -- baseline result ------------------------------------------------------------------------------------

FAILING_CASES = ("ecb-deposit-rate-now", "fomc-september-2026-decision", "four-day-week-evidence",
                 "halvorsen-fy2026-revenue", "ibuprofen-paracetamol-together", "nobel-chemistry-2026",
                 "solar-wind-vs-coal-2025", "storm-dervla-disruption", "uk-fixed-mortgage-rates",
                 "ultra-processed-food-health", "who-physical-activity-adults")
"""The example set's cases that fail (15 hard failures); the baseline has 13 of them, in all but the
last and storm-dervla-disruption."""


def remove_cases(repo: GitRepo, ids: tuple[str, ...], *, runs: bool = True) -> None:
    """Delete ``ids`` from golden.yaml and (with ``runs``) their runs, and commit."""
    golden = repo.root / "set" / "golden.yaml"
    data = yaml.safe_load(golden.read_text(encoding="utf-8"))
    data["cases"] = [c for c in data["cases"] if c["id"] not in ids]
    golden.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    for case_id in ids if runs else ():
        (repo.root / "set" / "runs" / f"{case_id}.json").unlink()
    repo.commit("remove cases")


def test_a_pr_that_deletes_its_failing_cases_still_fails_each_one_named(repo: GitRepo) -> None:
    remove_cases(repo, FAILING_CASES)
    code, report, markdown = check(repo, "--judge", "off")
    assert code == 1 and report["verdict"] == "fail"
    failed = {c["id"]: c["hard_failures"] for c in report["cases"] if c["hard_failures"]}
    assert sorted(failed) == sorted(FAILING_CASES)
    for case_id, [finding] in failed.items():
        assert finding["check"] == "input_error"
        assert finding["message"].startswith(f"no run recorded for case {case_id!r} (expected runs/{case_id}.json); "
                                             "this pull request removes the case from golden.yaml")
    assert "removed_results" not in report["comparison"] and report["comparison"]["removed_cases"] == []
    assert {k for k, (_, pr, effect) in changes(report).items() if pr == "removed" and effect == "weakening"} == {
        f"cases.{c}" for c in FAILING_CASES}
    assert "**Why:** 11 hard failures in 11 of 18 cases" in markdown
    validate(report, "report", "report.json")


def test_cases_the_base_dropped_and_its_baseline_has_are_decided_by_their_baseline_result(repo: GitRepo) -> None:
    remove_cases(repo, FAILING_CASES)  # the base itself: its baseline.json still has them
    code, report, markdown = check(repo, "--judge", "off", ref="HEAD")
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
    assert not any("removed by this pull request" in w for w in report["warnings"])
    validate(report, "report", "report.json")
    assert report_from_dict(report).comparison.removed_results[0].id == FAILING_CASES[0]  # type: ignore[union-attr]


def test_under_block_on_new_the_base_dropped_cases_failures_were_not_new_and_do_not_block(repo: GitRepo) -> None:
    (repo.root / "set" / "sourcegate.yaml").write_text("compare:\n  block_on: new\n", encoding="utf-8")
    repo.commit("base: only new failures block")
    code, report, _ = check(repo, "--judge", "off", ref="HEAD")  # two failures are new
    assert code == 1 and "(in storm-dervla-disruption, who-physical-activity-adults)" in report["reasons"][0]
    remove_cases(repo, FAILING_CASES)  # the base drops them
    code, report, markdown = check(repo, "--judge", "off", ref="HEAD")
    assert code == 0 and report["verdict"] == "pass"
    assert report["reasons"][0] == "no new hard failure and no soft figure regressed beyond noise"
    removal = report["reasons"][1]
    assert removal.startswith("11 cases of the baseline are not in this run and were decided by their baseline "
                              "result: 9 with 13 hard failure(s) the baseline already had: ")
    assert ", not blocking: compare.block_on is new;" in removal
    assert all(case_id in removal for case_id in FAILING_CASES)
    assert "- 11 cases of the baseline are not in this run" in markdown


def test_a_pr_that_removes_a_passing_case_and_keeps_its_run_changes_nothing_but_is_listed(repo: GitRepo) -> None:
    _, before, _ = check(repo, "--judge", "off", ref="HEAD")
    remove_cases(repo, ("python-dataclass-slots",), runs=False)
    code, report, markdown = check(repo, "--judge", "off")
    assert code == 1 and report["verdict"] == before["verdict"] == "fail"
    assert report["reasons"] == before["reasons"] and report["summary"] == before["summary"]
    [case] = [c for c in report["cases"] if c["id"] == "python-dataclass-slots"]
    assert case["hard_failures"] == []  # checked as the base defines it, with its run
    assert changes(report) == {"cases.python-dataclass-slots": ("defined", "removed", "weakening")}
    assert "| `cases.python-dataclass-slots` | defined | removed | ⚠️ weakening |" in markdown
    # Without its run, it fails: a removal cannot hide a case whose run the pull request lost.
    (repo.root / "set" / "runs" / "python-dataclass-slots.json").unlink()
    repo.commit("pr: and its run")
    code, report, _ = check(repo, "--judge", "off", ref="HEAD~2")
    [case] = [c for c in report["cases"] if c["id"] == "python-dataclass-slots"]
    assert code == 1 and [f["check"] for f in case["hard_failures"]] == ["input_error"]


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


def test_shards_check_the_removed_cases_and_their_merge_decides_as_one_check(repo: GitRepo, tmp_path: Path) -> None:
    remove_cases(repo, FAILING_CASES)
    code, full, _ = check(repo, "--judge", "off")
    assert code == 1
    files = []
    for i in (1, 2):
        file = tmp_path / f"shard-{i}.json"
        assert main(["check", str(repo.root / "set"), "--judge", "off", "--baseline-ref", "HEAD~1",
                     "--shard", f"{i}/2", "--json", str(file)]) == 0  # a shard does not gate: the merge does
        shard = json.loads(file.read_text(encoding="utf-8"))
        # a shard is not compared: the other shard's cases are not "removed"; the deleted ones are its cases
        assert "comparison" not in shard and shard["verdict"] == "fail"
        assert not [t for t in (*shard["reasons"], *shard["warnings"]) if "not in this run" in t]
        files.append(file)
    merged = tmp_path / "merged.json"
    assert main(["merge", str(repo.root / "set"), *map(str, files), "--baseline-ref", "HEAD~1",
                 "--json", str(merged)]) == 1
    report = json.loads(merged.read_text(encoding="utf-8"))
    assert report["verdict"] == "fail" and report["reasons"] == full["reasons"]
    assert [c["id"] for c in report["cases"]] == [c["id"] for c in full["cases"]]
    assert report["comparison"]["common_cases"] == full["comparison"]["common_cases"]


# -- the cases' bar comes from the base revision ---------------------------------------------------

REGRESSED = ("storm-dervla-disruption", "who-physical-activity-adults")
"""The example set's two cases that fail where its baseline passed (1 domain_cap, 1 fabricated_url)."""


def block_on_new(repo: GitRepo) -> None:
    """The base blocks only on new hard failures: the example set then fails on its two regressed cases."""
    (repo.root / "set" / "sourcegate.yaml").write_text("compare:\n  block_on: new\n", encoding="utf-8")
    repo.commit("base: only new failures block")


def edit_cases(repo: GitRepo, fields: dict[str, dict[str, Any]]) -> None:
    """The pull request sets ``fields`` on the cases named (without committing)."""
    golden = repo.root / "set" / "golden.yaml"
    data = yaml.safe_load(golden.read_text(encoding="utf-8"))
    for case in data["cases"]:
        case.update(fields.get(case["id"], {}))
    golden.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def test_a_pr_that_rewrites_its_cases_to_lower_the_bar_still_fails(repo: GitRepo) -> None:
    block_on_new(repo)
    code, report, _ = check(repo, "--judge", "off", ref="HEAD")
    assert code == 1 and report["summary"]["hard_failures"] == 16  # the example set's (rejected_url_kept among them)
    # The hostile pull request: bbc.com is what storm-dervla is "about" (no domain cap), two realtime
    # cases stop going stale, three classes stop needing four domains or a primary source, and the
    # other regressed case goes away.
    edit_cases(repo, {"storm-dervla-disruption": {"about_domains": ["bbc.com"]},
                      "ecb-deposit-rate-now": {"freshness": "insensitive"},
                      "uk-fixed-mortgage-rates": {"freshness": "insensitive"},
                      "four-day-week-evidence": {"class": "lookup"},
                      "ultra-processed-food-health": {"class": "lookup"},
                      "ibuprofen-paracetamol-together": {"class": "lookup"}})
    remove_cases(repo, ("who-physical-activity-adults",))
    code, report, markdown = check(repo, "--judge", "off")
    assert code == 1 and report["verdict"] == "fail"
    by_case = {c["id"]: [f["check"] for f in c["hard_failures"]] for c in report["cases"]}
    assert by_case["storm-dervla-disruption"] == ["domain_cap"]  # bbc.com is not exempt: the base's case
    assert by_case["ecb-deposit-rate-now"] == ["stale_sources"]
    assert by_case["uk-fixed-mortgage-rates"] == ["stale_sources"]
    assert by_case["four-day-week-evidence"][-1] == "domain_floor"
    assert by_case["ultra-processed-food-health"] == ["domain_floor"]
    assert by_case["ibuprofen-paracetamol-together"] == ["no_primary_source"]
    [missing] = [c for c in report["cases"] if c["id"] == "who-physical-activity-adults"]
    [finding] = missing["hard_failures"]
    assert finding["check"] == "input_error" and "removes the case from golden.yaml" in finding["message"]
    assert "removed_results" not in report["comparison"]
    assert changes(report) == {
        "cases.storm-dervla-disruption.about_domains": (None, "bbc.com", "weakening"),
        "cases.ecb-deposit-rate-now.freshness": ("realtime", "insensitive", "weakening"),
        "cases.uk-fixed-mortgage-rates.freshness": ("fast", "insensitive", "weakening"),
        "cases.four-day-week-evidence.class": ("synthesis", "lookup", "weakening"),
        "cases.ultra-processed-food-health.class": ("synthesis", "lookup", "weakening"),
        "cases.ibuprofen-paracetamol-together.class": ("medical", "lookup", "weakening"),
        "cases.who-physical-activity-adults": ("defined", "removed", "weakening"),
    }
    assert "| `cases.storm-dervla-disruption.about_domains` | none | bbc\\.com | ⚠️ weakening |" in markdown
    assert any(w.startswith("1 case(s) of the base revision HEAD~1's golden.yaml removed by this pull request")
               for w in report["warnings"])
    validate(report, "report", "report.json")


def test_a_pr_that_deletes_its_regressed_cases_still_fails(repo: GitRepo) -> None:
    block_on_new(repo)
    remove_cases(repo, REGRESSED)
    code, report, _ = check(repo, "--judge", "off")
    assert code == 1 and report["verdict"] == "fail"
    failed = {c["id"]: [f["check"] for f in c["hard_failures"]] for c in report["cases"] if c["id"] in REGRESSED}
    assert failed == {case_id: ["input_error"] for case_id in REGRESSED}
    assert "2 new since the baseline: 2 input_error (in who-physical-activity-adults, storm-dervla-disruption)" \
        in report["reasons"][0]


def test_a_case_the_base_already_dropped_is_not_brought_back(repo: GitRepo) -> None:
    remove_cases(repo, ("nobel-chemistry-2026",))  # the base drops it (its baseline still has it)
    code, report, _ = check(repo, "--judge", "off", ref="HEAD")
    assert "nobel-chemistry-2026" not in [c["id"] for c in report["cases"]]
    assert [r["id"] for r in report["comparison"]["removed_results"]] == ["nobel-chemistry-2026"]
    assert not any("removed by this pull request" in w for w in report["warnings"])


def test_a_redefined_case_is_checked_as_the_base_defines_it_and_a_tightening_is_listed(repo: GitRepo) -> None:
    edit_cases(repo, {"python-dataclass-slots": {"about_domains": [], "class": "synthesis"}})
    repo.commit("pr: python-dataclass-slots is no longer about python.org, and a synthesis")
    code, report, _ = check(repo, "--judge", "off")
    [case] = [c for c in report["cases"] if c["id"] == "python-dataclass-slots"]
    assert case["hard_failures"] == []  # the base's case: python.org exempt, one domain is enough
    assert changes(report) == {
        "cases.python-dataclass-slots.class": ("lookup", "synthesis", "tightening"),
        "cases.python-dataclass-slots.about_domains": ("python.org", None, "tightening"),
    }
    # Without a revision, the working tree's cases decide: the three python.org citations pass the cap no more.
    out = repo.root.parent / "local.json"
    main(["check", str(repo.root / "set"), "--judge", "off", "--json", str(out)])
    [local] = [c for c in json.loads(out.read_text(encoding="utf-8"))["cases"] if c["id"] == "python-dataclass-slots"]
    assert {f["check"] for f in local["hard_failures"]} == {"domain_cap", "domain_floor"}
