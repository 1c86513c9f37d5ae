"""The action with several golden sets, in the simulated Actions environment (the ``runner`` fixture).

``golden-set`` names several folders (or none: every set under ``cached-snapshots/``). Each set runs
through the gate on its own: its reports go to ``report-dir/<name>/``, its hard failures
are annotated on its own run files, and it has its own PR comment, keyed by its name. The step says
one thing: the most severe verdict, the exit code from every set's under ``fail-on``, summed
counts, rates over every judged case, and each set's figures in the ``sets`` output.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import replace
from types import MappingProxyType

import pytest

from gate import action, cli
from gate.github import marker
from gate.model import Finding, Verdict
from gate.pipeline import MergeRequest, SetRequest
from gate.results import CaseResult, Counts
from gate.term.progress import Progress
from gate.verdict.report import Report
from tests.support.action_runner import FABRICATED, GOOD, PR_NUMBER, REPO, Runner, annotations, run, write_set


def test_two_sets_one_failing_two_comments_each_updated_in_place(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    good = write_set(runner.ws, "good", {"moons": GOOD})
    bad = write_set(runner.ws, "bad", {"moons": GOOD, "made-up": (GOOD[0], FABRICATED)})
    env = runner.env(runner.event(runner.commit()), golden_set=f"{good}\n{bad}", judge="off")
    code = run(env)
    log = capsys.readouterr().out
    assert code == 1, log

    out = runner.outputs()
    assert out["verdict"] == "fail" and out["exit-code"] == "1"
    assert out["report-path"].splitlines() == ["sourcegate-report/good/report.json",
                                               "sourcegate-report/bad/report.json"]
    sets = json.loads(out["sets"])
    assert [(s["name"], s["verdict"], s["exit-code"]) for s in sets] == [("good", "pass", 0),
                                                                          ("bad", "fail", 1)]
    assert int(out["hard-failures"]) == sets[1]["hard-failures"] >= 1 and sets[0]["hard-failures"] == 0
    for name, verdict in (("good", "pass"), ("bad", "fail")):
        report = json.loads((runner.ws / "sourcegate-report" / name / "report.json").read_text())
        assert report["golden"]["name"] == name and report["verdict"] == verdict
        assert (runner.ws / "sourcegate-report" / name / "junit.xml").is_file()
        assert (runner.ws / "sourcegate-report" / name / "report.html").read_text().startswith("<!DOCTYPE html>")

    [failure] = [a for a in annotations(log) if "title=sourcegate fabricated_url" in a]
    assert failure.startswith("::error file=cached-snapshots/bad/runs/made-up.json,"
                              "title=sourcegate fabricated_url%3A made-up (golden set bad)::")
    [why] = [a for a in annotations(log) if a.startswith("::error title=sourcegate::")]
    assert "verdict fail with fail-on hard: exit 1 (golden sets: good pass, bad fail)" in why
    summary = runner.summary.read_text(encoding="utf-8")
    assert "**sourcegate, 2 golden sets:** `good` pass · `bad` fail (exit 1)" in summary
    assert summary.index("golden set `good`") < summary.index("golden set `bad`")

    first = runner.server.comments(REPO, PR_NUMBER)
    assert [marker(k) in c["body"] for c, k in zip(first, ("good", "bad"), strict=True)] == [True, True]

    # A second push: the same two comments are updated in place, none is added.
    assert run(env) == 1
    second = runner.server.comments(REPO, PR_NUMBER)
    assert [c["id"] for c in second] == [c["id"] for c in first]
    assert len(runner.server.requests_to("update_comment")) == 2


def test_with_no_input_every_set_is_gated_and_fail_on_none_keeps_the_step_green(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    write_set(runner.ws, "b-second", {"made-up": (FABRICATED,)})
    write_set(runner.ws, "a-first", {"moons": GOOD})
    assert run(runner.env(None, judge="off", fail_on="none")) == 0, capsys.readouterr().out
    out = runner.outputs()
    assert out["verdict"] == "fail" and out["exit-code"] == "0"
    assert [s["name"] for s in json.loads(out["sets"])] == ["a-first", "b-second"]  # sorted by path
    assert any("verdict fail with fail-on none: exit 0" in w for w in annotations(capsys.readouterr().out,
                                                                                  "warning"))


def test_two_sets_of_one_name_stop_the_step_before_anything_runs(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    one = write_set(runner.ws, "one", {"moons": GOOD})
    two = write_set(runner.ws, "two", {"moons": GOOD})
    golden = runner.ws / two / "golden.yaml"
    golden.write_text(golden.read_text().replace("name: two", "name: one"))
    assert run(runner.env(None, golden_set=f"{one} {two}", judge="off")) == 2
    [error] = annotations(capsys.readouterr().out)
    assert "two golden sets are named 'one'" in error
    assert not (runner.ws / "sourcegate-report").exists()


def test_a_set_that_cannot_run_is_said_and_the_others_still_report(
    runner: Runner, capsys: pytest.CaptureFixture[str]
) -> None:
    good = write_set(runner.ws, "good", {"moons": GOOD})
    broken = write_set(runner.ws, "broken", {"moons": GOOD})
    (runner.ws / broken / "runs" / "moons.json").write_text('{"format": ')
    assert run(runner.env(None, golden_set=f"{broken}\n{good}", judge="off", fail_on="none")) == 2
    log = capsys.readouterr().out
    [cannot] = [a for a in annotations(log) if "could not run" in a]
    assert cannot.startswith("::error title=sourcegate could not run golden set broken::")
    assert "moons.json" in cannot
    out = runner.outputs()
    assert out["verdict"] == "error" and out["report-path"] == "sourcegate-report/good/report.json"
    assert [s["verdict"] for s in json.loads(out["sets"])] == ["error", "pass"]
    assert json.loads(out["sets"])[0]["report-path"] is None


# --------------------------------------------------------------------------------------------
# Aggregated figures, against a stand-in for the gate that gives each set its report


def _report(name: str, verdict: Verdict, grounding: Sequence[float], failures: int) -> Report:
    cases = [CaseResult(id=f"c{i}", question="q", hard_failures=(), checks=(), counts=Counts(),
                        soft=MappingProxyType({"grounding_rate": g, "hallucination_rate": 1 - g}))
             for i, g in enumerate(grounding)]
    found = tuple(Finding("fabricated_url", "m", f"https://x.example/{i}") for i in range(failures))
    cases[0] = replace(cases[0], hard_failures=found)
    return Report(verdict=verdict, reasons=(), golden_name=name, golden_version=1, cases=tuple(cases))


@pytest.mark.parametrize(
    ("verdicts", "fail_on", "verdict", "code"),
    [
        (("pass", "pass"), "hard", "pass", 0),
        (("pass", "inconclusive"), "hard", "inconclusive", 3),
        (("inconclusive", "fail"), "hard", "fail", 1),
        (("inconclusive", "fail"), "none", "fail", 0),
    ],
)
def test_the_step_adds_up_its_sets(
    runner: Runner, verdicts: tuple[Verdict, Verdict], fail_on: str, verdict: str, code: int,
) -> None:
    reports = {"a": _report("a", verdicts[0], [1.0], 1), "b": _report("b", verdicts[1], [0.5, 0.0], 2)}

    def fake_gate(request: SetRequest | MergeRequest, progress: Progress) -> Report:
        assert isinstance(request, SetRequest)
        return reports[os.path.basename(request.paths[0])]

    write_set(runner.ws, "a", {"moons": GOOD})
    write_set(runner.ws, "b", {"moons": GOOD})
    assert run(runner.env(None, fail_on=fail_on), fake_gate) == code
    out = runner.outputs()
    assert out["verdict"] == verdict and out["exit-code"] == str(code)
    assert out["hard-failures"] == "3"
    # Over every judged case of every set: (1.0 + 0.5 + 0.0) / 3, not the mean of the sets' means.
    assert out["grounding-rate"] == "0.5000" and out["hallucination-rate"] == "0.5000"
    assert [s["grounding-rate"] for s in json.loads(out["sets"])] == [1.0, 0.25]


# --------------------------------------------------------------------------------------------
# Comment mode: an artifact of several sets


def test_comment_mode_posts_one_comment_per_report_of_the_artifact(runner: Runner) -> None:
    for name, cited in (("good", GOOD), ("bad", (FABRICATED,))):
        golden = write_set(runner.ws, name, {"moons": cited})
        target = runner.ws / "sourcegate-artifact" / name / "report.json"
        assert cli.main(["check", str(runner.ws / golden), "--json", str(target), "--judge", "off"]) in (0, 1)
    env = runner.env(None, comment_from="sourcegate-artifact", pr_number=str(PR_NUMBER))
    assert run(env) == 0
    posted = runner.server.comments(REPO, PR_NUMBER)
    assert [marker(k) in c["body"] for c, k in zip(posted, ("bad", "good"), strict=True)] == [True, True]
    out = runner.outputs()
    assert out["verdict"] == "fail"
    assert out["comment-url"].splitlines() == [c["html_url"] for c in posted]
    assert action.combined_verdict(["pass", "inconclusive", "fail"]) == "fail"


def test_golden_set_paths_are_separated_by_newlines_or_spaces() -> None:
    env = {action.input_env_name("golden-set"): " sets/a sets/b\n\tsets/c\n"}
    assert action.read_inputs(env).golden_set == ("sets/a", "sets/b", "sets/c")


def test_each_sets_summary_is_trimmed_to_its_share_and_stays_well_formed(
    runner: Runner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """GitHub's 1 MiB is for the whole step: each set gets its share. A set's summary over its share
    is rendered again to fit, never cut mid-table or inside its collapsed details (which would hide
    the next set's summary in there)."""
    from gate.action import check

    monkeypatch.setattr(check, "SUMMARY_LIMIT", 2 * 3000)
    runs = {f"made-up-{i}": (GOOD[0], FABRICATED) for i in range(10)}
    first = write_set(runner.ws, "first", runs)
    second = write_set(runner.ws, "second", runs)
    env = runner.env(runner.event(runner.commit()), golden_set=f"{first}\n{second}", judge="off",
                     comment="false")
    assert run(env) == 1
    whole = (runner.ws / "sourcegate-report" / "first" / "summary.md").read_text(encoding="utf-8")
    assert len(whole.encode()) > 3000  # the set's own summary is over its share of the step's
    summary = runner.summary.read_text(encoding="utf-8")
    assert len(summary.encode()) <= 2 * 3000
    parts = summary.split("## ❌ sourcegate: **fail** · golden set ")
    assert [p.split("\n", 1)[0] for p in parts[1:]] == ["`first`", "`second`"]
    for part in parts[1:]:
        assert part.count("<details>") == part.count("</details>") == 1
        assert "This job summary was trimmed to fit" in part
