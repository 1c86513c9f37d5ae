"""The markdown report (``--markdown``, what ``make demo`` prints): pinned by a golden file."""

from __future__ import annotations

from dataclasses import replace

from gate.judge.model import NOT_IN_CACHE, Usage
from gate.report.markdown import MarkdownReporter
from gate.verdict.report import Report
from tests.support.report_factory import assert_golden, regression_pair, regression_report


def test_markdown_matches_its_golden_file() -> None:
    assert_golden("markdown_regression.md", MarkdownReporter().render(regression_report()))


def test_the_first_reason_leads_and_the_others_are_listed() -> None:
    report = regression_pair()[1]
    text = MarkdownReporter().render(report)
    assert ("**Why:** 3 hard failures in 2 of 4 cases \\(1 fabricated\\_url, 1 unread\\_citation, "
            "1 domain\\_cap\\); and 1 soft figure blocks: query\\_quality\n") in text
    assert "- 1 fabricated\\_url failure\\(s\\) \\(in alpha\\)\n" in text


def test_replay_says_how_many_runs_the_judge_cache_served_not_a_table_of_zeros(example_report: Report) -> None:
    text = MarkdownReporter().render(example_report)
    runs = len(example_report.cases)
    replies = sum(c.judgement.usage.judge_cache_hits for c in example_report.cases if c.judgement)
    assert replies >= 2 * runs  # at least the claims and the grading call of each run
    assert (f"**Judge usage**: no API call, no cost; {runs} of {runs} judged run(s) served from the judge "
            f"cache with no API call ({replies} cached replies read).") in text
    assert "Judge usage per run" not in text


def test_a_replay_miss_is_counted_and_the_run_not_called_served(example_report: Report) -> None:
    first = example_report.cases[0]
    assert first.judgement is not None
    missed = replace(first.judgement,
                     usage=Usage(judge_cache_hits=1, judge_cache_misses=1),
                     verdicts=tuple(replace(v, verdict=None, unscored_reason=NOT_IN_CACHE)
                                    for v in first.judgement.verdicts))
    report = replace(example_report, cases=(replace(first, judgement=missed), *example_report.cases[1:]))
    text = MarkdownReporter().render(report)
    n = len(report.cases)
    assert f"{n - 1} of {n} judged run(s) served from the judge cache" in text
    assert "1 reply missing from the judge cache in 1 run(s): what it would have judged is unscored" in text


def test_with_api_calls_the_per_run_table_is_shown(example_report: Report) -> None:
    first = example_report.cases[0]
    assert first.judgement is not None
    called = replace(first.judgement, usage=Usage(calls=3, input_tokens=9000, output_tokens=700, cost_usd=0.04))
    report = replace(example_report, judge_mode="live",
                     cases=(replace(first, judgement=called), *example_report.cases[1:]))
    text = MarkdownReporter().render(report)
    assert "**Judge usage**: 3 API call(s), 9,000 input and 700 output tokens" in text
    assert "<summary>Judge usage per run</summary>" in text
    assert "| case | calls | input | output | cache read | cache write | cost | judge cache |" in text


def test_the_markdown_report_carries_the_comparison_the_comment_shows() -> None:
    report = regression_report()
    assert report.comparison is not None
    report = replace(report, comparison=replace(report.comparison, baseline_forced=True))
    text = MarkdownReporter().render(report)
    assert "### Compared with the baseline" in text
    assert "| figure | baseline | PR | delta | status |" in text
    assert "| hard failures | 2 | 3 | +1 | ❌ 2 new · 1 fixed |" in text
    assert "> ⚠️ the baseline is for golden\\-set version 3, this run is version 4" in text
    assert "> ⚠️ the baseline was forced from a run whose verdict was fail" in text
    assert ("**Golden-set files this PR changes**: `cached-snapshots/demo/golden.yaml`, "
            "`cached-snapshots/demo/runs/delta.json`") in text
    assert "written 2026\\-01\\-15, ⚠️ forced over a failing run." in text
    assert "- 🆕 new `fabricated_url`: " in text and "- baseline `domain_cap`: " in text


def test_the_vector_section_says_which_query_lost_a_constraint(example_report: Report) -> None:
    text = MarkdownReporter().render(example_report)
    lost = text[text.index("Queries that lost a constraint or an entity"):]
    lost = lost[:lost.index("</details>")]
    assert ("- `ecb-deposit-rate-now` query 2 «ECB deposit rate latest decision» lost the constraint\\(s\\) "
            "«right now» and the entity\\(ies\\) «deposit facility rate» (constraint preservation 3, "
            "entity recall 3)") in lost
    assert "`storm-dervla-disruption` query 2 «Storm Dervla matches postponed» lost the constraint\\(s\\)" in lost
    assert "`storm-dervla-disruption` query 1 " not in lost  # it kept everything
