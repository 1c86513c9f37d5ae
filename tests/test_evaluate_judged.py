"""What the pure core does with a case and its judgement: citation validity claim by claim, and warnings.

A claim whose quote is found only in another retrieved source is grounded but misattributed (a
citation-validity failure for that claim); a ``regulatory`` or ``synthesis`` case with no primary
source is flagged; constraints and entities no query kept are reported, decided without a model.
None of these is a hard failure.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import MappingProxyType

import pytest

from gate.case_warnings import case_warnings
from gate.config import DEFAULT_DOMAIN_FLOOR, Config
from gate.evaluate import build_report, evaluate_run
from gate.judge.model import Claim, ClaimVerdict, RunJudgement, SourceType
from gate.load import parse_trace
from gate.model import Case, Run
from gate.report.comment import CommentReporter
from gate.report.json import JsonReporter, report_from_dict
from gate.report.markdown import MarkdownReporter
from gate.results import CaseWarning
from tests.support.golden_factory import run_for

CITED = "https://blog.rust-lang.org/2024/07/25/a.html"
ELSEWHERE = "https://releases.rs/docs/1.80.0/"


def make_run(queries: tuple[str, ...] = ("rust 1.80 release stabilised",)) -> Run:
    data = run_for("a")
    data["queries"] = list(queries)
    if not queries:
        data["results"] = [{**r, "query": None} for r in data["results"]]  # type: ignore[attr-defined]
    return parse_trace(data, "a.json", "a")


def claims_located(*located: str | None) -> RunJudgement:
    """One claim per entry, each citing the one cited page; its quote found where ``located`` says."""
    claims = tuple(Claim(i, f"claim {i}", (CITED,)) for i in range(1, len(located) + 1))
    verdicts = tuple(ClaimVerdict(i, "supported" if loc else "unsupported", located=loc)  # type: ignore[arg-type]
                     for i, loc in enumerate(located, start=1))
    return RunJudgement(claims=claims, verdicts=verdicts)


CASE = Case(id="a", question="What did Rust 1.80 stabilise? (a)")  # the question of run_for("a")


# -- citation validity ----------------------------------------------------------------------------

def test_without_a_judgement_citation_validity_is_the_share_of_sound_urls() -> None:
    result = evaluate_run(make_run(), CASE, Config())
    assert result.soft["citation_validity"] == 1.0 and result.judgement is None


def test_a_misattributed_claim_lowers_citation_validity() -> None:
    # Three grounded claims cite the page; one's quote is only on another retrieved page.
    j = claims_located("cited", "cited", "other_source", None)
    assert (j.attributed_count, j.misattributed_count) == (2, 1)
    assert j.attribution_share == pytest.approx(2 / 3)
    result = evaluate_run(make_run(), CASE, Config(), judgement=j)
    assert result.soft["citation_validity"] == pytest.approx(1.0 * 2 / 3)
    assert result.judgement is j and result.soft["grounding_rate"] == pytest.approx(3 / 4)
    assert not result.hard_failures  # a soft figure, never a hard failure


def test_url_failures_and_misattribution_multiply() -> None:
    run = parse_trace(run_for("a", bad=True), "a.json", "a")  # two cited URLs, one fabricated
    result = evaluate_run(run, CASE, Config(), judgement=claims_located("cited", "other_source"))
    assert result.soft["citation_validity"] == pytest.approx(0.5 * 0.5)


def test_claims_that_cite_nothing_or_are_not_grounded_leave_the_url_share_alone() -> None:
    uncited = RunJudgement(claims=(Claim(1, "claim 1"),),
                           verdicts=(ClaimVerdict(1, "supported", located="other_source"),))
    assert uncited.attribution_share is None and uncited.misattributed_count == 0
    assert evaluate_run(make_run(), CASE, Config(), judgement=uncited).soft["citation_validity"] == 1.0
    ungrounded = claims_located(None, None)
    assert evaluate_run(make_run(), CASE, Config(), judgement=ungrounded).soft["citation_validity"] == 1.0


def test_every_claim_misattributed_is_zero_not_unmeasured() -> None:
    result = evaluate_run(make_run(), CASE, Config(), judgement=claims_located("other_source"))
    assert result.soft["citation_validity"] == 0.0


# -- no primary source ----------------------------------------------------------------------------

def typed(*kinds: str | None) -> RunJudgement:
    return RunJudgement(source_types=tuple(SourceType(f"https://s{i}.example/", k)  # type: ignore[arg-type]
                                           for i, k in enumerate(kinds)))


@pytest.mark.parametrize(("cls", "kinds", "flagged"), [
    ("regulatory", ("secondary", "secondary"), True),
    ("synthesis", ("secondary", None), True),
    ("regulatory", ("secondary", "primary"), False),
    ("synthesis", (None, None), False),  # nothing typed (judge unavailable): not flagged either way
    ("lookup", ("secondary",), False),
    (None, ("secondary",), False),
])
def test_a_regulatory_or_synthesis_case_without_a_primary_source_is_flagged(
        cls: str | None, kinds: tuple[str | None, ...], flagged: bool) -> None:
    case = Case(id="a", question=CASE.question, cls=cls)
    kinds_found = [w.kind for w in case_warnings(case, make_run(), typed(*kinds))]
    assert kinds_found == (["no_primary_source"] if flagged else [])


def test_the_no_primary_flag_is_a_warning_not_a_failure() -> None:
    case = Case(id="a", question=CASE.question, cls="regulatory")
    one_site = Config(domain_floor=MappingProxyType({**DEFAULT_DOMAIN_FLOOR, "other": 1}))
    result = evaluate_run(make_run(), case, one_site, judgement=typed("secondary"))
    assert result.warnings == (CaseWarning(
        "no_primary_source",
        "a regulatory case that cites no primary source (1 cited source(s) typed, all secondary)"),)
    assert not result.hard_failures
    report = build_report("demo", 1, [result], one_site)
    assert report.verdict == "pass"
    data = json.loads(JsonReporter().render(report))
    assert data["cases"][0]["warnings"] == [{"kind": "no_primary_source", "message": result.warnings[0].message}]
    assert "`a` `no_primary_source`: a regulatory case that cites no primary source" in \
        MarkdownReporter().render(report)
    assert "`a` `no_primary_source`" in CommentReporter().render(report)
    assert case_warnings(case, make_run(), None) == ()  # not judged: no source types, no flag


# -- constraints and entities no query kept -------------------------------------------------------

def test_dropped_constraints_and_entities_are_reported_without_a_judge() -> None:
    case = Case(id="a", question=CASE.question, constraints=("Rust 1.80", "July 2024"), entities=("LazyLock", "rust"))
    result = evaluate_run(make_run(), case, Config())  # no judgement at all
    assert (result.dropped_constraints, result.dropped_entities) == (("July 2024",), ("LazyLock",))
    assert [w.kind for w in result.warnings] == ["dropped_constraints", "dropped_entities"]
    report = build_report("demo", 1, [result], Config())
    case_json = json.loads(JsonReporter().render(report))["cases"][0]
    assert (case_json["dropped_constraints"], case_json["dropped_entities"]) == (["July 2024"], ["LazyLock"])
    text = MarkdownReporter().render(report)
    assert "`a` `dropped_constraints`: no query kept the constraint\\(s\\) «July 2024»" in text
    assert "`a` `dropped_entities`: no query kept the entity\\(ies\\) «LazyLock»" in text
    back = report_from_dict(json.loads(JsonReporter().render(report))).cases[0]
    assert (back.dropped_constraints, back.dropped_entities, back.warnings) == (
        result.dropped_constraints, result.dropped_entities, result.warnings)


def test_a_run_without_queries_reports_nothing_dropped() -> None:
    case = Case(id="a", question=CASE.question, constraints=("July 2024",))
    result = evaluate_run(make_run(queries=()), case, Config())
    assert result.dropped_constraints == () and result.warnings == ()


def test_the_example_set_reports_dropped_constraints_with_the_judge_off(tmp_path: Path) -> None:
    from gate.cli import main

    example = Path(__file__).resolve().parent.parent / "cached-snapshots" / "example"
    out = tmp_path / "r.json"
    main(["check", str(example), "--judge", "off", "--json", str(out)])
    cases = {c["id"]: c for c in json.loads(out.read_text(encoding="utf-8"))["cases"]}
    assert cases["who-physical-activity-adults"]["dropped_constraints"] == ["adults aged 18 to 64"]
    assert cases["fomc-september-2026-decision"]["dropped_entities"] == ["Federal Reserve"]
    assert cases["python-dataclass-slots"]["dropped_entities"] == []


# -- the judged freshness regime feeds stale_sources ----------------------------------------------

def test_the_judged_regime_feeds_stale_sources_for_a_case_that_sets_none() -> None:
    # The cited page is a week old when the run starts: stale only for a realtime question.
    realtime = RunJudgement(regime="realtime")
    judged = evaluate_run(make_run(), CASE, Config(), judgement=realtime)
    assert judged.regime == "realtime" and [f.check for f in judged.hard_failures] == ["stale_sources"]
    assert not evaluate_run(make_run(), CASE, Config()).hard_failures  # no regime: not checked
    slow = Case(id="a", question=CASE.question, freshness="slow")
    assert evaluate_run(make_run(), slow, Config(), judgement=realtime).regime == "slow"  # the case wins
