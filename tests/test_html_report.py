"""The HTML report (``--html FILE``): one self-contained page, pinned by a golden file, that fetches
nothing, runs only its own script, keeps untrusted text inert, puts new failures first with the
sentence that carried them, and stays within its size budget at 2,000 cases.

It is opened in a real browser by ``tests/test_html_browser.py``."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path

import pytest

from gate.cli import main
from gate.judge.model import Claim, ClaimVerdict, RunJudgement
from gate.model import Finding
from gate.pipeline import SetRequest, run_set
from gate.report.html import HtmlReporter
from gate.report.html_assets import CSP, SCRIPT, STYLE
from gate.report.registry import REPORTERS
from gate.results import CitationMark, PageQuote
from gate.verdict.comparison import FigureStatus
from gate.verdict.report import Report
from tests.support.report_factory import assert_golden, frozen_web_report, regression_report
from tests.support.synthetic_report import HOSTILE, hostile_report, many_cases

EXAMPLE = Path(__file__).parent.parent / "cached-snapshots" / "example"
WHO_MADE_UP = "https://www.who.int/publications/i/item/9789240114319"
WHO_SENTENCE = ("The 2026 update of the WHO guidelines kept these targets and added a recommendation to break up "
                "sitting every 30 minutes.")

TAGS = {"html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "p", "main", "section",
        "ul", "ol", "li", "a", "code", "span", "blockquote", "div", "details", "summary", "table", "thead",
        "tbody", "tr", "th", "td", "small", "mark", "del", "ins", "svg", "rect", "path", "line", "text", "button",
        "input", "output", "footer", "script"}
"""Every element the reporter writes: a hostile string must add none."""


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self.styles: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in = tag if tag in ("script", "style") else None

    def handle_endtag(self, tag: str) -> None:
        self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "script":
            self.scripts.append(data)
        elif self._in == "style":
            self.styles.append(data)


def _elements(page: str) -> _Elements:
    parsed = _Elements()
    parsed.feed(page)
    parsed.close()
    return parsed


@pytest.fixture(scope="module")
def example() -> Report:
    """The example set against its shipped baseline, judged from its cache."""
    return run_set(SetRequest((str(EXAMPLE),), judge_mode="replay"))


def test_the_regression_report_matches_its_golden_file() -> None:
    assert_golden("html_regression.html", HtmlReporter().render(regression_report()))


def test_the_policy_lets_only_the_page_s_own_script_and_style_run(example: Report) -> None:
    page = HtmlReporter().render(example)
    parsed = _elements(page)
    (meta,) = [a for t, a in parsed.tags if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"]
    assert meta["content"] == CSP
    assert parsed.scripts == [SCRIPT] and parsed.styles == [STYLE]
    digest = {k: "'sha256-" + base64.b64encode(hashlib.sha256(v.encode()).digest()).decode() + "'"
              for k, v in (("script", SCRIPT), ("style", STYLE))}
    assert f"script-src {digest['script']};" in CSP and f"style-src {digest['style']};" in CSP
    assert "default-src 'none'" in CSP and "unsafe" not in CSP


def test_nothing_is_fetched(example: Report) -> None:
    page = HtmlReporter().render(example)
    parsed = _elements(page)
    assert not [t for t, a in parsed.tags if "src" in a or t in ("link", "img", "iframe", "object", "embed")]
    assert not re.search(r"url\(|@import", STYLE)
    hrefs = [a["href"] for t, a in parsed.tags if t == "a"]
    assert hrefs and all(h and (re.fullmatch(r"#case-\d+", h) or re.match(r"https?://", h)) for h in hrefs)
    assert all(a.get("rel") == "noopener noreferrer nofollow" for t, a in parsed.tags if t == "a"
               and not (a.get("href") or "").startswith("#"))


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_strings_stay_text(text: str) -> None:
    page = HtmlReporter().render(hostile_report(text))
    parsed = _elements(page)
    assert {t for t, _ in parsed.tags} <= TAGS
    assert parsed.scripts == [SCRIPT] and parsed.styles == [STYLE]
    assert not [(t, k) for t, a in parsed.tags for k in a if k.startswith("on")]
    assert all(re.fullmatch(r"#case-\d+", a["href"] or "") or re.match(r"https?://", a["href"] or "")
               for t, a in parsed.tags if t == "a")
    ids = [a["id"] for _, a in parsed.tags if "id" in a]
    assert all(re.fullmatch(r"case-\d+|filters|search|shown|why|failures|figures|cases", i or "") for i in ids)


def test_a_javascript_url_is_shown_never_linked() -> None:
    report = hostile_report("x")
    case = report.cases[0]
    bad = "javascript:alert(1)//https://x.example/"
    report = replace(report, cases=(replace(case, citations=(CitationMark(bad, "fabricated"),),
                                            hard_failures=(Finding("fabricated_url", "made up", bad),)),))
    page = HtmlReporter().render(report)
    assert "javascript:alert(1)" in page and 'href="javascript' not in page.lower()


def test_new_failures_come_first_with_the_sentence_that_carried_them(example: Report) -> None:
    page = HtmlReporter().render(example)
    failures = page[page.index('<section id="failures">'):page.index("</section>", page.index('id="failures"'))]
    new, known = failures.split("Already in the baseline")
    first = new[new.index("<li"):new.index("</li>")]
    assert "who-physical-activity-adults" in first and "fabricated_url" in first and WHO_MADE_UP in first
    assert f'<blockquote class="sentence">{WHO_SENTENCE}</blockquote>' in first
    assert new.count('<li class="new">') == 3 and known.count('<li class="known">') == 13
    assert page.index("<h3>New since the baseline") < page.index("<h3>Already in the baseline")


def test_every_case_is_shown_with_its_chart_new_failures_first(example: Report) -> None:
    page = HtmlReporter().render(example)
    cases = re.findall(r'<details class="case" id="case-(\d+)"([^>]*)><summary>.*?<span class="cid">([^<]*)', page)
    assert len(cases) == 18 and len({c[2] for c in cases}) == 18
    assert [c[2] for c in cases[:2]] == ["storm-dervla-disruption", "who-physical-activity-adults"]
    assert all("data-new" in c[1] and "open" in c[1] for c in cases[:2])
    assert page.count('<svg class="axes"') == 18 and page.count('<svg class="mini"') == 18
    who = page[page.index('id="case-17"'):]
    who = who[:who.index("</details>")]
    assert "citation validity" in who and "0.67 (was 1.00)" in who
    assert f'<span class="m fabricated" title="fabricated: {WHO_MADE_UP}">[2]</span>' in who
    assert "<h3>The answer against the baseline's</h3>" in who and "<ins>" in who


def test_the_claims_table_shows_the_verified_quote_inside_its_page_s_text(example: Report) -> None:
    page = HtmlReporter().render(example)
    who = page[page.index('id="case-17"'):]
    assert "<mark>Adults aged 18–64 years</mark>" in who[:who.index("</details>")]


def test_unscored_and_overruled_claims_say_why() -> None:
    report = hostile_report("x")
    j = RunJudgement(claims=(Claim(1, "one", ("https://a.example/",)), Claim(2, "two")),
                     verdicts=(ClaimVerdict(1, None, unscored_reason="not in judge cache"),
                               ClaimVerdict(2, "unsupported", evidence="q", located="not_found", overruled=True,
                                            overrule_reason="quote_not_found", judge_verdict="supported")))
    page = HtmlReporter().render(replace(report, cases=(replace(report.cases[0], judgement=j,
                                                                quotes=(PageQuote(9, "u", "", "q", ""),)),)))
    assert '<td class="v-unscored">unscored</td><td></td><td>unscored: not in judge cache</td>' in page
    assert "the judge said supported; overruled: quote_not_found" in page
    assert "«q» <small>not found on any page</small>" in page


def test_check_writes_it_and_the_action_s_folder_gets_report_html(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    assert main(["check", str(EXAMPLE), "--judge", "replay", "--html", str(out)]) == 1
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert REPORTERS["html"].file_name == "report.html"


SIZE_BUDGET = 24 * 1024 * 1024
"""At most 24 MiB of HTML for 2,000 cases like the example set's (about 12 KiB a case)."""


def test_the_page_stays_within_its_budget_at_2000_cases(example: Report) -> None:
    small = len(HtmlReporter().render(example).encode("utf-8"))
    large = len(HtmlReporter().render(many_cases(example, 2000)).encode("utf-8"))
    print(json.dumps({"html_bytes_18_cases": small, "html_bytes_2000_cases": large}))
    assert large <= SIZE_BUDGET
    assert large < small * 2000 / 18 * 1.05  # nothing grows faster than the cases


def test_a_figure_status_the_page_has_no_words_for_is_shown_by_its_name() -> None:
    report = regression_report()
    assert report.comparison is not None
    first = replace(report.comparison.figures[0], status=FigureStatus("unheard-of", "a status of a later version"))
    comparison = replace(report.comparison, figures=(first, *report.comparison.figures[1:]))
    page = HtmlReporter().render(replace(report, comparison=comparison))
    assert f"<td>{first.label}</td>" in page
    row = page[page.index(f"<td>{first.label}</td>"):]
    assert row[:row.index("</tr>")].endswith("<td>unheard-of</td>")


class _QueryTables(HTMLParser):
    """The rows of each case's table of search queries, as the reader sees their cells."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, list[list[str]]] = {}
        self.case = ""
        self.rows: list[list[str]] | None = None
        self.cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "span" and a.get("class") == "cid":
            self.cell = []
        elif tag == "table" and a.get("class") == "queries":
            self.rows = self.tables.setdefault(self.case, [])
        elif tag == "tr" and self.rows is not None:
            self.rows.append([])
        elif tag == "td" and self.rows is not None:
            self.cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "span" and self.cell is not None and self.rows is None:
            self.case, self.cell = "".join(self.cell), None
        elif tag == "td" and self.rows is not None and self.cell is not None:
            self.rows[-1].append("".join(self.cell))
            self.cell = None
        elif tag == "table":
            self.rows = None

    def handle_data(self, data: str) -> None:
        if self.cell is not None:
            self.cell.append(data)


def test_each_case_lists_its_queries_with_their_scores_and_what_each_dropped(example: Report) -> None:
    tables = _QueryTables()
    tables.feed(HtmlReporter().render(example))
    assert len(tables.tables) == len(example.cases)
    for case in example.cases:
        rows = [r for r in tables.tables[case.id] if r]  # the header row has no cells
        assert [r[0] for r in rows] == [str(i) for i in range(1, len(case.queries) + 1)]
        for row, kept in zip(rows, case.queries, strict=True):
            score = case.judgement.query_score(int(row[0]) - 1) if case.judgement is not None else None
            assert row[1].startswith(kept.query)
            assert row[2:4] == ([str(score.constraint_preservation), str(score.entity_recall)] if score else ["–", "–"])
            assert all(f"«{d}»" in row[4] for d in kept.dropped) and (row[4] == "nothing") == (not kept.dropped)
    ecb = tables.tables["ecb-deposit-rate-now"]
    assert ecb[-1][4] == "the constraint(s) «right now» and the entity(ies) «deposit facility rate»"
def test_the_report_with_its_pages_against_the_base_snapshot_matches_its_golden_file() -> None:
    page = HtmlReporter().render(frozen_web_report())
    assert_golden("html_frozen_web.html", page)
    section = page.split('<section id="unrecorded">', 1)[1].split("</section>", 1)[0]
    assert section.startswith("<h2>Pages recorded in this pull request (2)</h2>")
    assert section.count('<a href="#case-3" class="cid">delta</a>') == 2


def test_without_pages_the_base_never_recorded_there_is_no_such_section(example: Report) -> None:
    assert 'id="unrecorded"' not in HtmlReporter().render(example)
