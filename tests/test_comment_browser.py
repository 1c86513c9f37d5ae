"""The PR comment as a reviewer sees it: rendered as GitHub renders it, laid out in headless Chromium.

The bundled 18-case example set, at GitHub's comment column width: no table is wider than the column,
nothing scrolls sideways, no case id wraps over lines, and the sentence that carried the new
``fabricated_url`` of ``who-physical-activity-adults`` is on the page. A report of many cases and
long URLs keeps to the column too. Skipped without Chromium, except in CI (``CI=true``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from gate.model import Finding
from gate.report.comment import CommentReporter
from tests.support.github_render import COLUMN, layout
from tests.support.report_factory import CONFIG, case, regression_pair
from tests.test_readme import example_comment, example_report

WHO_SENTENCE = ("The 2026 update of the WHO guidelines kept these targets and added a recommendation to "
                "break up sitting every 30 minutes.")


def _within_the_column(measures: dict[str, Any]) -> None:
    assert measures["width"] == COLUMN
    assert measures["scroll_width"] <= COLUMN, "something is wider than the column"
    for table in measures["tables"]:
        assert table["width"] <= table["shown"] <= COLUMN, f"a table scrolls sideways: {table}"


@pytest.fixture(scope="module")
def example_layout() -> dict[str, Any]:
    # To look at it: layout(example_comment(), screenshot=Path("comment.png")) writes the picture.
    return layout(example_comment())


def test_the_example_comment_fits_githubs_column(example_layout: dict[str, Any]) -> None:
    _within_the_column(example_layout)
    assert len(example_layout["tables"]) == 1  # the figures; failures and cases are lists


def test_no_case_id_of_the_example_wraps_over_lines(example_layout: dict[str, Any]) -> None:
    ids = {c.id for c in example_report().cases}
    assert not [t for t in example_layout["wrapped_code"] if t in ids]


def test_the_sentence_of_the_new_fabricated_url_shows(example_layout: dict[str, Any]) -> None:
    quote = next(q for q in example_layout["quotes"] if q["text"] == WHO_SENTENCE)
    assert quote["height"] > 0 and quote["right"] <= COLUMN  # on the page, inside the column
    who = "https://www.who.int/publications/i/item/9789240114319"
    link = next(a for a in example_layout["links"] if a["href"] == who)
    assert link["text"] == "www.who.int/publications/i/item/9789240114319" and link["lines"] == 1


def test_a_comment_of_many_cases_and_long_urls_keeps_to_the_column() -> None:
    base, cur = regression_pair()
    long_id = "a-case-id-as-long-as-golden-sets-allow-" + "x" * 20
    many = tuple(Finding("fabricated_url", f"cited https://example.org/{'segment/' * 30}{i} but no search result "
                         "showed it", f"https://example.org/{'segment/' * 30}{i}", sentence="A sentence. " * 20)
                 for i in range(40))
    cur = replace(cur, cases=(*cur.cases, case(long_id, {"query_quality": 1.0}, many)))
    from gate.verdict.compare import BaselineOrigin, compare
    from tests.support.report_factory import decide_report

    report = decide_report(cur, CONFIG, compare(base, cur, CONFIG, BaselineOrigin(file="baseline.json")))
    measures = layout(CommentReporter().render(report))
    _within_the_column(measures)
    assert all(a["lines"] == 1 for a in measures["links"] if a["href"].startswith("https://example.org/"))
