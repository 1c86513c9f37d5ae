"""`check --jobs N`: the runs checked in worker processes give the very report one process gives.

The sets here are large enough for two workers: the example set's runs (every check failing and
passing somewhere) and its baseline, with small runs to make up the number, a case with no run and a
run of no case; and a set of one small run under many case ids, with the judge cache they all read.
"""

from __future__ import annotations

import json
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from gate.cli import main
from gate.git.revision import blob_id
from gate.judge.cache import TrustedEntries
from gate.load.subset import Pick
from gate.pipeline import SetRequest, run_paths, run_set
from gate.report.registry import REPORTERS, rendering
from gate.score.workers import MIN_RUNS_PER_WORKER, available_cores, worker_count
from gate.verdict.report import Report
from tests.conftest import EXAMPLE
from tests.support.golden_factory import run_for, write_golden


@pytest.fixture(scope="module")
def big_set(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example set with its baseline, and small runs to make two workers' worth, some of them bad."""
    root = tmp_path_factory.mktemp("jobs") / "example"
    shutil.copytree(EXAMPLE / "runs", root / "runs")
    shutil.copy(EXAMPLE / "baseline.json", root / "baseline.json")
    golden = yaml.safe_load((EXAMPLE / "golden.yaml").read_text(encoding="utf-8"))
    small = [f"small-{i:03d}" for i in range(2 * MIN_RUNS_PER_WORKER - len(golden["cases"]))]
    for i in small:
        golden["cases"].append({"id": i, "question": f"What did Rust 1.80 stabilise? ({i})", "class": "lookup"})
        (root / "runs" / f"{i}.json").write_text(json.dumps(run_for(i, bad=i.endswith("7"))), encoding="utf-8")
    # A case with no run, and a run for a case the set does not list: each an input error of its case.
    (root / "runs" / "small-013.json").rename(root / "runs" / "not-in-the-set.json")
    stray = json.loads((root / "runs" / "not-in-the-set.json").read_text(encoding="utf-8"))
    (root / "runs" / "not-in-the-set.json").write_text(json.dumps({**stray, "case": "not-in-the-set"}),
                                                       encoding="utf-8")
    (root / "golden.yaml").write_text(yaml.safe_dump(golden, sort_keys=False), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def small_runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two workers' worth of one small run under as many case ids, and its judge cache (three entries:
    the runs are the same but for their ids), filled once by the scripted judge."""
    root = tmp_path_factory.mktemp("jobs") / "small"
    ids = [f"case-{i:03d}" for i in range(2 * MIN_RUNS_PER_WORKER)]
    write_golden(root, ids)
    run = run_for("rust-1-80")
    golden = yaml.safe_load((root / "golden.yaml").read_text(encoding="utf-8"))
    for case in golden["cases"]:
        case["question"] = run["question"]
    (root / "golden.yaml").write_text(yaml.safe_dump(golden, sort_keys=False), encoding="utf-8")
    for i in ids:
        (root / "runs" / f"{i}.json").write_text(json.dumps({**run, "case": i}), encoding="utf-8")
    (root / "sourcegate.yaml").write_text("judge:\n  mode: replay\n  provider: scripted\n", encoding="utf-8")
    # One of the runs judged live records the cache every run reads (the prompts do not name the case).
    one = tmp_path_factory.mktemp("jobs") / "one"
    write_golden(one, ids[:1])
    shutil.copy(root / "golden.yaml", one / "golden.yaml")
    shutil.copy(root / "sourcegate.yaml", one / "sourcegate.yaml")
    shutil.copy(root / "runs" / f"{ids[0]}.json", one / "runs" / f"{ids[0]}.json")
    assert main(["check", str(one), "--judge", "live", "-q"]) in (0, 1)
    shutil.copytree(one / "judgements", root / "judgements")
    assert len(os.listdir(root / "judgements")) == 3
    return root


NOW = datetime(2026, 10, 20, 12, 0, tzinfo=UTC)
"""The clock both runs read: the baseline's age is the only thing in a report that comes from it."""


def _rendered(report: Report) -> dict[str, str]:
    """The reports ``check`` writes to files, of ``report`` (the others render the same cases)."""
    return {name: "".join(rendering(REPORTERS[name].make(None), report)) for name in ("json", "markdown", "junit")}


def test_two_workers_write_the_reports_one_process_writes_byte_for_byte(big_set: Path) -> None:
    one, two = (_rendered(run_set(SetRequest((str(big_set),), judge_mode="off", jobs=jobs), now=NOW))
                for jobs in (1, 2))
    assert one == two
    report = json.loads(one["json"])
    assert len(report["cases"]) == 2 * MIN_RUNS_PER_WORKER + 1 and report["comparison"] is not None
    checks = {f["check"] for c in report["cases"] for f in c["hard_failures"]}
    assert {"input_error", "fabricated_url", "passage_missing"} <= checks  # the gap and the stray too


def test_a_subset_checked_by_workers_is_the_subset_one_process_checks(big_set: Path) -> None:
    # Every case of the set, asked for as a subset: the run of no case is left out by both, and the
    # report says it is a subset, not a whole verdict.
    pick = Pick(("*",), "--case '*'")
    one, two = (_rendered(run_set(SetRequest((str(big_set),), judge_mode="off", jobs=jobs, pick=pick), now=NOW))
                for jobs in (1, 2))
    assert one == two
    report = json.loads(one["json"])
    assert report.get("subset") is not None
    assert "not-in-the-set" not in {c["id"] for c in report["cases"]}
    assert len(report["cases"]) == 2 * MIN_RUNS_PER_WORKER


def test_workers_judge_from_the_cache_and_count_every_entry_none_of_them_trusted(small_runs: Path) -> None:
    # The base revision has part of the cache: each worker's judge leaves the rest unused, and the
    # report's note counts the entries of all of them, as the one process counts its own.
    names = sorted(os.listdir(small_runs / "judgements"))
    trusted = TrustedEntries({n: blob_id((small_runs / "judgements" / n).read_bytes(), "0" * 40) for n in names[1:]})
    one, two = (run_paths([str(small_runs)], None, "replay", trusted_judgements=trusted, jobs=jobs, now=NOW)
                for jobs in (1, 2))
    rendered = _rendered(one)
    assert rendered == _rendered(two)
    assert "judge" in json.loads(rendered["json"]) and any("not used" in w for w in one.warnings)


@pytest.mark.parametrize("damage", ["invalid", "second-run"])
def test_a_bad_trace_stops_the_run_with_the_same_error(small_runs: Path, tmp_path: Path, damage: str,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    golden = tmp_path / "bad"
    shutil.copytree(small_runs, golden)
    victim = golden / "runs" / "case-042.json"
    trace = json.loads(victim.read_text(encoding="utf-8"))
    if damage == "invalid":
        trace["results"][0]["url"] = 5
    else:
        trace["case"] = "case-017"  # a second run of a case another file ran
    victim.write_text(json.dumps(trace), encoding="utf-8")
    errors = []
    for jobs in ("1", "2"):
        assert main(["check", str(golden), "--judge", "off", "--jobs", jobs, "-q"]) == 2
        errors.append(capsys.readouterr().err)
    assert errors[0] == errors[1]
    assert "case-042.json" in errors[0] and "$." in errors[0]


def test_a_shard_checked_by_workers_is_the_shard_one_process_checks(small_runs: Path, tmp_path: Path) -> None:
    reports = []
    for jobs in ("1", "2"):
        out = tmp_path / f"shard-{jobs}.json"
        assert main(["check", str(small_runs), "--judge", "off", "--shard", "1/2", "--jobs", jobs,
                     "--json", str(out), "-q"]) == 0
        reports.append(out.read_bytes())
    assert reports[0] == reports[1]
    assert 0 < len(json.loads(reports[0])["cases"]) < 2 * MIN_RUNS_PER_WORKER


def test_a_small_set_or_a_judge_that_calls_the_api_checks_in_one_process() -> None:
    assert worker_count(8, 2 * MIN_RUNS_PER_WORKER - 1, "off") == 1
    assert worker_count(8, 2 * MIN_RUNS_PER_WORKER, "replay") == 2
    assert worker_count(1, 100 * MIN_RUNS_PER_WORKER, "off") == 1
    assert worker_count(None, 100 * MIN_RUNS_PER_WORKER, "off") == min(100, available_cores())
    for calling in ("live", "batch"):
        assert worker_count(8, 100 * MIN_RUNS_PER_WORKER, calling) == 1


@pytest.mark.parametrize("jobs", ["0", "-2", "two"])
def test_jobs_must_be_a_whole_number_of_processes(jobs: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(EXAMPLE), "--jobs", jobs]) == 2
    assert "1 or more" in capsys.readouterr().err
