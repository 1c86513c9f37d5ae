"""The comparison with a baseline, and the baseline-aware decision, on plain values (no files)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from types import MappingProxyType

import pytest

from gate.config import DEFAULT_SOFT, CompareConfig, Config, SoftBound
from gate.judge.model import QUOTE_NOT_FOUND, Claim, ClaimVerdict, RunJudgement
from gate.model import Finding
from gate.results import CaseResult, Counts
from gate.store.serialise import comparison_from_dict, comparison_to_dict
from gate.verdict.compare import BaselineOrigin, Comparison, RemovedCase, compare, sign_test
from gate.verdict.decide import decide
from gate.verdict.report import BaselineStamp, Report
from tests.support.report_factory import decide_report

ORIGIN = BaselineOrigin(file="cached-snapshots/demo/baseline.json")
NOW = datetime(2026, 3, 1, tzinfo=UTC)


def case(cid: str, soft: Mapping[str, float | None] | None = None, failures: Sequence[Finding] = (),
         retrieval: bool = True, judgement: RunJudgement | None = None) -> CaseResult:
    return CaseResult(id=cid, question=f"question {cid}", hard_failures=tuple(failures), checks=(),
                      counts=Counts(retrieval_succeeded=retrieval), soft=MappingProxyType(dict(soft or {})),
                      judgement=judgement)


def report(cases: Sequence[CaseResult], version: int = 1, stamp: BaselineStamp | None = None) -> Report:
    return Report(verdict="pass", reasons=(), golden_name="demo", golden_version=version, cases=tuple(cases),
                  stamp=stamp)


def config(block: bool = True, **compare_kw: object) -> Config:
    soft = {**DEFAULT_SOFT, "grounding_rate": SoftBound(floor=0.5, block=block, tolerance=0.05)}
    return Config(soft=MappingProxyType(soft), compare=CompareConfig(**compare_kw))  # type: ignore[arg-type]


def run(base: Report, cur: Report, cfg: Config) -> tuple[Report, Comparison]:
    decided = decide_report(cur, cfg, compare(base, cur, cfg, ORIGIN, NOW))
    assert decided.comparison is not None
    return decided, decided.comparison


FAB = Finding("fabricated_url", "cited, never in any result", "https://made-up.example.net/x")
UNREAD = Finding("unread_citation", "cited, never read", "https://example.org/a")


def test_sign_test_is_exact_one_sided_binomial() -> None:
    assert sign_test(0, 0) is None
    assert sign_test(1, 0) == 0.5
    assert sign_test(5, 0) == 1 / 32
    assert sign_test(10, 0) == pytest.approx(1 / 1024)
    assert sign_test(2, 8) == pytest.approx(1013 / 1024)


def test_one_noisy_case_does_not_block() -> None:
    """Grounding falls past its tolerance because the judge disliked one case: noise, a warning."""
    base = report([case(f"c{i}", {"grounding_rate": 0.9}) for i in range(10)])
    cur = report([case("c0", {"grounding_rate": 0.0}),
                  *(case(f"c{i}", {"grounding_rate": 0.9}) for i in range(1, 10))])
    decided, cmp = run(base, cur, config())
    g = next(f for f in cmp.figures if f.key == "grounding_rate")
    assert (g.worse, g.better, g.pairs, g.p_value) == (1, 0, 10, 0.5)
    assert g.status is not None and g.status.status == "noise"
    assert decided.verdict == "pass"
    assert any("within judge noise" in r and "p = 0.500" in r for r in decided.reasons)


def test_consistent_regression_across_many_cases_blocks() -> None:
    base = report([case(f"c{i}", {"grounding_rate": 0.9}) for i in range(10)])
    cur = report([case(f"c{i}", {"grounding_rate": 0.8}) for i in range(10)])
    decided, cmp = run(base, cur, config())
    g = next(f for f in cmp.figures if f.key == "grounding_rate")
    assert g.status is not None and g.status.status == "blocking"
    assert decided.verdict == "fail"
    assert "regressed by 0.10, past its tolerance 0.05" in decided.reasons[0]
    assert "beyond judge noise: worse in 10 and better in 0 of 10 paired cases (sign test p = 0.001)" \
        in decided.reasons[0]


def test_a_regression_blocks_only_when_configured_to() -> None:
    base = report([case(f"c{i}", {"grounding_rate": 0.9}) for i in range(10)])
    cur = report([case(f"c{i}", {"grounding_rate": 0.8}) for i in range(10)])
    decided, _ = run(base, cur, config(block=False))
    assert decided.verdict == "pass"
    assert any("(warning; not configured to block)" in r for r in decided.reasons)


def test_a_set_too_small_to_block_says_so_where_the_figure_is_shown() -> None:
    base = report([case(f"c{i}", {"grounding_rate": 0.9}) for i in range(6)])
    cur = report([case(f"c{i}", {"grounding_rate": 0.7}) for i in range(6)])
    decided, cmp = run(base, cur, config(min_cases=10))
    assert decided.verdict == "pass"
    g = next(f for f in cmp.figures if f.key == "grounding_rate")
    assert g.status is not None and g.status.status == "too_few"  # not "within noise": it never could block
    assert any("but it cannot block: 6 paired case(s), fewer than compare.min_cases = 10" in r
               for r in decided.reasons)


def test_below_floor_but_no_worse_than_the_baseline_does_not_block() -> None:
    base = report([case(f"c{i}", {"grounding_rate": 0.3}) for i in range(8)])
    cur = report([case(f"c{i}", {"grounding_rate": 0.3}) for i in range(8)])
    decided, cmp = run(base, cur, config())
    assert decided.verdict == "pass"
    g = next(f for f in cmp.figures if f.key == "grounding_rate")
    assert g.status is not None and g.status.status == "noise"
    assert "below its floor 0.5" in g.status.why


def test_a_case_left_unscored_on_one_side_is_in_neither_set_mean() -> None:
    """Case b graded 0.0 in the baseline and could not be scored now: the set means stay over the
    same cases (a alone), so an unscored case neither improves nor worsens the figure."""
    base = report([case("a", {"grounding_rate": 1.0}), case("b", {"grounding_rate": 0.0})])
    cur = report([case("a", {"grounding_rate": 1.0}), case("b", {"grounding_rate": None})])
    _, cmp = run(base, cur, config())
    g = next(f for f in cmp.figures if f.key == "grounding_rate")
    assert (g.baseline, g.current, g.pairs) == (1.0, 1.0, 1)
    assert g.status is not None and g.status.status == "ok"
    _, cmp = run(cur, base, config())  # and the other way round: not a regression either
    g = next(f for f in cmp.figures if f.key == "grounding_rate")
    assert (g.baseline, g.current, g.delta) == (1.0, 1.0, 0.0)
    assert g.status is not None and g.status.status == "ok"


def test_with_no_case_paired_the_figure_is_still_held_to_its_bounds() -> None:
    """A baseline recorded with the judge off has no grounding: nothing to compare, but the PR's
    grounding is still shown and still warned about when it is below its floor."""
    base = report([case(f"c{i}", {"grounding_rate": None}) for i in range(6)])
    cur = report([case(f"c{i}", {"grounding_rate": 0.2}) for i in range(6)])
    decided, cmp = run(base, cur, config())
    g = next(f for f in cmp.figures if f.key == "grounding_rate")
    assert (g.baseline, g.current, g.pairs, g.delta) == (None, pytest.approx(0.2), 0, None)
    assert g.status is not None and g.status.status == "too_few" and "below its floor 0.5" in g.status.why
    assert decided.verdict == "pass"


def test_hallucination_is_split_by_retrieval_success() -> None:
    base = report([case("a", {"hallucination_rate": 0.0}, retrieval=True),
                   case("b", {"hallucination_rate": 0.5}, retrieval=False)])
    cur = report([case("a", {"hallucination_rate": 0.2}, retrieval=True),
                  case("b", {"hallucination_rate": 1.0}, retrieval=False)])
    _, cmp = run(base, cur, config())
    by_key = {f.key: f for f in cmp.figures}
    assert by_key["hallucination_rate.retrieval_ok"].current == pytest.approx(0.2)
    assert by_key["hallucination_rate.retrieval_failed"].current == pytest.approx(1.0)
    assert by_key["hallucination_rate"].delta == pytest.approx(0.35)
    assert by_key["hallucination_rate"].worse == 2  # lower is better for hallucination


def test_new_and_kept_hard_failures_are_told_apart() -> None:
    base = report([case("a", failures=[UNREAD]), case("b")])
    cur = report([case("a", failures=[UNREAD]), case("b", failures=[FAB])])
    decided, cmp = run(base, cur, config())
    assert decided.verdict == "fail"
    assert decided.reasons[0] == ("2 hard failures in 2 of 2 cases, 1 new since the baseline: 1 fabricated_url "
                                  "(in b); 1 already in the baseline")
    assert decided.reasons[1] == "1 new hard failure(s) the baseline did not have: 1 fabricated_url (in b)"
    assert decided.reasons[2] == "1 hard failure(s) the baseline already had: 1 unread_citation"
    a, b = cmp.cases
    assert a.kept_failures == (UNREAD,) and not a.changed
    assert b.new_failures == (FAB,) and b.changed


def test_block_on_new_lets_old_failures_through_and_says_so() -> None:
    base = report([case("a", failures=[UNREAD])])
    cur = report([case("a", failures=[UNREAD])])
    decided, _ = run(base, cur, config(block_on="new"))
    assert decided.verdict == "pass"
    assert decided.reasons == (
        "no new hard failure and no soft figure regressed beyond noise",
        "1 hard failure(s) the baseline already had: 1 unread_citation "
        "(not blocking: compare.block_on is new)",
    )
    decided, _ = run(base, cur, config(block_on="all"))
    assert decided.verdict == "fail"


def test_a_failure_is_the_same_whatever_the_spelling_of_its_url() -> None:
    """The PR cites the page as ``http://example.org/a`` where the baseline had ``https://www.example.org/a/``:
    one URL after canonicalisation, so the failure is kept, not new (and not fixed)."""
    before = Finding("unread_citation", "cited https://www.example.org/a/, never read", "https://www.example.org/a/")
    after = Finding("unread_citation", "cited http://example.org/a#intro, never read", "http://example.org/a#intro")
    decided, cmp = run(report([case("a", failures=[before])]), report([case("a", failures=[after])]),
                       config(block_on="new"))
    change = cmp.cases[0]
    assert (change.new_failures, change.kept_failures, change.fixed_failures) == ((), (after,), ())
    assert decided.verdict == "pass"


def test_fixed_failures_are_reported() -> None:
    decided, cmp = run(report([case("a", failures=[FAB])]), report([case("a")]), config())
    assert decided.verdict == "pass"
    assert cmp.cases[0].fixed_failures == (FAB,)
    assert "1 baseline hard failure(s) fixed: 1 fabricated_url" in decided.reasons


def test_version_mismatch_compares_only_common_cases() -> None:
    base = report([case("gone", {"grounding_rate": 0.0}, failures=[FAB]),
                   case("kept", {"grounding_rate": 0.9})], version=1)
    cur = report([case("kept", {"grounding_rate": 0.9}),
                  case("fresh", {"grounding_rate": 0.1}, failures=[FAB])], version=2)
    decided, cmp = run(base, cur, config())
    assert cmp.version_mismatch
    assert (cmp.common, cmp.added, cmp.removed) == (("kept",), ("fresh",), ("gone",))
    g = next(f for f in cmp.figures if f.key == "grounding_rate")
    assert (g.baseline, g.current, g.pairs) == (0.9, 0.9, 1)  # the new case is not in the set means
    notes = cmp.notes()
    assert notes[0] == ("the baseline is for golden-set version 1, this run is version 2: "
                        "only the 1 common cases are compared")
    assert "1 case(s) not in the baseline: fresh" in notes
    assert "1 baseline case(s) not in this run: gone" in notes
    # A failure in a case the baseline never had is new.
    assert decided.verdict == "fail" and "(in fresh)" in decided.reasons[0]


AT_BASE = BaselineOrigin(file="cached-snapshots/demo/baseline.json", ref="origin/main", commit="0" * 40)


def test_a_removed_case_keeps_its_baseline_result_when_the_baseline_is_read_at_the_base() -> None:
    base = report([case("kept"), case("gone", failures=[FAB, UNREAD]), case("idle")])
    cur = report([case("kept")])
    cmp = compare(base, cur, config(), AT_BASE, NOW)
    assert cmp.removed == ("gone", "idle")
    assert cmp.removed_results == (RemovedCase("gone", (FAB, UNREAD)), RemovedCase("idle", ()))
    verdict, reasons = decide(cur.cases, config(), cmp)
    assert verdict == "fail"
    assert reasons[0] == ("2 hard failures in 1 baseline case not in this run, decided by the baseline's result "
                          "(1 fabricated_url, 1 unread_citation) (in gone), and compare.block_on is all")
    assert reasons[1] == ("2 cases of the baseline are not in this run and were decided by their baseline result: "
                          "1 with 2 hard failure(s) the baseline already had: 1 fabricated_url, 1 unread_citation "
                          "(in gone); 1 without a hard failure (idle)")
    assert "2 baseline case(s) not in this run, decided by their baseline result (1 of them with hard failures): "\
        "gone, idle" in cmp.notes()
    # The same comparison read back from the report's JSON decides the same.
    again = comparison_from_dict(comparison_to_dict(cmp), cur.golden_version)
    assert again.removed_results == cmp.removed_results
    assert decide(cur.cases, config(), again) == (verdict, reasons)


def test_a_removed_case_with_a_new_failure_elsewhere_is_named_after_it() -> None:
    base = report([case("kept"), case("gone", failures=[UNREAD])])
    cur = report([case("kept", failures=[FAB])])
    verdict, reasons = decide(cur.cases, config(), compare(base, cur, config(), AT_BASE, NOW))
    assert verdict == "fail"
    assert reasons[0] == ("1 hard failure in 1 of 1 case, 1 new since the baseline: 1 fabricated_url (in kept); "
                          "and 1 hard failure in 1 baseline case not in this run, decided by the baseline's "
                          "result (1 unread_citation) (in gone)")


def test_under_block_on_new_a_removed_cases_failures_do_not_block_but_are_named() -> None:
    base = report([case("kept"), case("gone", failures=[FAB])])
    cur = report([case("kept")])
    cfg = config(block_on="new")
    verdict, reasons = decide(cur.cases, cfg, compare(base, cur, cfg, AT_BASE, NOW))
    assert verdict == "pass"
    assert reasons == ("no new hard failure and no soft figure regressed beyond noise",
                       "1 case of the baseline is not in this run and was decided by its baseline result: "
                       "1 with 1 hard failure(s) the baseline already had: 1 fabricated_url (in gone), "
                       "not blocking: compare.block_on is new")


def test_a_baseline_from_the_working_tree_only_lists_removed_cases() -> None:
    base = report([case("kept"), case("gone", failures=[FAB])])
    cur = report([case("kept")])
    cmp = compare(base, cur, config(), ORIGIN, NOW)
    assert cmp.removed == ("gone",) and cmp.removed_results == ()
    assert decide(cur.cases, config(), cmp) == (
        "pass", ("no new hard failure and no soft figure regressed beyond noise",))
    assert "removed_results" not in comparison_to_dict(cmp)


def test_baseline_age_and_force_are_flagged() -> None:
    stamp = BaselineStamp(written_at="2025-10-01T00:00:00+00:00", forced=True,
                          forced_over=("1 x failure(s)",))
    base = Report(verdict="fail", reasons=("1 x failure(s)",), golden_name="demo", golden_version=1,
                  cases=(case("a"),), stamp=stamp)
    _, cmp = run(base, report([case("a")]), config(max_baseline_age_days=90))
    assert cmp.baseline_age_days == pytest.approx(151)
    assert cmp.stale and cmp.baseline_forced
    assert any("151 days old" in n for n in cmp.notes())
    assert any("forced from a run whose verdict was fail" in n for n in cmp.notes())


def judged(*verdicts: ClaimVerdict) -> RunJudgement:
    claims = tuple(Claim(v.claim_id, f"Claim number {v.claim_id}.", ("https://example.org/a",))
                   for v in verdicts)
    return RunJudgement(claims=claims, verdicts=verdicts)


def test_flipped_claims_say_why() -> None:
    before = judged(ClaimVerdict(1, "supported"), ClaimVerdict(2, "supported"), ClaimVerdict(3, "supported"))
    after = judged(ClaimVerdict(1, "supported"), ClaimVerdict(2, None, unscored_reason="not in judge cache"),
                   ClaimVerdict(3, "unsupported", overruled=True, overrule_reason=QUOTE_NOT_FOUND,
                                judge_verdict="supported"))
    _, cmp = run(report([case("a", judgement=before)]), report([case("a", judgement=after)]), config())
    flips = cmp.cases[0].flips
    assert [(f.number, f.before, f.after, f.reason, f.worse) for f in flips] == [
        (2, "supported", "unscored", "not in judge cache", True),
        (3, "supported", "unsupported", QUOTE_NOT_FOUND, True),
    ]
    assert cmp.cases[0].unscored == (0, 1)


def test_an_inconclusive_run_names_why_its_claims_were_unscored() -> None:
    cache = judged(ClaimVerdict(1, None, unscored_reason="not in judge cache"),
                   ClaimVerdict(2, None, unscored_reason="not in judge cache"), ClaimVerdict(3, "supported"))
    verdict, reasons = decide([case("a", judgement=cache)], config())
    assert verdict == "inconclusive"
    assert reasons[0].startswith("2 of 3 claims unscored (not in judge cache); more than")
    silent = judged(ClaimVerdict(1, None), ClaimVerdict(2, "supported"))
    assert "(judge unavailable or unparseable)" in decide([case("a", judgement=silent)], config())[1][0]


def test_without_a_baseline_the_old_rules_hold() -> None:
    cfg = config()
    cases = [case("a", {"grounding_rate": 0.2})]
    assert decide(cases, cfg) == ("fail", ("grounding_rate 0.20 is below its floor 0.5 (blocking)",))
    assert decide([case("a", failures=[FAB])], cfg)[0] == "fail"


# -- the first reason sums up what blocks ---------------------------------------------------------

MISSING = Finding("url_unresolved", "returned HTTP 404", "https://example.org/gone")


def test_without_a_baseline_the_first_reason_counts_failures_cases_and_checks() -> None:
    cases = [case("a", failures=[FAB, UNREAD]), case("b", failures=[FAB, MISSING]), case("c"),
             case("d", failures=[Finding("fabricated_url", "cited, never in any result", "https://x.example/")])]
    verdict, reasons = decide(cases, config())
    assert verdict == "fail"
    # Most failures first; ties in the check registry's order (unread_citation before url_unresolved).
    assert reasons[0] == ("5 hard failures in 3 of 4 cases "
                          "(3 fabricated_url, 1 unread_citation, 1 url_unresolved)")
    assert reasons[1:] == ("3 fabricated_url failure(s) (in a, b, d)", "1 unread_citation failure(s) (in a)",
                           "1 url_unresolved failure(s) (in b)")


def test_the_first_reason_names_blocking_soft_figures_too() -> None:
    cases = [case("a", {"grounding_rate": 0.2}, failures=[FAB])]
    verdict, reasons = decide(cases, config())
    assert verdict == "fail"
    assert reasons[0] == ("1 hard failure in 1 of 1 case (1 fabricated_url); "
                          "and 1 soft figure blocks: grounding_rate")
    assert "grounding_rate 0.20 is below its floor 0.5 (blocking)" in reasons


def test_two_blocking_soft_figures_are_summed_up_a_single_one_speaks_for_itself() -> None:
    soft = {**DEFAULT_SOFT, "grounding_rate": SoftBound(floor=0.5, block=True),
            "diversity": SoftBound(floor=0.8, block=True)}
    cfg = Config(soft=MappingProxyType(soft))
    verdict, reasons = decide([case("a", {"grounding_rate": 0.2, "diversity": 0.5})], cfg)
    assert verdict == "fail" and reasons[0] == "2 soft figures block: diversity, grounding_rate"
    _, alone = decide([case("a", {"grounding_rate": 0.2})], cfg)
    assert alone[0] == "grounding_rate 0.20 is below its floor 0.5 (blocking)"


def test_with_a_baseline_the_first_reason_says_how_many_are_new_and_where() -> None:
    base = report([case(f"c{i}", failures=[UNREAD]) for i in range(5)])
    cur = report([case(f"c{i}", failures=[UNREAD, FAB] if i in (1, 3) else [UNREAD]) for i in range(5)])
    decided, _ = run(base, cur, config())
    assert decided.reasons[0] == ("7 hard failures in 5 of 5 cases, 2 new since the baseline: "
                                  "2 fabricated_url (in c1, c3); 5 already in the baseline")
    many = report([case(f"c{i}", failures=[UNREAD, FAB]) for i in range(5)])
    decided, _ = run(base, many, config())
    assert "5 new since the baseline: 5 fabricated_url (in c0, c1, c2 and 2 more)" in decided.reasons[0]
    assert decided.reasons[1] == ("5 new hard failure(s) the baseline did not have: 5 fabricated_url "
                                  "(in c0, c1, c2, c3, c4)")


def test_a_soft_figure_out_of_bounds_is_a_warning_unless_configured_to_block() -> None:
    assert decide([case("a", {"grounding_rate": 0.2})], config(block=False)) == (
        "pass", ("grounding_rate 0.20 is below its floor 0.5 (warning)",))
