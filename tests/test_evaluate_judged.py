"""What the pure core does with a case and its judgement: citation validity claim by claim, and warnings.

A claim whose quote is found only in another retrieved source is grounded but misattributed (a
citation-validity failure for that claim); a ``regulatory`` or ``synthesis`` case with no primary
source is flagged; constraints and entities no query kept are reported, decided without a model.
None of these is a hard failure.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

import pytest

from gate.config import DEFAULT_DOMAIN_FLOOR, Config
from gate.judge.model import Claim, ClaimVerdict, RunJudgement, SourceType
from gate.load.golden import parse_trace
from gate.model import Case, Run
from gate.report.json import JsonReporter
from gate.report.markdown import MarkdownReporter
from gate.score.case_warnings import case_warnings
from gate.score.evaluate import evaluate_run
from gate.store.serialise import report_from_dict
from gate.verdict.decide import build_report
from tests.support.golden_factory import QUOTE, run_for

CITED = "https://blog.rust-lang.org/2024/07/25/a.html"
ELSEWHERE = "https://releases.rs/docs/1.80.0/"


def make_run(queries: tuple[str, ...] = ("rust 1.80 release stabilised",)) -> Run:
    data = run_for("a")
    data["queries"] = list(queries)
    if not queries:
        data["results"] = [{**r, "query": None} for r in data["results"]]  # type: ignore[attr-defined]
    return parse_trace(data, "a.json", "a")


def claims_quoting(*quotes: str | None, cites: str = CITED) -> RunJudgement:
    """One claim per entry, each citing ``cites``; a quote makes it ``supported``, None ``unsupported``."""
    claims = tuple(Claim(i, f"claim {i}", (cites,)) for i in range(1, len(quotes) + 1))
    verdicts = tuple(ClaimVerdict(i, "supported" if q else "unsupported", q) for i, q in enumerate(quotes, start=1))
    return RunJudgement(claims=claims, verdicts=verdicts)


CASE = Case(id="a", question="What did Rust 1.80 stabilise? (a)")  # the question of run_for("a")
ON_PAGE = QUOTE
NOT_ON_PAGE = "Rust 1.80 removed the borrow checker entirely"


# -- citation validity: (claim, cited URL) pairs --------------------------------------------------

def test_without_a_judgement_citation_validity_is_the_share_of_sound_urls() -> None:
    result = evaluate_run(make_run(), CASE, Config())
    assert result.soft["citation_validity"] == 1.0 and result.judgement is None
    assert result.axes["citation_validity"] == ("1 of 1 cited URL(s) resolved with their passages "
                                                "(no judged claim cites a URL: URL checks only)")


def test_an_unsupported_claim_lowers_citation_validity() -> None:
    # Every URL is sound; one claim of two is not supported by the page it cites.
    result = evaluate_run(make_run(), CASE, Config(), judgement=claims_quoting(ON_PAGE, None))
    assert result.soft["citation_validity"] == 0.5
    assert result.axes["citation_validity"] == "1 of 2 (claim, URL) pair(s) valid; 1 not supported by that page"
    assert not result.hard_failures  # a soft figure, never a hard failure


def test_a_quote_not_on_the_cited_page_fails_its_pair() -> None:
    result = evaluate_run(make_run(), CASE, Config(), judgement=claims_quoting(ON_PAGE, NOT_ON_PAGE))
    assert result.soft["citation_validity"] == 0.5


def test_a_claim_citing_a_fabricated_url_fails_its_pair_even_when_supported_elsewhere() -> None:
    run = parse_trace(run_for("a", bad=True), "a.json", "a")  # two cited URLs, one fabricated
    fake = "https://made-up.example.net/a"
    j = RunJudgement(claims=(Claim(1, "claim 1", (CITED,)), Claim(2, "claim 2", (fake,))),
                     verdicts=(ClaimVerdict(1, "supported", ON_PAGE), ClaimVerdict(2, "supported", ON_PAGE)))
    result = evaluate_run(run, CASE, Config(), judgement=j)
    assert result.soft["citation_validity"] == 0.5
    assert result.axes["citation_validity"] == ("1 of 2 (claim, URL) pair(s) valid; 1 unresolved, "
                                                "1 not supported by that page")


def test_a_claim_citing_two_urls_makes_two_pairs() -> None:
    run = parse_trace(run_for("a", bad=True), "a.json", "a")
    fake = "https://made-up.example.net/a"
    j = RunJudgement(claims=(Claim(1, "claim 1", (CITED, fake)),), verdicts=(ClaimVerdict(1, "supported", ON_PAGE),))
    assert evaluate_run(run, CASE, Config(), judgement=j).soft["citation_validity"] == 0.5


def test_unscored_claims_make_no_pair_and_all_unscored_is_unmeasured() -> None:
    j = RunJudgement(claims=(Claim(1, "claim 1", (CITED,)), Claim(2, "claim 2", (CITED,))),
                     verdicts=(ClaimVerdict(1, "supported", ON_PAGE), ClaimVerdict(2, None, unscored_reason="x")))
    assert evaluate_run(make_run(), CASE, Config(), judgement=j).soft["citation_validity"] == 1.0
    none = RunJudgement(claims=(Claim(1, "claim 1", (CITED,)),),
                        verdicts=(ClaimVerdict(1, None, unscored_reason="x"),))
    result = evaluate_run(make_run(), CASE, Config(), judgement=none)
    assert result.soft["citation_validity"] is None
    assert result.axes["citation_validity"] == "every claim that cites a source is unscored"


def test_claims_that_cite_nothing_leave_the_url_share_alone() -> None:
    uncited = RunJudgement(claims=(Claim(1, "claim 1"),), verdicts=(ClaimVerdict(1, "supported", ON_PAGE),))
    assert evaluate_run(make_run(), CASE, Config(), judgement=uncited).soft["citation_validity"] == 1.0


def test_every_claim_unsupported_is_zero_not_unmeasured() -> None:
    result = evaluate_run(make_run(), CASE, Config(), judgement=claims_quoting(None, None))
    assert result.soft["citation_validity"] == 0.0


# -- no primary source: a hard failure for the classes that require one ---------------------------

def typed(*kinds: str | None) -> RunJudgement:
    """The judgement's source types for the run's one cited URL (the rest of the run is untyped)."""
    return RunJudgement(source_types=tuple(SourceType(CITED, k) for k in kinds))  # type: ignore[arg-type]


def failed_checks(cls: str | None, judgement: RunJudgement | None, config: Config | None = None) -> set[str]:
    one_site = replace(config or Config(), domain_floor=MappingProxyType({**DEFAULT_DOMAIN_FLOOR, "other": 1}))
    result = evaluate_run(make_run(), Case(id="a", question="q", cls=cls), one_site, judgement=judgement)
    return {f.check for f in result.hard_failures}


@pytest.mark.parametrize(("cls", "kind", "fails"), [
    ("regulatory", "secondary", True),
    ("medical", None, True),  # unknown is never primary
    ("legal", "secondary", True),
    ("regulatory", "primary", False),
    ("synthesis", "secondary", False),  # not a class that requires primary sources by default
    (None, "secondary", False),
])
def test_a_class_that_requires_primary_sources_fails_without_one(cls: str | None, kind: str | None,
                                                                 fails: bool) -> None:
    assert ("no_primary_source" in failed_checks(cls, typed(kind))) is fails


def test_the_classes_come_from_the_configuration() -> None:
    assert "no_primary_source" in failed_checks("synthesis", typed("secondary"),
                                                Config(require_primary=("synthesis",)))
    assert "no_primary_source" not in failed_checks("regulatory", typed("secondary"), Config(require_primary=()))


def test_without_a_judgement_the_rules_type_the_sources() -> None:
    # blog.rust-lang.org: no rule types it, so it is unknown and the regulatory case fails
    assert "no_primary_source" in failed_checks("regulatory", None)
    result = evaluate_run(make_run(), Case(id="a", question="q", cls="regulatory", about_domains=("rust-lang.org",)),
                          Config(), judgement=None)
    assert "no_primary_source" not in {f.check for f in result.hard_failures}  # the case's own site is primary


def test_no_primary_source_fails_the_gate_and_names_the_unknown_sources() -> None:
    result = evaluate_run(make_run(), Case(id="a", question="q", cls="regulatory"), Config(), judgement=typed(None))
    finding = next(f for f in result.hard_failures if f.check == "no_primary_source")
    assert finding.message == (f"a regulatory case must cite a primary source: 1 cited, 0 secondary; "
                               f"unknown (never primary): {CITED}")
    report = build_report("demo", 1, [result], Config())
    assert report.verdict == "fail"
    assert case_warnings(CASE, make_run(), None) == ()


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


def test_each_query_says_what_it_lost_though_another_query_kept_it() -> None:
    case = Case(id="a", question=CASE.question, constraints=("Rust 1.80", "July 2024"), entities=("LazyLock",))
    result = evaluate_run(make_run(("rust 1.80 release stabilised", "LazyLock July 2024")), case, Config())
    assert result.dropped_constraints == () and result.dropped_entities == ()  # together they keep everything
    assert [(q.query, q.dropped_constraints, q.dropped_entities) for q in result.queries] == [
        ("rust 1.80 release stabilised", ("July 2024",), ("LazyLock",)),
        ("LazyLock July 2024", ("Rust 1.80",), ())]
    report = build_report("demo", 1, [result], Config())
    case_json = json.loads(JsonReporter().render(report))["cases"][0]
    assert case_json["queries"][1] == {"query": "LazyLock July 2024", "dropped_constraints": ["Rust 1.80"],
                                       "dropped_entities": []}
    assert report_from_dict(json.loads(JsonReporter().render(report))).cases[0].queries == result.queries


def test_a_run_without_queries_reports_nothing_dropped() -> None:
    case = Case(id="a", question=CASE.question, constraints=("July 2024",))
    result = evaluate_run(make_run(queries=()), case, Config())
    assert result.dropped_constraints == () and result.warnings == () and result.queries == ()
    assert "queries" not in json.loads(JsonReporter().render(build_report("demo", 1, [result], Config())))["cases"][0]


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
