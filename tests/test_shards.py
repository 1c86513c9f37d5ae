"""Shards and merge: `check --shard i/n` evaluates a stable share of the cases, and `merge` puts the
shards back together into exactly the report an unsharded `check` writes, or refuses, naming why."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from gate.cli import main
from gate.errors import InputError
from gate.load.golden import golden_identity, load_golden
from gate.load.shards import Shard, in_shard, parse_shard
from tests.conftest import EXAMPLE
from tests.support.checked_once import checked, shards
from tests.support.golden_factory import write_golden

CLOCK_FIELDS = (("comparison", "baseline", "age_days"),)
"""What a merged report may differ in from an unsharded one: the baseline's age, read off the clock."""


def _without_clock(report: dict[str, Any]) -> dict[str, Any]:
    for path in CLOCK_FIELDS:
        node = report
        for key in path[:-1]:
            node = node.get(key, {})
        node.pop(path[-1], None)
    return report


def _read(file: Path) -> dict[str, Any]:
    return json.loads(file.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def _shards(golden: Path, out: Path, count: int, *extra: str) -> list[Path]:
    files = []
    for i in range(1, count + 1):
        file = out / f"shard-{i}.json"
        assert main(["check", str(golden), "--shard", f"{i}/{count}", "--json", str(file), *extra]) == 0
        files.append(file)
    return files


def test_every_case_is_in_exactly_one_shard_and_adding_a_case_moves_no_other() -> None:
    ids = [f"case-{n}" for n in range(500)]
    owners = {i: [k for k in range(1, 5) if in_shard(i, Shard(k, 4))] for i in ids}
    assert all(len(o) == 1 for o in owners.values())
    sizes = [sum(1 for o in owners.values() if o == [k]) for k in range(1, 5)]
    assert min(sizes) > 80  # a fair share each
    # The shard depends on the id alone (no list of cases goes in), pinned so no release moves a case.
    assert [k for k in range(1, 5) if in_shard("python-dataclass-slots", Shard(k, 4))] == [3]
    assert [k for k in range(1, 8) if in_shard("who-physical-activity-adults", Shard(k, 7))] == [4]


@pytest.mark.parametrize("text", ["0/4", "5/4", "1/0", "a/b", "2", "-1/3", "1/4/2"])
def test_a_malformed_shard_is_a_usage_error(text: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(Exception):  # noqa: B017,PT011 - parse_shard raises InputError
        parse_shard(text)
    assert main(["check", str(EXAMPLE), "--shard", text]) == 2
    assert "--shard" in capsys.readouterr().err


def test_merge_of_four_shards_is_the_unsharded_report_of_the_example_set(tmp_path: Path) -> None:
    code, full, _ = checked(EXAMPLE, tmp_path)
    files = shards(EXAMPLE, tmp_path, 4)
    marks = [_read(f)["shard"] for f in files]
    assert sorted(p for m in marks for p in m["positions"]) == list(range(marks[0]["total"]))
    assert all("comparison" not in _read(f) for f in files)  # a shard is never compared on its own
    merged = tmp_path / "merged.json"
    assert main(["merge", str(EXAMPLE), *map(str, reversed(files)), "--json", str(merged)]) == code
    assert _without_clock(_read(merged)) == _without_clock(_read(full))


def test_a_shard_of_several_sets_or_with_a_comment_is_refused(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(EXAMPLE), "--shard", "1/2", "--comment"]) == 2
    assert "sourcegate merge" in capsys.readouterr().err


@pytest.fixture(scope="module")
def shared_demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small set of twelve cases, one of them bad, shared by the tests of this module: none
    changes it, so its reports are written once (:mod:`tests.support.checked_once`)."""
    return write_golden(tmp_path_factory.mktemp("shared") / "demo", [f"c{n}" for n in range(12)], bad=["c3"])


@pytest.fixture
def demo(shared_demo: Path, tmp_path: Path) -> Path:
    """A copy of ``shared_demo`` for a test that changes it: until it does, the shards of
    ``shared_demo`` are its shards too (a shard says nothing of the folder it ran in)."""
    return Path(shutil.copytree(shared_demo, tmp_path / "demo"))


def _merge(golden: Path, files: list[Path], tmp_path: Path, *extra: str) -> tuple[int, Path]:
    out = tmp_path / "merged.json"
    return main(["merge", str(golden), *map(str, files), "--json", str(out), *extra]), out


def test_a_missing_or_duplicate_shard_is_named(shared_demo: Path, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    files = shards(shared_demo, tmp_path, 3)
    code, out = _merge(shared_demo, files[:2], tmp_path)
    assert code == 2 and "shard 3/3 missing" in capsys.readouterr().err and not out.exists()
    code, out = _merge(shared_demo, [files[0], files[1], files[1]], tmp_path)
    assert code == 2 and "shard 2/3 is given twice" in capsys.readouterr().err and not out.exists()


def test_shards_of_another_golden_set_version_or_configuration_are_refused(
        shared_demo: Path, demo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = shards(shared_demo, tmp_path, 2)
    other = write_golden(tmp_path / "other", [f"c{n}" for n in range(12)], name="other")
    assert _merge(other, files, tmp_path)[0] == 2
    assert "the golden set is 'demo' here, 'other'" in capsys.readouterr().err
    bumped = write_golden(tmp_path / "bumped", [f"c{n}" for n in range(12)], version=2)
    assert _merge(bumped, files, tmp_path)[0] == 2
    assert "version" in capsys.readouterr().err
    (demo / "sourcegate.yaml").write_text("judge:\n  mode: \"off\"\nchecks:\n  domain_cap: 5\n", encoding="utf-8")
    assert _merge(demo, files, tmp_path)[0] == 2
    assert "the configuration (digest)" in capsys.readouterr().err


def test_shards_of_another_list_of_cases_are_refused(shared_demo: Path, demo: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    first = shards(shared_demo, tmp_path, 2)[0]
    write_golden(demo, [f"c{n}" for n in range(13)])
    second = tmp_path / "again.json"
    assert main(["check", str(demo), "--shard", "2/2", "--json", str(second)]) == 0
    assert _merge(demo, [first, second], tmp_path)[0] == 2
    assert "the list of cases" in capsys.readouterr().err


def test_shards_compared_with_another_baseline_are_refused(shared_demo: Path, demo: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    files = shards(shared_demo, tmp_path, 2)
    assert main(["baseline", "update", str(demo), "--force"]) == 0
    code, out = _merge(demo, files, tmp_path)
    assert code == 2 and "the baseline (digest)" in capsys.readouterr().err and not out.exists()
    # Shards run after the baseline exists merge into the compared report.
    files = _shards(demo, tmp_path, 2)
    code, out = _merge(demo, files, tmp_path)
    assert code == 1 and _read(out)["comparison"]["baseline"]["verdict"] == "fail"


def test_a_full_report_is_not_a_shard(shared_demo: Path, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    _, full, _ = checked(shared_demo, tmp_path)
    assert _merge(shared_demo, [full], tmp_path)[0] == 2
    assert "not a partial report" in capsys.readouterr().err


def test_a_run_with_a_problem_case_merges_in_the_unsharded_order(demo: Path, tmp_path: Path) -> None:
    """A run golden.yaml does not list, and a case with no run, land where the unsharded run puts them."""
    shutil.copy(demo / "runs" / "c1.json", demo / "runs" / "zz-extra.json")
    data = _read(demo / "runs" / "zz-extra.json")
    data["case"] = "unlisted"
    (demo / "runs" / "zz-extra.json").write_text(json.dumps(data), encoding="utf-8")
    (demo / "runs" / "c5.json").unlink()
    full = tmp_path / "full.json"
    code = main(["check", str(demo), "--json", str(full)])
    code2, out = _merge(demo, _shards(demo, tmp_path, 3), tmp_path)
    assert code == code2 == 1
    assert _read(out) == _read(full)


def test_a_shard_validates_only_its_own_runs_and_the_merge_refuses_the_shard_that_stopped(
        demo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    broken = next(n for n in range(12) if in_shard(f"c{n}", Shard(2, 2)))
    data = _read(demo / "runs" / f"c{broken}.json")
    data["results"] = "not a list"
    (demo / "runs" / f"c{broken}.json").write_text(json.dumps(data), encoding="utf-8")
    first = tmp_path / "first.json"
    assert main(["check", str(demo), "--shard", "1/2", "--json", str(first)]) == 0
    assert main(["check", str(demo), "--shard", "2/2", "--json", str(tmp_path / "second.json")]) == 2
    assert f"c{broken}.json" in capsys.readouterr().err
    assert _merge(demo, [first], tmp_path)[0] == 2
    assert "shard 2/2 missing" in capsys.readouterr().err


@pytest.mark.parametrize(("tamper", "where"), [
    (lambda c: c.update(unknown="key"), "$.cases[0].unknown"),
    (lambda c: c.pop("figures"), "$.cases[0]"),
    (lambda c: c.pop("checks"), "$.cases[0]"),
    (lambda c: c.update(id=7), "$.cases[0].id"),
    (lambda c: c["figures"].update(citations="three"), "$.cases[0].figures.citations"),
    (lambda c: c["figures"].update(citations=True), "$.cases[0].figures.citations"),
    (lambda c: c["figures"].update(citations=2.0), "$.cases[0].figures.citations"),
    (lambda c: c["figures"].update(citations=-1), "$.cases[0].figures.citations"),
    (lambda c: c["figures"].update(extra=1), "$.cases[0].figures.extra"),
    (lambda c: c["soft"].update(freshness=True), "$.cases[0].soft.freshness"),
    (lambda c: c["notes"].append(5), "$.cases[0].notes[0]"),
    (lambda c: c["checks"]["fabricated_url"].update(status="green"), "$.cases[0].checks.fabricated_url.status"),
    (lambda c: c["checks"]["fabricated_url"].pop("reason"), "$.cases[0].checks.fabricated_url"),
    (lambda c: c["hard_failures"].append({"check": "x", "url": None, "message": "m", "more": 1}),
     "$.cases[0].hard_failures"),
])
def test_a_case_sourcegate_would_not_write_is_refused_with_its_path(
        shared_demo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], tamper: Any, where: str) -> None:
    files = shards(shared_demo, tmp_path, 2)
    data = _read(files[1])
    tamper(data["cases"][0])
    files[1].write_text(json.dumps(data), encoding="utf-8")
    code, out = _merge(shared_demo, files, tmp_path)
    assert code == 2 and not out.exists()
    err = capsys.readouterr().err
    assert where in err and "not a case as sourcegate writes it" in err


@pytest.mark.parametrize(("tamper", "why"), [
    (lambda j: j.update(claim_count=j["claim_count"] + 1), "does not read back the same"),
    (lambda j: j["usage"].pop("calls"), "missing the key 'calls'"),
    (lambda j: j["verdicts"][0].update(verdict="true"), "expected one of"),
])
def test_a_case_whose_judgement_does_not_add_up_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                           tamper: Any, why: str) -> None:
    """A judgement's counts and figures follow from its claims: a partial report cannot say otherwise."""
    files = shards(EXAMPLE, tmp_path, 2)
    data = _read(files[0])
    judged = next(i for i, c in enumerate(data["cases"]) if c.get("judgement", {}).get("verdicts"))
    tamper(data["cases"][judged]["judgement"])
    files[0].write_text(json.dumps(data), encoding="utf-8")
    code, out = _merge(EXAMPLE, files, tmp_path)
    assert code == 2 and not out.exists()
    err = capsys.readouterr().err
    assert f"$.cases[{judged}].judgement" in err and why in err


def test_the_key_order_of_a_case_does_not_matter(shared_demo: Path, tmp_path: Path) -> None:
    """The merged report is written from the cases' values, in sourcegate's own key order."""
    files = shards(shared_demo, tmp_path, 2)
    code, out = _merge(shared_demo, files, tmp_path)
    expected = out.read_text(encoding="utf-8")
    data = _read(files[1])
    data["cases"] = [dict(reversed(c.items())) for c in data["cases"]]
    files[1].write_text(json.dumps(data), encoding="utf-8")
    assert _merge(shared_demo, files, tmp_path)[0] == code
    assert out.read_text(encoding="utf-8") == expected


def test_the_merge_reads_only_the_name_and_version_at_the_top_of_golden_yaml(
        shared_demo: Path, demo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = shards(shared_demo, tmp_path, 2)
    text = (demo / "golden.yaml").read_text(encoding="utf-8")
    # A golden.yaml whose name comes after its cases is read whole, with the same outcome.
    lines = text.splitlines(keepends=True)
    name = next(line for line in lines if line.startswith("name:"))
    (demo / "golden.yaml").write_text("".join(line for line in lines if line != name) + name, encoding="utf-8")
    assert _merge(demo, files, tmp_path)[0] == 1
    (demo / "golden.yaml").write_text(text.replace("name: demo", "name: other"), encoding="utf-8")
    assert _merge(demo, files, tmp_path)[0] == 2
    assert "the golden set is 'demo' here, 'other'" in capsys.readouterr().err
    (demo / "golden.yaml").unlink()
    assert _merge(demo, files, tmp_path)[0] == 2
    assert "no golden.yaml" in capsys.readouterr().err


@pytest.mark.parametrize(("text", "read_whole"), [
    ("version: 3\nname: demo\ncases: []\n", False),
    ("format: sourcegate-golden/1\ndescription: >-\n  two\n  lines\nname: demo\nversion: 3\ncases: []\n", False),
    ("cases: []\nname: demo\nversion: 3\n", True),
    ("name: &n demo\nversion: 3\ncases: []\n", True),
    ("name: demo\nversion: '3'\ncases: []\n", True),
    ("name: demo\nversion: 3.0\ncases: []\n", True),
    ("name: demo\nname: demo\nversion: 3\ncases: []\n", True),
])
def test_the_name_and_version_are_read_from_the_top_or_else_from_the_whole_file(
        tmp_path: Path, text: str, read_whole: bool) -> None:
    (tmp_path / "golden.yaml").write_text(text, encoding="utf-8")
    if read_whole:  # what load_golden says of the whole file, or its name and version
        try:
            expected: object = ((g := load_golden(str(tmp_path))).name, g.version)
        except InputError as e:
            expected = str(e)
    else:
        expected = ("demo", 3)
    try:
        got: object = golden_identity(str(tmp_path))
    except InputError as e:
        got = str(e)
    assert got == expected


@pytest.mark.parametrize(("flags", "said"), [
    (["--json", "-", "--junit", "-"], "only one report can go to stdout"),
    (["--json", "merged-{nme}.json"], "unknown placeholder {nme}"),
])
def test_merge_refuses_two_reports_on_stdout_or_an_unknown_placeholder_before_reading(
        flags: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "never-read.json"  # refused before any partial report is read
    assert main(["merge", str(EXAMPLE), str(missing), *flags]) == 2
    err = capsys.readouterr().err
    assert said in err and "never-read" not in err
