"""The HTML report in a real browser: Debian's Chromium, headless, driven over the DevTools protocol
(``tests/support/browser.py``). The example set's page opens from ``file://`` with no console error,
shows all 18 cases with their charts and the new ``fabricated_url`` first with its sentence, fits a
laptop's and a phone's width, works from the keyboard, filters without a server, runs no script a
report smuggles in, and opens at 2,000 cases.

Skipped where Chromium is not installed, except in CI (``CI=true``), where that fails.
"""

from __future__ import annotations

import json
import os
import shutil
import struct
from collections.abc import Iterator
from pathlib import Path

import pytest

from gate.pipeline import SetRequest, run_set
from gate.report.html import HtmlReporter
from gate.verdict.report import Report
from tests.support.browser import Page, chromium, chromium_or_skip
from tests.support.synthetic_report import HOSTILE, hostile_report, many_cases

EXAMPLE = Path(__file__).parent.parent / "cached-snapshots" / "example"
LAPTOP = (1366, 768)
PHONE = (390, 844)


@pytest.fixture(scope="module")
def example() -> Report:
    """The example set against its shipped baseline, judged from its cache."""
    return run_set(SetRequest((str(EXAMPLE),), judge_mode="replay"))


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Page]:
    """One headless Chromium with a new profile for the module's tests."""
    exe = chromium_or_skip()
    with chromium(exe, tmp_path_factory.mktemp("chromium") / "profile") as page:
        yield page


def _page(tmp_path: Path, report: Report, name: str = "report.html") -> str:
    file = tmp_path / name
    file.write_text(HtmlReporter().render(report), encoding="utf-8")
    return file.as_uri()


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _keep(file: Path) -> None:
    """Copy a screenshot to $SOURCEGATE_SCREENSHOTS, when set, for a person to look at."""
    where = os.environ.get("SOURCEGATE_SCREENSHOTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        shutil.copy(file, Path(where) / file.name)


@pytest.mark.parametrize(("size", "mobile"), [(LAPTOP, False), (PHONE, True)], ids=["laptop", "phone"])
def test_the_example_page_opens_clean_and_shows_what_matters_first(
        browser: Page, example: Report, tmp_path: Path, size: tuple[int, int], mobile: bool) -> None:
    browser.open(_page(tmp_path, example), *size, mobile=mobile)
    assert browser.errors() == []
    assert browser.js("document.querySelectorAll('details.case').length") == 18
    first = browser.js("(() => { const li = document.querySelector('#failures li');"
                       " return {text: li.innerText, top: li.getBoundingClientRect().top}; })()")
    assert first["text"].startswith("who-physical-activity-adults fabricated_url https://www.who.int/publications/")
    assert "added a recommendation to break up sitting every 30 minutes" in first["text"]
    # the charts of the open cases (those with new failures) are drawn, five figures each
    charts = browser.js("[...document.querySelectorAll('details.case[open] svg.axes')]"
                        ".map(s => [s.getBoundingClientRect().width, s.querySelectorAll('text').length])")
    assert len(charts) == 2 and all(width > 200 and texts == 10 for width, texts in charts)
    # nothing wider than the screen: no sideways scrolling of the page
    assert browser.js("document.documentElement.scrollWidth") <= size[0]
    shot = tmp_path / f"example-{'phone' if mobile else 'laptop'}.png"
    data = browser.screenshot(shot)
    assert _png_size(data) == size
    _keep(shot)
    print(json.dumps({"screenshot": shot.name, "pixels": list(size), "bytes": len(data)}))


def test_the_keyboard_reaches_the_filters_and_the_cases(browser: Page, example: Report, tmp_path: Path) -> None:
    browser.open(_page(tmp_path, example), *LAPTOP)
    focused = "(() => { const e = document.activeElement; return e.getAttribute('data-filter') || e.id" \
              " || (e.matches('details.case > summary') ? 'summary:' + e.parentElement.id : e.tagName); })()"
    seen = []
    for _ in range(80):
        browser.press("Tab")
        seen.append(browser.js(focused))
        if seen[-1].startswith("summary:"):
            break
    assert [s for s in seen if s in ("failing", "new", "changed", "search")] == ["failing", "new", "changed", "search"]
    assert seen.index("failing") < seen.index("search") < len(seen) - 1
    assert seen[-1] == "summary:case-13"  # the first case: a new failure
    # Enter and Space open and close a case
    assert browser.js("document.getElementById('case-13').open") is True
    browser.press("Enter")
    assert browser.js("document.getElementById('case-13').open") is False
    browser.press(" ")
    assert browser.js("document.getElementById('case-13').open") is True
    # back to the "Failing" filter: Enter presses it, Space releases it
    for _ in range(seen.index("search") - seen.index("failing") + 1):
        browser.press("Tab", shift=True)
    while browser.js(focused) != "failing":
        browser.press("Tab", shift=True)
    browser.press("Enter")
    assert browser.wait_for("document.getElementById('shown').textContent") == "11 of 18 cases shown"
    assert browser.js("document.querySelector('[data-filter=failing]').getAttribute('aria-pressed')") == "true"
    browser.press(" ")
    assert browser.wait_for("document.getElementById('shown').textContent") == "18 of 18 cases shown"
    assert browser.errors() == []


def test_filters_and_search_work_without_a_server(browser: Page, example: Report, tmp_path: Path) -> None:
    browser.open(_page(tmp_path, example), *LAPTOP)
    visible = "[...document.querySelectorAll('details.case')].filter(c => !c.hidden).length"
    browser.js("document.querySelector('[data-filter=new]').click()")
    assert browser.js(visible) == 2
    browser.js("document.querySelector('[data-filter=new]').click()")
    browser.js("document.getElementById('search').focus()")
    browser.call("Input.insertText", text="sec.gov")
    browser.wait_for("document.getElementById('shown').textContent === '1 of 18 cases shown'")
    assert browser.js("[...document.querySelectorAll('details.case')].filter(c => !c.hidden)"
                      ".map(c => c.querySelector('.cid').textContent)") == ["halvorsen-fy2026-revenue"]
    # a link to a hidden case clears the filters and opens it
    browser.js("location.hash = '#case-0'")
    browser.wait_for("!document.getElementById('case-0').hidden && document.getElementById('case-0').open")
    assert browser.js("document.getElementById('search').value") == ""
    assert browser.errors() == []


@pytest.mark.parametrize("text", HOSTILE[:6])
def test_a_hostile_report_runs_no_script(browser: Page, tmp_path: Path, text: str) -> None:
    browser.open(_page(tmp_path, hostile_report(text)), *LAPTOP)
    browser.js("document.querySelectorAll('details').forEach(d => d.open = true)")
    assert browser.js("typeof window.__pwned") == "undefined"
    assert browser.js("document.scripts.length") == 1
    assert browser.js("document.querySelector('.cid').textContent") == text
    assert browser.errors() == []


def test_two_thousand_cases_open_and_filter(browser: Page, example: Report, tmp_path: Path) -> None:
    browser.open(_page(tmp_path, many_cases(example, 2000), "large.html"), *LAPTOP)
    assert browser.js("document.querySelectorAll('details.case').length") == 2000
    browser.js("document.querySelector('[data-filter=failing]').click()")
    assert browser.js("document.getElementById('shown').textContent") == "1222 of 2000 cases shown"
    assert browser.errors() == []
