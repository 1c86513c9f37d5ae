"""``Recorder.regenerate``: each draft guarded, the rejected URLs and reasons handed back to the agent's own
model call, the draft the guard lets through kept, or a clear "gave up"; every draft an attempt of the
trace, timed, with the one that became the answer marked ``kept``."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from gate.errors import RecordError
from gate.load.golden import parse_trace
from gate.model import Citation, Finding
from gate.record import Recorder, Regenerated, Rejection
from gate.record.regenerate import rejected_urls
from tests.test_record import CLEAN, brave_tools, clock

INVENTED = "https://go.dev/blog/go2-released"
CLEAN_TEXT = "Go is Google's open source language [1], designed by Griesemer, Pike and Thompson [2]."
INVENTED_TEXT = f"Go 2 shipped in 2025 [{INVENTED}]."


class Timer:
    """A timer the test moves by hand (seconds)."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def searched(timer: Timer | None = None) -> Recorder:
    """A recording that searched and read both pages of :data:`CLEAN`."""
    rec = Recorder("What is Go, and who designed it?", clock=clock(), timer=timer or (lambda: 0.0), environ={})
    web_search, read_page = brave_tools(rec)
    web_search("golang")
    for c in CLEAN:
        read_page(c.url)
    return rec


def test_a_rejected_url_is_named_to_the_model_and_the_clean_draft_kept() -> None:
    rec = searched()
    told: list[Rejection | None] = []

    def draft(rejection: Rejection | None) -> tuple[str, list[Citation]]:
        told.append(rejection)
        if rejection is None:
            return INVENTED_TEXT, [Citation(INVENTED)]
        return CLEAN_TEXT, CLEAN

    outcome = rec.regenerate(draft)
    assert (outcome.answer, outcome.citations, outcome.gave_up) == (CLEAN_TEXT, tuple(CLEAN), False)
    first = told[1]
    assert told[0] is None and first is not None
    assert (first.attempt, first.urls) == (1, (INVENTED,))
    assert [f.check for f in first.findings] == ["fabricated_url"]
    assert f"- {INVENTED}: fabricated_url: cited {INVENTED} but no search result" in first.message()
    assert f"Do not cite or show these URLs again: {INVENTED}" in first.message()
    assert [(a.rejected, a.kept) for a in outcome.attempts] == [((INVENTED,), False), ((), False)]
    rec.answer(outcome.answer, outcome.citations)  # the agent records the answer: the kept draft
    attempts = rec.trace()["attempts"]
    assert [(a["rejected"], a.get("kept", False)) for a in attempts] == [([INVENTED], False), ([], True)]
    assert attempts[0]["findings"][0]["url"] == INVENTED


def test_the_loop_gives_up_at_its_limit_and_keeps_the_last_draft_beside_it() -> None:
    rec = searched()
    drafts = iter([INVENTED_TEXT, "Go 2 is out.", f"Go 2 [{INVENTED}] and generics."])

    def draft(rejection: Rejection | None) -> str:
        return next(drafts)

    outcome = rec.regenerate(draft, attempts=3)
    assert outcome.gave_up and outcome.answer is None
    assert outcome.last == (f"Go 2 [{INVENTED}] and generics.", None)
    assert [[f.check for f in a.findings] for a in outcome.attempts] == [
        ["fabricated_url"], ["no_citations"], ["fabricated_url", "rejected_url_kept"]]
    # the URL the third draft brings back is named as the one rejected before
    assert outcome.attempts[2].findings[1].message == (
        f"the answer cites {INVENTED}, which the guard rejected in attempt 1 (fabricated_url)")
    assert outcome.rejected == (INVENTED,)
    rec.answer("I could not find a source I can cite.")  # an answer no draft was: no attempt kept
    assert not any(a.get("kept") for a in rec.trace()["attempts"])
    rec.answer(outcome.last[0])  # the last draft after all: that attempt was kept
    assert [a.get("kept", False) for a in rec.trace()["attempts"]] == [False, False, True]


def test_every_url_rejected_so_far_is_told_again() -> None:
    rec = searched()
    other = "https://go.dev/blog/go3"
    told: list[Rejection] = []

    def draft(rejection: Rejection | None) -> tuple[str, list[Citation]]:
        if rejection is not None:
            told.append(rejection)
        return [(INVENTED_TEXT, []), (f"Go 3 [{other}].", []), (CLEAN_TEXT, CLEAN)][len(told)]

    assert rec.regenerate(draft).answer == CLEAN_TEXT
    assert [r.urls for r in told] == [(INVENTED,), (INVENTED, other)]
    assert [f.url for f in told[1].findings] == [other]  # the findings are the last draft's


def test_a_draft_that_cites_nothing_is_told_so() -> None:
    rec = searched()
    told: list[Rejection] = []

    def draft(rejection: Rejection | None) -> tuple[str, list[Citation]]:
        if rejection is None:
            return "Go was designed at Google.", []
        told.append(rejection)
        return CLEAN_TEXT, CLEAN

    assert rec.regenerate(draft).answer == CLEAN_TEXT
    assert told[0].urls == ()
    assert "- no_citations: the answer cites no source" in told[0].message()
    assert "Do not cite" not in told[0].message()


def test_a_reason_is_one_line_for_the_model() -> None:
    finding = Finding("passage_missing", 'quote not on https://go.dev/:\n"Go was\nfirst released"', "https://go.dev/")
    message = Rejection(2, (finding,), ("https://go.dev/",)).message()
    assert message.splitlines()[:2] == ["The guard rejected answer 2:",
                                        '- https://go.dev/: passage_missing: quote not on https://go.dev/: '
                                        '"Go was first released"']


def test_each_attempt_runs_from_the_end_of_the_one_before() -> None:
    timer = Timer()
    rec = searched(timer)

    def draft(rejection: Rejection | None) -> tuple[str, list[Citation]]:
        timer.now += 2.0 if rejection is None else 0.5  # the model drafts
        return (INVENTED_TEXT, []) if rejection is None else (CLEAN_TEXT, CLEAN)

    rec.regenerate(draft)
    rec.answer(CLEAN_TEXT)
    first, second = parse_trace(rec.trace(), "<test>", "q").attempts
    assert first.started_at == rec.started_at and first.duration_ms == 2000.0
    assert second.started_at is not None and (second.started_at - rec.started_at).total_seconds() == 2.0
    assert second.duration_ms == 500.0


def test_an_async_agent_writes_the_loop_around_attempt() -> None:
    rec = searched()

    async def ask(told: str) -> tuple[str, list[Citation]]:
        await asyncio.sleep(0)
        return (CLEAN_TEXT, CLEAN) if INVENTED in told else (INVENTED_TEXT, [])

    async def agent() -> str:
        told = ""
        for _ in range(3):
            text, citations = await ask(told)
            attempt = rec.attempt(text, citations)
            if not attempt.findings:
                return text
            told = Rejection(1, attempt.findings, attempt.rejected).message()
        raise AssertionError("gave up")

    rec.answer(asyncio.run(agent()))
    assert [a.get("kept", False) for a in rec.trace()["attempts"]] == [False, True]


def test_the_limit_and_the_draft_s_shape_are_checked() -> None:
    rec = searched()
    with pytest.raises(RecordError, match="attempts must be 1 or more"):
        rec.regenerate(lambda rejection: CLEAN_TEXT, attempts=0)
    bad: Any = 42
    with pytest.raises(RecordError, match="the draft function returned int"):
        rec.regenerate(lambda rejection: bad)
    once = rec.regenerate(lambda rejection: INVENTED_TEXT, attempts=1)
    assert once.gave_up and len(once.attempts) == 1


def test_a_recording_that_never_regenerates_has_no_attempts() -> None:
    rec = searched()
    rec.answer(CLEAN_TEXT, CLEAN)
    assert rec.guard() == ()
    assert "attempts" not in rec.trace()


def test_rejected_urls_are_each_named_once_in_order() -> None:
    findings = [Finding("fabricated_url", "m", "https://a.test/"), Finding("no_citations", "m"),
                Finding("passage_missing", "m", "https://b.test/"), Finding("domain_cap", "m", "https://a.test/")]
    assert rejected_urls(findings) == ("https://a.test/", "https://b.test/")


def test_a_loop_that_kept_its_first_draft_rejected_nothing() -> None:
    outcome = Regenerated(CLEAN_TEXT, None, (), (CLEAN_TEXT, None))
    assert not outcome.gave_up and outcome.rejected == ()
