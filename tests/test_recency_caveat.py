"""``missing_recency_caveat``: a statement that dates the figures is a caveat; a date in the text is not.

A realtime or fast answer that states current figures must say when they held. The rule is in
docs/axes.md ("Case warnings"); the example set's answers are its calibration (below, and
``tests/test_example_set.py``).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from gate.config import Config
from gate.load.golden import load_trace
from gate.model import Case
from gate.score.evaluate import evaluate_run
from tests.test_example_set import EXAMPLE

CAVEATS = [
    ("as of a date", "As of 1 October 2026 the Bank Rate is 3.75%."),
    ("as at a date", "The deposit rate is 2.00% as at 15 October 2026."),
    ("as of, after the figure", "The average 2-year fix is 5.39% (as of March 2026)."),
    ("at the time of writing", "At the time of writing the deposit rate is 2.00%."),
    ("last updated", "The deposit rate is 2.00% (page last updated 14 October 2026)."),
    ("updated on a date", "Rates updated on 2026-10-14: the deposit rate is 2.00%."),
    ("on <date>, the rate was", "On 15 October 2026, the deposit rate was 2.00%."),
    ("a clause opened by a date", "The Bank held rates; in September 2026 the average fix was 4.9%."),
    ("at its <date> meeting", "At its **15–16 September 2026** meeting the FOMC cut the range to 3%–3.25%."),
    ("the figure was ... on <date>", "Bank Rate stood at 4.5% on 6 February 2025."),
    ("currently ... (<date>)", "The deposit rate is currently 2.00% (15 October 2026)."),
    ("a figure with its date in brackets", "The deposit rate is 2.00% (15 October 2026)."),
    ("a reporting period", "Revenue was $1.284 billion for the year ended June 30, 2026."),
    ("a quarter's period", "Revenue rose 18.9% in the quarter to 30 June 2026."),
]

NOT_CAVEATS = [
    ("no date at all", "The Bank Rate is 3.75%."),
    ("with effect from a date", "The deposit facility rate is 2.00%, cut by 25 basis points with effect from 11 June "
                                "2025."),
    ("effective a date", "Interest on reserve balances is 3.15%, effective 17 September."),
    ("a date in a source's title", "The average fix is 5.39% [1].\n\n1. Moneyfacts, 6 March 2026, https://moneyfacts.co.uk/x"),
    ("a year alone", "The rate is 2.00%, the lowest since 2022."),
    ("a date of something else", "The rate is 2.00%; the next meeting is on 30 October 2026 the ECB said."),
    ("now without a date", "Bank Rate, now 4.5%, is expected to keep falling."),
]


@pytest.mark.parametrize(("rule", "answer"), CAVEATS, ids=[c[0] for c in CAVEATS])
def test_a_statement_that_dates_the_figures_is_a_caveat(rule: str, answer: str) -> None:
    assert not _warned(answer)


@pytest.mark.parametrize(("rule", "answer"), NOT_CAVEATS, ids=[c[0] for c in NOT_CAVEATS])
def test_a_date_in_the_text_is_not_a_caveat(rule: str, answer: str) -> None:
    assert _warned(answer)


def _warned(answer: str) -> bool:
    run = load_trace(str(EXAMPLE / "runs" / "ecb-deposit-rate-now.json"))
    result = evaluate_run(replace(run, answer=answer), Case(id=run.case, question=run.question, freshness="realtime"),
                          Config())
    return "missing_recency_caveat" in {w.kind for w in result.warnings}


# The example set's realtime and fast answers that state figures, and whether each dates them.
CALIBRATION = [
    ("ecb-deposit-rate-now", True, "states the rate and a 'with effect from 11 June 2025' date only"),
    ("uk-fixed-mortgage-rates", True, "current averages and 'Bank Rate, now 4.5%' with no date"),
    ("long-context-attention-approaches", True, "benchmark figures with no date"),
    ("fomc-september-2026-decision", False, "'At its 15–16 September 2026 meeting the FOMC cut ...'"),
    ("halvorsen-fy2026-revenue", False, "'for the year ended June 30, 2026'"),
]


@pytest.mark.parametrize(("case_id", "warned", "why"), CALIBRATION, ids=[c[0] for c in CALIBRATION])
def test_the_example_sets_answers_calibrate_the_rule(case_id: str, warned: bool, why: str) -> None:
    run = load_trace(str(EXAMPLE / "runs" / f"{case_id}.json"))
    result = evaluate_run(run, Case(id=run.case, question=run.question, freshness="fast"), Config())
    assert ("missing_recency_caveat" in {w.kind for w in result.warnings}) is warned, why
