"""The example golden set's verdicts, pinned: which hard checks each case must fail.

``cached-snapshots/example`` exists to show every hard check failing and passing on realistic runs
(see its README for what each case demonstrates). If a change to the gate or to a run moves a
verdict, the row below names the case and what it was built to show.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.checks import CHECKS
from gate.config import load_config
from gate.load.golden import iter_pairings, load_golden
from gate.results import CaseResult
from gate.score.evaluate import evaluate_pairing

EXAMPLE = Path(__file__).parent.parent / "cached-snapshots" / "example"

# case id, the exact set of hard checks it must fail, and why.
EXPECTED: list[tuple[str, frozenset[str], str]] = [
    ("python-dataclass-slots", frozenset(),
     "three docs.python.org URLs, exempt from the cap because about_domains is python.org; regenerated "
     "without the unread URL its guard rejected"),
    ("euro-adoption-after-2010", frozenset(),
     "slow regime: one four-year-old source, but the median age is under 730 days"),
    ("uk-digital-switchover", frozenset(),
     "news.bbc.co.uk + www.bbc.co.uk are one site with two URLs: within the cap"),
    ("eu-ai-act-gpai-obligations", frozenset(),
     "quotes differing only by curly quotes, dashes, whitespace and case all match"),
    ("long-context-attention-approaches", frozenset(),
     "synthesis with four sites (two github.io blogs count as two); a bracketed insertion and elisions match"),
    ("numpy-2-5-highlights", frozenset(),
     "cites the final URL of a same-site redirect"),
    ("gha-pin-actions-sha", frozenset(),
     "minimal trace shape: statuses and dates are not checked rather than failed"),
    ("nobel-chemistry-2026", frozenset({"no_citations"}),
     "searched, read, then answered from memory citing nothing"),
    ("who-physical-activity-adults", frozenset({"fabricated_url", "rejected_url_kept"}),
     "cites a plausible who.int URL that no result showed, after its own guard rejected it"),
    ("halvorsen-fy2026-revenue", frozenset({"unread_citation"}),
     "cites the 10-K from the results without ever opening it"),
    ("storm-dervla-disruption", frozenset({"domain_cap"}),
     "three distinct bbc.com URLs, cap two"),
    ("ultra-processed-food-health", frozenset({"domain_floor"}),
     "a synthesis citing two sites where four are needed"),
    ("fomc-september-2026-decision", frozenset({"url_unresolved"}),
     "a 404 and a redirect to another registered domain"),
    ("solar-wind-vs-coal-2025", frozenset({"passage_missing"}),
     "a quote attributed to a page that does not contain it"),
    ("ecb-deposit-rate-now", frozenset({"stale_sources"}),
     "a realtime question answered from sixteen-month-old pages"),
    ("uk-fixed-mortgage-rates", frozenset({"stale_sources"}),
     "a fast question answered from pages over a year and a half old"),
    ("four-day-week-evidence", frozenset({"fabricated_url", "unread_citation", "domain_floor"}),
     "made-up and unread citations on only two sites for a synthesis"),
    ("ibuprofen-paracetamol-together", frozenset({"no_primary_source"}),
     "a medical answer citing only an encyclopedia and a forum thread"),
]

MINIMAL_CASE = "gha-pin-actions-sha"

# paraphrase_drift is soft by default (docs/paraphrase-drift.md: precision 0.40 on labelled claims):
# these cases show its findings as case warnings, never as failures.
DRIFT_WARNED = frozenset({
    "ecb-deposit-rate-now", "eu-ai-act-gpai-obligations", "fomc-september-2026-decision", "gha-pin-actions-sha",
    "numpy-2-5-highlights", "python-dataclass-slots", "solar-wind-vs-coal-2025", "storm-dervla-disruption",
    "uk-digital-switchover", "uk-fixed-mortgage-rates", "ultra-processed-food-health",
    "who-physical-activity-adults",
})


@pytest.fixture(scope="module")
def results() -> dict[str, CaseResult]:
    """Every case of the example set, evaluated once with the set's own config (or the defaults)."""
    golden = load_golden(str(EXAMPLE))
    config = load_config(None, beside=golden.root)
    return {r.id: r for r in (evaluate_pairing(p, config) for p in iter_pairings(golden))}


def failing(result: CaseResult) -> frozenset[str]:
    """The ids of the hard checks (or input errors) a case failed."""
    return frozenset(f.check for f in result.hard_failures)


def status(result: CaseResult, check: str) -> str:
    """One check's status for a case."""
    return next(s.status for s in result.checks if s.check == check)


def test_the_table_covers_exactly_the_cases_in_golden_yaml(results: dict[str, CaseResult]) -> None:
    assert sorted(results) == sorted(case for case, _, _ in EXPECTED)
    assert len(results) >= 14


@pytest.mark.parametrize(("case", "fails"), [pytest.param(c, f, id=c) for c, f, _ in EXPECTED])
def test_case_fails_exactly_the_checks_it_was_built_for(
    results: dict[str, CaseResult], case: str, fails: frozenset[str]
) -> None:
    result = results[case]
    assert failing(result) == fails, [f"{f.check}: {f.message}" for f in result.hard_failures]
    for check in CHECKS:
        if check in fails:
            assert status(result, check) == "fail"
        elif check == "paraphrase_drift" and case in DRIFT_WARNED:
            assert status(result, check) == "warn"
            assert any(w.kind == check for w in result.warnings)
        else:
            assert status(result, check) in ("pass", "not_checked")


def test_every_hard_check_fails_somewhere_and_passes_somewhere(results: dict[str, CaseResult]) -> None:
    for check in CHECKS:
        statuses = {status(r, check) for r in results.values()}
        # A soft check's findings are warnings: "warn" is how it fails here.
        assert statuses & {"fail", "warn"}, f"{check} never fails in the example set"
        assert "pass" in statuses, f"{check} never passes in the example set"


def test_every_failure_names_a_url_except_the_case_level_ones(results: dict[str, CaseResult]) -> None:
    case_level = {"no_citations", "domain_floor", "no_primary_source"}
    for r in results.values():
        for f in r.hard_failures:
            assert (f.url is None) == (f.check in case_level), (r.id, f)


def test_minimal_shape_run_reports_what_it_cannot_check(results: dict[str, CaseResult]) -> None:
    result = results[MINIMAL_CASE]
    assert result.shape == "minimal"
    assert status(result, "url_unresolved") == "not_checked"
    assert status(result, "stale_sources") == "not_checked"
    # What it does carry (results, pages, an answer with links) is still checked.
    for check in ("fabricated_url", "unread_citation", "no_citations", "domain_cap", "domain_floor"):
        assert status(result, check) == "pass"


def test_unresolved_urls_are_the_404_and_the_off_site_redirect(results: dict[str, CaseResult]) -> None:
    wsj = "https://www.wsj.com/economy/central-banking/fed-cuts-rates-september-2026-3f9a1c7e"
    reuters = ("https://www.reuters.com/markets/us/"
               "fed-cuts-rates-quarter-point-signals-more-easing-2026-09-16/")
    found = {f.url: f.message for f in results["fomc-september-2026-decision"].hard_failures}
    assert set(found) == {wsj, reuters}
    assert "HTTP 404" in found[reuters]
    assert "sso.accounts.dowjones.com" in found[wsj]


def test_fabricated_and_unread_urls_are_told_apart(results: dict[str, CaseResult]) -> None:
    by_check: dict[str, set[str | None]] = {}
    for f in results["four-day-week-evidence"].hard_failures:
        by_check.setdefault(f.check, set()).add(f.url)
    assert by_check["fabricated_url"] == {
        "https://autonomy.work/portfolio/4-day-week-final-results-2026/",
        "https://autonomy.work/wp-content/uploads/2026/02/four-day-week-employer-survey.pdf",
    }
    assert by_check["unread_citation"] == {
        "https://www.theguardian.com/business/2026/aug/19/four-day-week-trial-second-uk-pilot-results",
    }


def test_only_the_misquote_is_reported_missing(results: dict[str, CaseResult]) -> None:
    missing = [f for f in results["solar-wind-vs-coal-2025"].hard_failures if f.check == "passage_missing"]
    assert len(missing) == 1
    # The quote is shown normalised and cut to SHOWN_CHARS: its start says which one it is.
    assert 'solar will overtake coal as the world\'s largest source of electricity by 2028' in missing[0].message
    assert missing[0].message.endswith("; no passage of the page is close to it")


def test_stale_verdicts_are_measured_from_the_run_not_from_today(results: dict[str, CaseResult]) -> None:
    # Ages come from started_at (October 2026), so these stay fixed however old the set gets.
    assert results["ecb-deposit-rate-now"].counts.median_source_age_days == 497
    assert results["uk-fixed-mortgage-rates"].counts.median_source_age_days == 600.5
    assert results["euro-adoption-after-2010"].counts.median_source_age_days == 463


def test_the_shipped_baseline_shows_what_the_pr_made_worse(tmp_path: Path) -> None:
    """The example's baseline is the agent before the PR: two answers got worse since."""
    import json

    from gate.cli import main

    out = tmp_path / "r.json"
    assert main(["check", str(EXAMPLE), "--json", str(out)]) == 1
    comparison = json.loads(out.read_text())["comparison"]
    new = {(c["id"], f["check"]) for c in comparison["cases"] for f in c.get("new_failures", [])}
    assert new == {("who-physical-activity-adults", "fabricated_url"),
                   ("who-physical-activity-adults", "rejected_url_kept"), ("storm-dervla-disruption", "domain_cap")}


# The per-query vector of the cases built to break an axis (judge off: sources typed by rules alone).
AXES: list[tuple[str, str, float, str]] = [
    ("ecb-deposit-rate-now", "freshness", 0.0, "median age 497 days over the realtime limit 2 (2 dated)"),
    ("euro-adoption-after-2010", "freshness", 1.0, "median age 463 days within the slow limit 730 (3 dated)"),
    ("storm-dervla-disruption", "diversity", 0.0,
     "fails cap: 2 site(s), floor 1; cap 2 broken on bbc.com; primary share 0.25, least 0.2 "
     "(3 unknown, never primary)"),
    ("ibuprofen-paracetamol-together", "diversity", 0.0,
     "fails primary share: 2 site(s), floor 2; cap 2 kept; primary share 0.00, least 0.2"),
    ("ultra-processed-food-health", "diversity", 0.0,
     "fails floor: 2 site(s), floor 4; cap 2 kept; primary share not measured (3 unknown)"),
    ("fomc-september-2026-decision", "citation_validity", 1 / 3,
     "1 of 3 cited URL(s) resolved with their passages (no judged claim cites a URL: URL checks only)"),
]


@pytest.mark.parametrize(("case", "axis", "value", "note"), AXES, ids=[f"{c}-{a}" for c, a, _, _ in AXES])
def test_the_vector_says_which_axis_collapsed_and_why(results: dict[str, CaseResult], case: str, axis: str,
                                                      value: float, note: str) -> None:
    assert results[case].soft[axis] == value
    assert results[case].axes[axis] == note


def test_quotations_in_an_answer_are_quotes_too(results: dict[str, CaseResult]) -> None:
    # Lagarde's words and the GitHub Docs sentence are in quotation marks in the answers, and on the
    # pages their sentences cite: checked and passed, where before only citation quotes were checked.
    for case_id in ("ecb-deposit-rate-now", "gha-pin-actions-sha"):
        [status] = [c for c in results[case_id].checks if c.check == "passage_missing"]
        assert status.status == "pass", case_id


def test_a_date_the_answer_only_mentions_is_no_recency_caveat(results: dict[str, CaseResult]) -> None:
    # "with effect from 11 June 2025" says when the cut applied, not that 2.00% is the rate now.
    assert "missing_recency_caveat" in {w.kind for w in results["ecb-deposit-rate-now"].warnings}
    assert "missing_recency_caveat" not in {w.kind for w in results["fomc-september-2026-decision"].warnings}
