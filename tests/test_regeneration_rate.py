"""``regeneration_rate``: the share of cases whose first guarded draft was rejected, a soft figure taken,
compared with the baseline and decided like the others (lower is better; a run without attempts is
not counted)."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from gate.config import DEFAULT_SOFT, Config, SoftBound
from gate.model import Attempt, Case, Citation, Finding, Page, Run, SearchResult
from gate.score.evaluate import evaluate_run
from gate.score.figures import HIGHER_IS_BETTER, REGENERATION
from gate.verdict.decide import set_mean
from tests.test_compare import case, report, run

URL = "https://a.example/page"
INVENTED = "https://a.example/invented"
REJECTED = Attempt(rejected=(INVENTED,), findings=(Finding("fabricated_url", "never seen", INVENTED),))
CLEAN = Run(case="q", question="q?", answer=f"Yes [{URL}].", queries=("q",),
            results=(SearchResult(0, 1, "A", URL, "yes"),), pages=(Page(URL, "yes", status=200),),
            citations=(Citation(URL),))


def _figure(run_: Run) -> float | None:
    return evaluate_run(run_, Case(id="q", question="q?"), Config()).soft[REGENERATION]


def test_a_case_needed_a_regeneration_when_its_first_draft_was_rejected() -> None:
    assert _figure(replace(CLEAN, attempts=(REJECTED, Attempt(kept=True)))) == 1.0
    assert _figure(replace(CLEAN, attempts=(Attempt(kept=True),))) == 0.0
    # a case that gave up after one draft needed one all the same
    assert _figure(replace(CLEAN, attempts=(REJECTED,))) == 1.0


def test_a_run_that_records_no_attempts_is_not_counted() -> None:
    assert _figure(CLEAN) is None
    cases = [case("a", {REGENERATION: 1.0}), case("b", {REGENERATION: 0.0}), case("c", {REGENERATION: None})]
    assert set_mean(cases, REGENERATION) == 0.5


def test_more_regenerations_than_the_baseline_is_worse() -> None:
    assert HIGHER_IS_BETTER[REGENERATION] is False
    ids = [f"c{i}" for i in range(6)]
    base = report([case(i, {REGENERATION: 0.0}) for i in ids])
    cur = report([case(i, {REGENERATION: 1.0 if n < 3 else 0.0}) for n, i in enumerate(ids)])
    decided, cmp = run(base, cur, Config())
    figure = next(f for f in cmp.figures if f.figure == REGENERATION)
    assert (figure.baseline, figure.current, figure.worse, figure.better) == (0.0, 0.5, 3, 0)
    assert figure.label == "needed a regeneration"
    assert figure.status is not None and figure.status.status == "warn"  # by default, a warning
    assert decided.verdict == "pass"
    assert any(r.startswith("needed a regeneration 0.00 → 0.50: regressed by 0.50") for r in decided.reasons)


def test_a_ceiling_configured_to_block_fails_the_set_past_noise() -> None:
    ids = [f"c{i}" for i in range(6)]
    base = report([case(i, {REGENERATION: 0.0}) for i in ids])
    cur = report([case(i, {REGENERATION: 1.0}) for i in ids])
    strict = Config(soft=MappingProxyType({**DEFAULT_SOFT, REGENERATION: SoftBound(ceiling=0.2, block=True)}))
    decided, cmp = run(base, cur, strict)
    assert decided.verdict == "fail"
    assert any("needed a regeneration 0.00 → 1.00: above its ceiling 0.2" in r for r in decided.reasons)
