"""Baselines on disk and in git: written only from a passing run, read from the PR's base revision."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gate.cli import main
from gate.errors import InputError
from gate.store.baseline import read_at_ref, read_baseline
from gate.store.serialise import report_from_dict, report_to_dict
from tests.support.golden_factory import run_for, write_golden


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=Test", "-c", "user.email=test@example.invalid",
                           "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false", *args],
                          cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def check_json(tmp_path: Path, *argv: str) -> tuple[int, dict[str, Any]]:
    out = tmp_path / "report.json"
    code = main(["check", *argv, "--json", str(out)])
    return code, json.loads(out.read_text(encoding="utf-8"))


@pytest.fixture
def golden(tmp_path: Path) -> Path:
    return write_golden(tmp_path / "repo" / "cached-snapshots" / "demo", ["a", "b", "c"])


def test_update_writes_a_stamped_baseline_that_round_trips(golden: Path) -> None:
    assert main(["baseline", "update", str(golden)]) == 0
    data = json.loads((golden / "baseline.json").read_text(encoding="utf-8"))
    assert data["verdict"] == "pass" and data["baseline"]["forced"] is False
    assert data["baseline"]["written_at"].endswith("+00:00")
    base = read_baseline(str(golden / "baseline.json"))
    assert base is not None and [c.id for c in base.cases] == ["a", "b", "c"]
    again = report_to_dict(report_from_dict(data))
    assert again["cases"] == data["cases"] and again["baseline"] == data["baseline"]


def test_update_takes_the_judge_options_check_takes(golden: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)  # the scripted provider needs none
    assert main(["baseline", "update", str(golden), "--judge", "live", "--judge-provider", "scripted"]) == 0
    assert json.loads((golden / "baseline.json").read_text(encoding="utf-8"))["verdict"] == "pass"


def test_a_failing_run_never_becomes_the_baseline_without_force(golden: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    write_golden(golden, ["a", "b", "c"], bad=["b"])
    assert main(["baseline", "update", str(golden)]) == 1
    assert not (golden / "baseline.json").exists()
    assert "a run that does not pass never becomes the baseline" in capsys.readouterr().err

    assert main(["baseline", "update", str(golden), "--force"]) == 0
    data = json.loads((golden / "baseline.json").read_text(encoding="utf-8"))
    assert data["verdict"] == "fail" and data["baseline"]["forced"] is True
    # The first reason sums up what blocks; the per-check reasons follow.
    assert data["baseline"]["forced_over"][0] == "1 hard failure in 1 of 3 cases (1 fabricated_url)"
    assert data["baseline"]["forced_over"][1].startswith("1 fabricated_url failure(s)")


def test_forced_baseline_is_shown_in_the_comparison(golden: Path, tmp_path: Path) -> None:
    write_golden(golden, ["a", "b", "c"], bad=["b"])
    assert main(["baseline", "update", str(golden), "--force"]) == 0
    code, report = check_json(tmp_path, str(golden))
    cmp = report["comparison"]
    assert cmp["baseline"]["forced"] is True
    assert "the baseline was forced from a run whose verdict was fail" in cmp["notes"]
    assert code == 1 and report["reasons"][0] == (
        "1 hard failure in 1 of 3 cases, none new: the baseline already had it (1 fabricated_url), "
        "and compare.block_on is all")
    assert report["reasons"][1].startswith("1 hard failure(s) the baseline already had")


def test_no_baseline_is_said_not_silent(golden: Path, tmp_path: Path) -> None:
    code, report = check_json(tmp_path, str(golden))
    assert code == 0 and "comparison" not in report
    with pytest.raises(InputError):
        read_at_ref(str(golden), "-x")
    assert main(["check", str(golden), "--baseline", str(tmp_path / "missing.json")]) == 2


@pytest.fixture
def repo(golden: Path) -> Path:
    """A git repository whose one commit holds the golden set and a baseline from a passing run."""
    root = golden.parent.parent
    git(root, "init", "-q")
    assert main(["baseline", "update", str(golden)]) == 0
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "golden set and its baseline")
    return root


def test_baseline_is_read_from_the_git_revision(repo: Path, golden: Path, tmp_path: Path) -> None:
    # The PR breaks case b, and rewrites baseline.json so that it already had that failure.
    write_golden(golden, ["a", "b", "c"], bad=["b"])
    assert main(["baseline", "update", str(golden), "--force"]) == 0

    # Against the working tree's baseline the failure looks old; block_on: new would let it through.
    config = 'judge:\n  mode: "off"\ncompare:\n  block_on: new\n'
    (golden / "sourcegate.yaml").write_text(config, encoding="utf-8")
    code, lowered = check_json(tmp_path, str(golden))
    assert code == 0 and lowered["comparison"]["baseline"]["forced"] is True

    # Against the base revision's baseline it is new, and blocks.
    head = git(repo, "rev-parse", "HEAD")
    code, report = check_json(tmp_path, str(golden), "--baseline-ref", "HEAD")
    assert code == 1
    assert report["reasons"][0] == "1 hard failure in 1 of 3 cases, 1 new since the baseline: 1 fabricated_url (in b)"
    assert report["reasons"][1] == "1 new hard failure(s) the baseline did not have: 1 fabricated_url (in b)"
    base = report["comparison"]["baseline"]
    assert (base["ref"], base["commit"], base["forced"]) == ("HEAD", head, False)
    assert base["file"] == "cached-snapshots/demo/baseline.json"
    assert report["comparison"]["changed_files"] == [
        "cached-snapshots/demo/baseline.json", "cached-snapshots/demo/runs/b.json",
        "cached-snapshots/demo/sourcegate.yaml"]


def test_ref_lists_added_files_and_redefined_cases(repo: Path, golden: Path, tmp_path: Path) -> None:
    write_golden(golden, ["a", "b", "c", "d"], classes={"a": "synthesis"}, version=2)
    code, report = check_json(tmp_path, str(golden), "--baseline-ref", "HEAD")
    cmp = report["comparison"]
    assert cmp["version_mismatch"] is True and cmp["added_cases"] == ["d"]
    assert cmp["redefined_cases"] == ["a"]
    assert "cached-snapshots/demo/runs/d.json" in cmp["changed_files"]  # untracked files count too
    # A synthesis case needs four domains, but case a is the base's until the merge: the tightening is
    # listed, and applies to the next pull request.
    assert code == 0
    assert {(c["setting"], c["base"], c["pr"], c["effect"]) for c in report["config_changes"]} == {
        ("cases.a.class", "lookup", "synthesis", "tightening")}
    code, local = check_json(tmp_path, str(golden))
    assert code == 1  # the working tree's cases: a new domain_floor failure


def test_a_ref_without_a_baseline_says_so(golden: Path, tmp_path: Path) -> None:
    root = golden.parent.parent
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "golden set, no baseline yet")
    code, report = check_json(tmp_path, str(golden), "--baseline-ref", "HEAD")
    assert code == 0 and "comparison" not in report
    at = read_at_ref(str(golden), "HEAD")
    assert at.report is None and at.origin.commit == git(root, "rev-parse", "HEAD")


def test_unknown_revision_is_an_input_error(repo: Path, golden: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(golden), "--baseline-ref", "no-such-branch"]) == 2
    assert "'no-such-branch' is not a commit of this repository" in capsys.readouterr().err


def test_a_baseline_at_the_revision_that_is_not_utf8_is_an_input_error(
        golden: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = golden.parent.parent
    git(root, "init", "-q")
    (golden / "baseline.json").write_bytes(b'{"format": "sourcegate-report/1", "note": "caf\xe9"}')
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a baseline in Latin-1")
    assert main(["check", str(golden), "--baseline-ref", "HEAD"]) == 2
    err = capsys.readouterr().err
    assert "HEAD:cached-snapshots/demo/baseline.json" in err and "not UTF-8" in err


def test_baseline_of_another_golden_set_is_refused(golden: Path, tmp_path: Path) -> None:
    other = write_golden(tmp_path / "other", ["a"], name="other")
    assert main(["baseline", "update", str(other)]) == 0
    assert main(["check", str(golden), "--baseline", str(other / "baseline.json")]) == 2


def test_trace_files_compare_with_an_explicit_baseline(tmp_path: Path) -> None:
    run = tmp_path / "a.json"
    run.write_text(json.dumps(run_for("a")), encoding="utf-8")
    first = tmp_path / "first.json"
    assert main(["check", str(run), "--json", str(first)]) == 0
    run.write_text(json.dumps(run_for("a", bad=True)), encoding="utf-8")
    code, report = check_json(tmp_path, str(run), "--baseline", str(first))
    assert code == 1 and report["comparison"]["cases"][0]["new_failures"][0]["check"] == "fabricated_url"


CLEAN_EXAMPLE_CASES = ("python-dataclass-slots", "numpy-2-5-highlights", "long-context-attention-approaches")


def _clean_example(tmp_path: Path) -> Path:
    """The example set cut down to cases that pass every hard check, with its judge cache."""
    import shutil

    import yaml

    src = Path(__file__).parent.parent / "cached-snapshots" / "example"
    root = tmp_path / "example"
    runs = src / "runs"
    shutil.copytree(src, root, ignore=lambda folder, names: (
        {"baseline.json", "snapshot"} | ({n for n in names if Path(n).stem not in CLEAN_EXAMPLE_CASES}
                                         if Path(folder) == runs else set())))
    golden = yaml.safe_load((root / "golden.yaml").read_text(encoding="utf-8"))
    golden["cases"] = [c for c in golden["cases"] if c["id"] in CLEAN_EXAMPLE_CASES]
    (root / "golden.yaml").write_text(yaml.safe_dump(golden, sort_keys=False), encoding="utf-8")
    return root


def test_a_pr_that_deletes_the_judge_cache_is_inconclusive_not_a_pass(tmp_path: Path) -> None:
    import shutil

    root = _clean_example(tmp_path)
    assert main(["baseline", "update", str(root)]) == 0
    shutil.rmtree(root / "judgements")
    code, report = check_json(tmp_path, str(root))
    assert code == 3 and report["verdict"] == "inconclusive"
    assert sorted(report["comparison"]["unjudged_cases"]) == sorted(CLEAN_EXAMPLE_CASES)
    assert "is the judge cache missing?" in report["reasons"][0]
    # Skipping the judges on purpose is a choice, not a gap.
    code, report = check_json(tmp_path, str(root), "--judge", "off")
    assert code == 0 and report["comparison"]["unjudged_cases"] == []
