"""The pure half of ``sourcegate drift``: verdicts, the per-host schedule, retries, the reports.

No network and no waiting: the schedule runs on an injected clock whose sleep only moves it on.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest

from gate.drift.checker import checked, interleaved
from gate.drift.hosts import MAX_RETRY_AFTER, HostSlots, Limits, next_delay, retry_after_seconds
from gate.drift.model import Answer, CitedUrl, DriftReport, text_hash
from gate.drift.render import MAX_ROWS, drift_data, drift_markdown
from gate.drift.verdict import drift_report, failing, parse_fail_on, verdict
from gate.files.jsonio import validate
from tests.support.fake_time import FakeTime

URL = "https://news.example.com/2026/story"
CITED = CitedUrl(URL, ("case-a",), recorded_status=200)


# ------------------------------------------------------------------------------------------ verdicts


@pytest.mark.parametrize(("recorded", "answer", "expected"), [
    (200, Answer(status=200, final_url=URL), "ok"),
    (200, Answer(status=404, final_url=URL), "gone"),
    (200, Answer(status=503, final_url=URL, note="still failing after 4 attempts"), "gone"),
    (None, Answer(status=410, final_url=URL), "gone"),  # cited, never read: 4xx now is still news
    (404, Answer(status=404, final_url=URL), "ok"),  # broken when recorded: not drift
    (404, Answer(status=200, final_url=URL), "ok"),
    (200, Answer(status=200, final_url="https://www.example.com/story"), "ok"),  # same registered domain
    (200, Answer(status=200, final_url="https://parked-domains.example.net/"), "moved"),
    (200, Answer(status=404, final_url="https://other.example.org/x"), "gone"),  # gone before moved
    (200, Answer(error="no answer within 30 s"), "error"),
    (200, Answer(status=429, error="HTTP 429 (too many requests) after 4 attempts"), "error"),
])
def test_each_verdict_follows_from_what_was_recorded_and_what_answers_now(
        recorded: int | None, answer: Answer, expected: str) -> None:
    assert verdict(CitedUrl(URL, ("a",), recorded_status=recorded), answer).verdict == expected


def test_a_redirect_that_already_left_the_site_when_recorded_is_not_moved() -> None:
    cited = CitedUrl(URL, ("a",), 200, recorded_final_url="https://sso.login.example.org/?next=1")
    assert verdict(cited, Answer(status=200, final_url="https://sso.login.example.org/?next=2")).verdict == "ok"
    assert verdict(cited, Answer(status=200, final_url="https://elsewhere.example.net/")).verdict == "moved"


def test_content_is_compared_only_when_asked_and_both_sides_have_text() -> None:
    same, other = text_hash("The page, as it was."), text_hash("Another page.")
    cited = CitedUrl(URL, ("a",), 200, recorded_hash=same)
    assert verdict(cited, Answer(status=200, text_hash=other)).verdict == "ok"  # no --content
    assert verdict(cited, Answer(status=200, text_hash=other), content=True).content == "changed"
    assert verdict(cited, Answer(status=200, text_hash=same), content=True).content == "same"
    unknown = verdict(CitedUrl(URL, ("a",), 200, unhashed="no page was recorded"),
                      Answer(status=200, text_hash=other), content=True)
    assert (unknown.verdict, unknown.content) == ("ok", None)
    assert "text not compared: no page was recorded" in unknown.reason


def test_the_text_hash_ignores_wrapping_case_and_typographic_quotes() -> None:
    assert text_hash("It’s  the\nSAME page") == text_hash("it's the same page ")
    assert text_hash("It is another page") != text_hash("it's the same page")


def test_the_report_lists_drifted_urls_first_and_fail_on_picks_its_verdicts() -> None:
    cited = [CitedUrl(f"https://s{i}.example.com/", (f"c{i}",), 200) for i in range(4)]
    answers = {cited[0].url: Answer(status=200), cited[1].url: Answer(error="refused"),
               cited[2].url: Answer(status=404), cited[3].url: Answer(status=200, final_url="https://x.example.org/")}
    report = drift_report("set", 3, cited, answers, content=False, checked_at="2026-12-07T05:17:00Z")
    assert [u.verdict for u in report.urls] == ["gone", "moved", "error", "ok"]
    assert [u.url for u in failing(report, ("moved", "error"))] == [cited[3].url, cited[1].url]
    assert failing(report, ()) == ()


def test_fail_on_takes_a_comma_list_of_drifted_verdicts() -> None:
    assert parse_fail_on("gone, moved,gone") == ("gone", "moved")
    with pytest.raises(ValueError, match=r"'ok' is not a verdict; choose from gone, moved, changed, error"):
        parse_fail_on("gone,ok")
    with pytest.raises(ValueError, match=r"did you mean 'moved'"):
        parse_fail_on("moevd")


# ----------------------------------------------------------------------------- schedule and retries


def test_retry_after_is_seconds_or_an_http_date() -> None:
    now = datetime(2026, 12, 7, 5, 17, 0, tzinfo=UTC)
    assert retry_after_seconds("120", now) == 120.0
    assert retry_after_seconds("Mon, 07 Dec 2026 05:17:30 GMT", now) == 30.0
    assert retry_after_seconds("Mon, 07 Dec 2026 05:00:00 GMT", now) == 0.0  # already past
    assert retry_after_seconds("soon", now) is None and retry_after_seconds(None, now) is None


def test_the_backoff_doubles_and_a_server_s_own_wait_wins_up_to_a_cap() -> None:
    limits = Limits(retry_wait=0.5)
    assert [next_delay(n, None, limits) for n in (1, 2, 3)] == [0.5, 1.0, 2.0]
    assert next_delay(1, 7.0, limits) == 7.0
    assert next_delay(1, MAX_RETRY_AFTER + 1, limits) is None


def test_checks_of_one_host_are_spaced_and_a_pause_holds_them_back() -> None:
    clock = FakeTime()
    hosts = HostSlots(Limits(host_interval=0.05), clock=clock.clock, sleep=clock.sleep)
    for _ in range(3):
        with hosts.turn("a.example"):
            pass
    with hosts.turn("b.example"):  # another host has its own spacing
        pass
    assert clock.slept == pytest.approx([0.05, 0.05])
    hosts.pause("a.example", 10)
    with hosts.turn("a.example"):
        pass
    assert clock.slept[-1] == pytest.approx(10.0)


def test_a_transient_answer_is_retried_with_backoff_and_the_last_one_says_so() -> None:
    clock = FakeTime()
    hosts = HostSlots(Limits(max_retries=2, retry_wait=1.0, host_interval=0), clock=clock.clock, sleep=clock.sleep)
    asked: list[str] = []

    def busy(url: str) -> Answer:
        asked.append(url)
        return Answer(status=503, transient=True)

    answer = checked(URL, busy, hosts, sleep=clock.sleep)
    assert (len(asked), answer.attempts, clock.slept) == (3, 3, [1.0, 2.0])
    assert answer.note == "still failing after 3 attempts" and answer.error is None


def test_a_429_pauses_its_host_and_becomes_an_error_when_it_never_clears() -> None:
    clock = FakeTime()
    hosts = HostSlots(Limits(max_retries=1, host_interval=0), clock=clock.clock, sleep=clock.sleep)
    answer = checked(URL, lambda u: Answer(status=429, transient=True, retry_after=5.0), hosts, sleep=clock.sleep)
    assert answer.error == "HTTP 429 (too many requests) after 2 attempts"
    before = clock.now
    with hosts.turn("news.example.com"):  # the host asked for 5 s: the next check waits them out
        pass
    assert clock.now == before + 5.0


def test_a_wait_longer_than_the_cap_is_not_waited_for() -> None:
    clock = FakeTime()
    hosts = HostSlots(Limits(host_interval=0), clock=clock.clock, sleep=clock.sleep)
    answer = checked(URL, lambda u: Answer(status=503, transient=True, retry_after=3600.0), hosts, sleep=clock.sleep)
    assert answer.attempts == 1 and clock.slept == []
    assert "it asked to wait 3600 s, over the 60 s waited at most" in str(answer.note)


def test_once_stopped_a_transient_answer_is_not_retried() -> None:
    clock, stop = FakeTime(), threading.Event()
    stop.set()  # Ctrl-C: what was asked stands, nothing more is waited for
    hosts = HostSlots(Limits(host_interval=0), clock=clock.clock, sleep=clock.sleep)
    answer = checked(URL, lambda u: Answer(status=503, transient=True), hosts, sleep=clock.sleep, stop=stop)
    assert answer.attempts == 1 and clock.slept == []


def test_urls_are_handed_out_host_by_host_in_turn() -> None:
    urls = ["http://a.test/1", "http://a.test/2", "http://a.test/3", "http://b.test/1", "http://c.test/1"]
    assert interleaved(urls) == ["http://a.test/1", "http://b.test/1", "http://c.test/1",
                                 "http://a.test/2", "http://a.test/3"]


# ------------------------------------------------------------------------------------------ reports


def _report(url: str, reason_final: str, cases: tuple[str, ...] = ("case-a",)) -> DriftReport:
    return drift_report("news", 4, [CitedUrl(url, cases, 200)],
                        {url: Answer(status=200, final_url=reason_final)}, content=False,
                        checked_at="2026-12-07T05:17:00Z")


def test_untrusted_urls_and_case_ids_stay_text_in_the_markdown() -> None:
    hostile = "https://evil.example.net/@team</sub>\n## <!-- [x](javascript:alert(1))"
    md = drift_markdown(_report(URL, hostile, ("case-a", "@everyone|x")))
    assert md.count("\n## ") == 1 and md.count("</sub>") == 1 and md.count("<!--") == 1  # no markup of theirs
    assert "@\u200bteam&lt;/sub&gt; \\#\\# &lt;\\!\\-\\- \\[x\\]\\(javascript:alert\\(1\\)\\)" in md
    assert "`@everyone\\|x`" in md  # a case id as code: no ping, and the pipe keeps the table whole


def test_the_markdown_is_marked_for_its_issue_and_capped() -> None:
    urls = [CitedUrl(f"https://s.example.com/{i}", ("c",), 200) for i in range(MAX_ROWS + 3)]
    report = drift_report("news set", 4, urls, {u.url: Answer(status=404) for u in urls}, content=False,
                          checked_at="2026-12-07T05:17:00Z")
    md = drift_markdown(report)
    assert md.splitlines()[0] == "<!-- sourcegate:drift key=news-set -->"
    assert md.count("\n| gone |") == MAX_ROWS and "and 3 more drifted URLs: see the JSON report" in md


def test_the_json_report_fits_its_schema() -> None:
    data = drift_data(_report(URL, "https://elsewhere.example.org/"))
    validate(data, "drift", "drift.json")
    assert data["format"] == "sourcegate-drift/1"
    assert data["counts"] == {"gone": 0, "moved": 1, "changed": 0, "error": 0, "ok": 0}
    assert data["urls"][0]["verdict"] == "moved"
