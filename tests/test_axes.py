"""The per-query vector, shown by example runs: each file under fixtures/axes/<axis>/fails must
come out below 1 on that axis (or carry that warning), each under passes/ at 1 (or without it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gate.config import Config
from gate.judge.model import Claim, ClaimVerdict, RunJudgement
from gate.load.golden import load_trace
from gate.model import Case
from gate.results import CaseResult
from gate.score.evaluate import evaluate_run

AXES_DIR = Path(__file__).parent / "fixtures" / "axes"
WARNINGS = {"missing_recency_caveat"}


def examples(kind: str) -> list[Any]:
    return [pytest.param(f.parent.parent.name, f, id=f"{f.parent.parent.name}/{f.stem}")
            for f in sorted(AXES_DIR.glob(f"*/{kind}/*.json")) if f.name.count(".") == 1]


def sidecar(file: Path, kind: str) -> dict[str, Any]:
    side = file.with_name(f"{file.stem}.{kind}.json")
    return json.loads(side.read_text()) if side.exists() else {}


def judgement(data: dict[str, Any]) -> RunJudgement | None:
    if not data:
        return None
    return RunJudgement(
        claims=tuple(Claim(c["id"], c["text"], tuple(c["citations"])) for c in data["claims"]),
        verdicts=tuple(ClaimVerdict(v["claim_id"], v["verdict"], v.get("evidence")) for v in data["verdicts"]),
    )


def evaluate(file: Path) -> CaseResult:
    run = load_trace(str(file))
    extra = sidecar(file, "case")
    case = Case(id=run.case, question=run.question, cls=extra.get("class"), freshness=extra.get("freshness"),
                about_domains=tuple(extra.get("about_domains", ())))
    return evaluate_run(run, case, Config(), judgement=judgement(sidecar(file, "judgement")))


@pytest.mark.parametrize(("axis", "file"), examples("fails"))
def test_run_fails_its_axis(axis: str, file: Path) -> None:
    result = evaluate(file)
    if axis in WARNINGS:
        assert axis in {w.kind for w in result.warnings}
        return
    value = result.soft[axis]
    assert value is not None and value < 1, result.axes[axis]


@pytest.mark.parametrize(("axis", "file"), examples("passes"))
def test_run_passes_its_axis(axis: str, file: Path) -> None:
    result = evaluate(file)
    if axis in WARNINGS:
        assert axis not in {w.kind for w in result.warnings}
        return
    assert result.soft[axis] == 1.0, result.axes[axis]


def test_every_axis_has_a_failing_and_a_passing_example() -> None:
    for axis in ("freshness", "diversity", "citation_validity", *WARNINGS):
        assert list(AXES_DIR.glob(f"{axis}/fails/*.json")), axis
        assert list(AXES_DIR.glob(f"{axis}/passes/*.json")), axis


def test_the_notes_say_why() -> None:
    stale = evaluate(AXES_DIR / "freshness/fails/median-source-older-than-the-fast-limit.json")
    assert stale.axes["freshness"] == "median age 579 days over the fast limit 90 (3 dated)"
    unknown = evaluate(AXES_DIR / "freshness/passes/undated-sources-are-unknown-not-old.json")
    assert unknown.axes["freshness"] == "median age 11 days within the fast limit 90 (1 dated; 2 undated (unknown))"
    cap = evaluate(AXES_DIR / "diversity/fails/three-urls-on-one-site-break-the-cap.json")
    assert cap.axes["diversity"].startswith("fails cap: 2 site(s), floor 1; cap 2 broken on bbc.co.uk")
    assert {f.check for f in cap.hard_failures} == {"domain_cap"}
    secondary = evaluate(AXES_DIR / "diversity/fails/only-secondary-sources.json")
    assert secondary.axes["diversity"] == ("fails primary share: 2 site(s), floor 1; cap 2 kept; "
                                           "primary share 0.00, least 0.2")
    moved = evaluate(AXES_DIR / "citation_validity/fails/claim-supported-only-by-a-page-it-does-not-cite.json")
    assert moved.soft["citation_validity"] == 0.5
    assert moved.axes["citation_validity"] == "1 of 2 (claim, URL) pair(s) valid; 1 not supported by that page"
    # the answer is fully grounded (both claims supported), but only one pair is aligned: side by side
    assert moved.soft["grounding_rate"] == 1.0
