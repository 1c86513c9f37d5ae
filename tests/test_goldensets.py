"""Several golden sets in one ``sourcegate check`` (and ``baseline update``), through ``main(argv)``.

The rules (``gate.load.goldensets``): each folder runs in turn with its own config, baseline and reports;
with several sets a file output needs ``{name}`` (or is ``-``); two sets of one name, and folders
mixed with trace files, are refused before anything runs; the exit code is the most severe of the
sets' codes, in the order 2, 4, 1, 3, 0.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gate.cli import main
from gate.errors import InputError
from gate.exitcodes import combined_exit
from gate.github import marker
from gate.load.goldensets import per_set_file, require_name_field, split_sets
from tests.support.github_server import DEFAULT_TOKEN, FIXTURES, FakeGitHub
from tests.support.golden_factory import write_golden

# --------------------------------------------------------------------------------------------
# The exit-code rule


@pytest.mark.parametrize(
    ("codes", "expected", "why"),
    [
        ([0, 0], 0, "every set passed"),
        ([0, 3], 3, "one inconclusive set is not a pass"),
        ([3, 1], 1, "a known failure outranks an inconclusive set"),
        ([0, 1, 3], 1, "fail beats inconclusive and pass"),
        ([1, 4], 4, "an internal error means a set has no verdict at all"),
        ([4, 2], 2, "an input error outranks everything"),
        ([2, 0, 1, 3, 4], 2, "all of them"),
        ([0], 0, "one set is its own code"),
        ([], 0, "no set, nothing failed"),
        ([0, 7], 4, "a code outside the table counts as an internal error"),
    ],
)
def test_the_exit_code_is_the_most_severe_of_the_sets(codes: list[int], expected: int, why: str) -> None:
    assert combined_exit(codes) == expected, why


def test_output_paths_need_the_name_field_only_with_several_sets() -> None:
    require_name_field({"--json": "r.json"}, 1)
    require_name_field({"--json": "r-{name}.json", "--markdown": "-", "--junit": None}, 1)
    require_name_field({"--json": "r-{name}.json", "--junit": None}, 2)
    with pytest.raises(InputError, match=r"--markdown - would write 2 documents to stdout.*use a \{name\} "
                                         r"pattern instead.*e\.g\. --markdown reports/\{name\}\.md"):
        require_name_field({"--json": "r-{name}.json", "--markdown": "-"}, 2)
    with pytest.raises(InputError, match=r"--json needs \{name\} in its path .* e\.g\. r-\{name\}\.json"):
        require_name_field({"--json": "r.json"}, 2)
    assert per_set_file("out/{name}/report.json", "a") == "out/a/report.json"
    assert per_set_file("-", "a") == "-" and per_set_file(None, "a") is None
    assert per_set_file("report.json", None) == "report.json"


def test_sets_are_folders_or_all_the_trace_files(tmp_path: Path) -> None:
    a = write_golden(tmp_path / "a", ["x"], name="a")
    b = write_golden(tmp_path / "b", ["x"], name="b")
    assert [s.name for s in split_sets([str(a), str(b)])] == ["a", "b"]
    [one] = split_sets([str(a)])
    assert one.paths == (str(a),) and one.name is None  # one set: read as it always was
    trace = a / "runs" / "x.json"
    [traces] = split_sets([str(trace), str(trace)])
    assert traces.paths == (str(trace), str(trace))
    with pytest.raises(InputError, match="not both"):
        split_sets([str(a), str(trace)])
    with pytest.raises(InputError, match="no such file"):
        split_sets([str(tmp_path / "missing.json")])
    # a mistyped second folder is not a folder: the message names it, not "folders and files mixed"
    with pytest.raises(InputError, match="no such file") as e:
        split_sets([str(a), str(tmp_path / "bb")])
    assert e.value.file == str(tmp_path / "bb")
    hidden = write_golden(tmp_path / "h", ["x"], name=".hidden")
    with pytest.raises(InputError, match="cannot name a file or folder"):
        split_sets([str(a), str(hidden)])


# --------------------------------------------------------------------------------------------
# `sourcegate check A B`


@pytest.fixture
def two_sets(tmp_path: Path) -> tuple[Path, Path]:
    """Set ``good`` passes; set ``bad`` has a fabricated citation in case ``y``."""
    return (write_golden(tmp_path / "sets" / "good", ["x"], name="good"),
            write_golden(tmp_path / "sets" / "bad", ["x", "y"], ["y"], name="bad"))


def reports(folder: Path) -> dict[str, dict[str, Any]]:
    return {p.stem.removeprefix("r-"): json.loads(p.read_text(encoding="utf-8"))
            for p in sorted(folder.glob("r-*.json"))}


def test_two_sets_run_in_turn_and_the_failing_one_decides(
    two_sets: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    good, bad = two_sets
    out = tmp_path / "out"
    code = main(["check", str(good), str(bad), "--json", str(out / "r-{name}.json"),
                 "--junit", str(out / "{name}.xml")])
    assert code == 1
    got = reports(out)
    assert {n: r["verdict"] for n, r in got.items()} == {"good": "pass", "bad": "fail"}
    assert [c["id"] for c in got["bad"]["cases"]] == ["x", "y"]
    assert sorted(p.name for p in out.glob("*.xml")) == ["bad.xml", "good.xml"]
    err = capsys.readouterr().err
    assert "check ran 2 golden sets: good (exit 0), bad (exit 1); exit 1" in err


def test_stdout_and_the_step_summary_get_one_report_per_set(
    two_sets: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    summary = tmp_path / "step_summary"
    summary.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert main(["check", *map(str, two_sets)]) == 1  # markdown to stdout: no {name} needed
    printed = capsys.readouterr().out
    assert printed.index("Golden set `good`") < printed.index("Golden set `bad`")
    appended = summary.read_text(encoding="utf-8")
    assert appended.startswith("earlier step\n")
    assert appended.index("golden set `good`") < appended.index("golden set `bad`")


@pytest.mark.parametrize("flag", ["--json", "--markdown", "--junit", "--summary", "--baseline"])
def test_a_shared_output_file_is_a_usage_error_before_anything_runs(
    flag: str, two_sets: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    target = tmp_path / "out" / "report.txt"
    assert main(["check", *map(str, two_sets), flag, str(target)]) == 2
    assert f"{flag} needs {{name}}" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_the_name_field_is_replaced_with_one_set_too(two_sets: tuple[Path, Path], tmp_path: Path) -> None:
    good, _ = two_sets
    assert main(["check", str(good), "--json", str(tmp_path / "r-{name}.json")]) == 0
    assert list(reports(tmp_path)) == ["good"]


def test_two_sets_of_one_name_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = write_golden(tmp_path / "a", ["x"], name="same")
    b = write_golden(tmp_path / "b", ["x"], name="same")
    assert main(["check", str(a), str(b), "--json", str(tmp_path / "{name}.json")]) == 2
    assert "two golden sets are named 'same'" in capsys.readouterr().err
    assert not list(tmp_path.glob("*.json"))


def test_folders_and_trace_files_do_not_mix(two_sets: tuple[Path, Path],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    good, bad = two_sets
    assert main(["check", str(good), str(bad / "runs" / "x.json")]) == 2
    assert "golden-set folders, or trace files, not both" in capsys.readouterr().err


def test_an_input_error_in_one_set_does_not_stop_the_other(
    two_sets: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    good, bad = two_sets
    (bad / "runs" / "y.json").write_text('{"format": "sourcegate-trace/1",', encoding="utf-8")
    out = tmp_path / "out"
    assert main(["check", str(bad), str(good), "--json", str(out / "r-{name}.json")]) == 2
    assert list(reports(out)) == ["good"]
    err = capsys.readouterr().err
    assert "sourcegate: error: golden set 'bad': " in err and "y.json" in err


def test_an_internal_error_in_one_set_is_exit_4_unless_another_has_an_input_error(
    two_sets: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    import gate.commands.check
    import gate.pipeline

    real = gate.pipeline.run_set

    def buggy_for_good(request: Any, *args: Any, **kwargs: Any) -> Any:
        if request.paths[0].endswith("good"):
            raise RuntimeError("bug")
        return real(request, *args, **kwargs)

    monkeypatch.setattr(gate.commands.check, "run_set", buggy_for_good)
    good, bad = two_sets
    assert main(["check", str(good), str(bad)]) == 4
    assert "golden set 'good': internal error" in capsys.readouterr().err


def test_each_set_reads_the_config_beside_it(tmp_path: Path) -> None:
    strict = write_golden(tmp_path / "strict", ["x"], name="strict", classes={"x": "synthesis"})
    relaxed = write_golden(tmp_path / "relaxed", ["x"], name="relaxed", classes={"x": "synthesis"})
    relaxed_config = 'judge:\n  mode: "off"\nchecks:\n  domain_floor: {synthesis: 1}\n'
    (relaxed / "sourcegate.yaml").write_text(relaxed_config, encoding="utf-8")
    out = tmp_path / "out"
    assert main(["check", str(strict), str(relaxed), "--json", str(out / "r-{name}.json")]) == 1
    assert {n: r["verdict"] for n, r in reports(out).items()} == {"relaxed": "pass", "strict": "fail"}


def test_comment_posts_one_comment_per_set_keyed_by_its_name(
    two_sets: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    with FakeGitHub() as github:
        monkeypatch.setenv("GITHUB_EVENT_PATH", str(FIXTURES / "pull_request.opened.json"))
        monkeypatch.setenv("GITHUB_REPOSITORY", "Codertocat/Hello-World")
        monkeypatch.setenv("GITHUB_TOKEN", DEFAULT_TOKEN)
        monkeypatch.setenv("GITHUB_API_URL", github.base_url)
        monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
        argv = ["check", *map(str, two_sets), "--comment", "--markdown", str(tmp_path / "{name}.md")]
        assert main(argv) == 1
        first = github.comments("Codertocat/Hello-World", 2)
        assert [marker(k) in c["body"] for c, k in zip(first, ("good", "bad"), strict=True)] == [True, True]
        assert main(argv) == 1
        assert [c["id"] for c in github.comments("Codertocat/Hello-World", 2)] == [c["id"] for c in first]


# --------------------------------------------------------------------------------------------
# `sourcegate baseline update A B`


def test_baseline_update_writes_one_baseline_per_set(two_sets: tuple[Path, Path]) -> None:
    good, bad = two_sets
    assert main(["baseline", "update", str(good), str(bad)]) == 1  # bad is refused without --force
    assert json.loads((good / "baseline.json").read_text(encoding="utf-8"))["golden"]["name"] == "good"
    assert not (bad / "baseline.json").exists()
    assert main(["baseline", "update", str(good), str(bad), "--force"]) == 0
    assert json.loads((bad / "baseline.json").read_text(encoding="utf-8"))["baseline"]["forced"] is True


def test_baseline_update_of_several_sets_needs_the_name_in_an_explicit_file(
    two_sets: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["baseline", "update", *map(str, two_sets), "--baseline", str(tmp_path / "b.json")]) == 2
    assert "--baseline needs {name}" in capsys.readouterr().err
    assert main(["baseline", "update", *map(str, two_sets), "--force",
                 "--baseline", str(tmp_path / "{name}.json")]) == 0
    assert sorted(p.name for p in tmp_path.glob("*.json")) == ["bad.json", "good.json"]
    # ... and a later check of both finds each baseline through the same template.
    out = tmp_path / "out"
    assert main(["check", *map(str, two_sets), "--baseline", str(tmp_path / "{name}.json"),
                 "--json", str(out / "r-{name}.json")]) == 1
    assert all(r["comparison"] is not None for r in reports(out).values())
