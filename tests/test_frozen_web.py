"""A run's pages against the base revision's recordings (gate/checks/frozen_web.py), as plain values.

The attacks through real repositories and agents are in tests/test_trust_evidence.py."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from gate.checks.frozen_web import FROZEN_FINDINGS, frozen_findings
from gate.config import Config, ReplayConfig
from gate.model import FrozenPages, Page, Run

A = "https://example.org/a"
BASE = FrozenPages("main", MappingProxyType({A: ("The rate is 4%.\nIt was cut in June.", "The rate is 4%.")}))


def _run(*pages: Page) -> Run:
    return Run(case="c", question="?", answer="", pages=pages)


def test_a_page_as_the_base_recorded_it_passes_as_page_or_extraction_whitespace_aside() -> None:
    for text in ("The rate is 4%.\nIt was cut in June.", "The rate is 4%.",
                 "  The rate is 4%.\n\nIt was cut in  June. "):
        assert frozen_findings(_run(Page(A, text)), BASE, Config()) == ((), ())
    # an equivalent spelling of the URL is the same page
    assert frozen_findings(_run(Page("http://www.example.org/a/", "The rate is 4%.")), BASE, Config()) == ((), ())


def test_a_page_with_other_text_is_a_hard_failure_named_once() -> None:
    changed = Page(A, "The rate is 4%. Slovenia will leave the euro.")
    failures, unrecorded = frozen_findings(_run(changed, changed, replace(changed, text="other")), BASE, Config())
    assert [(f.check, f.url) for f in failures] == [("page_changed", A)] and unrecorded == ()
    assert "not the base revision's recording of that URL (main's snapshot" in failures[0].message


def test_a_cut_page_is_the_base_s_when_the_base_text_begins_with_it() -> None:
    assert frozen_findings(_run(Page(A, "The rate is 4%.\nIt was", truncated=True)), BASE, Config()) == ((), ())
    failures, _ = frozen_findings(_run(Page(A, "The rate is 5%", truncated=True)), BASE, Config())
    assert [f.check for f in failures] == ["page_changed"]
    # a page not said to be cut must be whole
    assert frozen_findings(_run(Page(A, "The rate is 4%.\nIt was")), BASE, Config())[0]


def test_a_page_the_base_never_recorded_is_listed_and_blocks_only_when_the_base_says_so() -> None:
    new = Page("https://example.org/new", "anything")
    assert frozen_findings(_run(new, new), BASE, Config()) == ((), ("https://example.org/new",))
    failures, listed = frozen_findings(_run(new), BASE, Config(replay=ReplayConfig(unrecorded_pages="fail")))
    assert [(f.check, f.url) for f in failures] == [("page_unrecorded", "https://example.org/new")]
    assert listed == ("https://example.org/new",)


def test_without_a_base_snapshot_nothing_is_compared() -> None:
    assert frozen_findings(_run(Page(A, "anything")), None, Config()) == ((), ())
    assert set(FROZEN_FINDINGS) == {"page_changed", "page_unrecorded"}
    assert all(k.description for k in FROZEN_FINDINGS.values())
