"""The recorder inside an agent: wrapped tools, the trace it saves, the snapshot it freezes, guard().

Real functions are wrapped (sync and async), the saved trace goes through the gate's own loader
and ``sourcegate check``, and the snapshot through ``sourcegate snapshot verify`` and the store.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

import gate
from gate.cli import main
from gate.errors import RecordError
from gate.load.golden import load_trace
from gate.model import Citation, Page
from gate.record import Recorder
from gate.snapshot import SnapshotStore

APIS = Path(__file__).parent / "fixtures" / "search-apis"
BRAVE = json.loads((APIS / "go-brave-search.testdata.web_search_response.json").read_text(encoding="utf-8"))

GO_PAGE = ("Go is an open source programming language supported by Google. Easy to learn and get "
           "started with. Built-in concurrency and a robust standard library. Go was designed at Google "
           "in 2007 to improve programming productivity.")
WIKI_PAGE = ("Go is a statically typed, compiled high-level programming language designed at Google by "
             "Robert Griesemer, Rob Pike, and Ken Thompson. It is syntactically similar to C.")
WEB = {"https://go.dev/": GO_PAGE, "https://en.wikipedia.org/wiki/Go_(programming_language)": WIKI_PAGE}


def clock(start: datetime = datetime(2026, 10, 2, 9, 14, tzinfo=UTC)) -> Callable[[], datetime]:
    """A clock that moves one second a call."""
    ticks = iter(range(10_000))
    return lambda: start + timedelta(seconds=next(ticks))


def recorder(**kwargs: Any) -> Recorder:
    kwargs.setdefault("clock", clock())
    kwargs.setdefault("timer", lambda: 0.0)  # calls take no time (tests/test_record_timing.py times them)
    kwargs.setdefault("environ", {})
    return Recorder("What is Go, and who designed it?", **kwargs)


def brave_tools(rec: Recorder, max_chars: int | None = None) -> tuple[Callable[[str], Any], Callable[[str], str]]:
    @rec.search(provider="brave")
    def web_search(query: str) -> dict[str, Any]:
        return BRAVE

    @rec.read(max_chars=max_chars)
    def read_page(url: str) -> str:
        return WEB[url]

    return web_search, read_page


CLEAN = [Citation("https://go.dev/", "Go is an open source programming language supported by Google"),
         Citation("https://en.wikipedia.org/wiki/Go_(programming_language)",
                  "designed at Google by Robert Griesemer, Rob Pike, and Ken Thompson")]


def clean_run(rec: Recorder) -> None:
    web_search, read_page = brave_tools(rec)
    assert web_search("golang  language") is BRAVE  # the function's own return value, unchanged
    read_page("https://go.dev/")
    read_page(url="https://en.wikipedia.org/wiki/Go_(programming_language)")
    rec.answer("Go is Google's open source language [1], designed by Griesemer, Pike and Thompson [2].",
               CLEAN)


# ------------------------------------------------------------------------------- recording

def test_a_wrapped_search_keeps_the_literal_query_and_the_results_in_the_trace_shape() -> None:
    rec = recorder()
    clean_run(rec)
    trace = rec.trace()
    assert trace["queries"] == ["golang  language"]  # literal, not normalised
    assert trace["started_at"] == "2026-10-02T09:14:00Z"
    assert [(r["query"], r["position"], r["url"]) for r in trace["results"]] == [
        (0, 1, "https://go.dev/"), (0, 2, "https://en.wikipedia.org/wiki/Go_(programming_language)"),
        (0, 3, "https://go.dev/tour/")]
    assert trace["results"][0]["title"] == "The Go Programming Language"
    assert trace["results"][0]["snippet"].startswith("Go is an open source programming language")
    first = trace["pages"][0]
    assert first == {"url": "https://go.dev/", "final_url": None, "status": None, "text": GO_PAGE,
                     "truncated": False, "fetched_at": first["fetched_at"], "published": None,
                     "started_at": "2026-10-02T09:14:00Z", "duration_ms": 0.0}
    assert first["fetched_at"].startswith("2026-10-02T09:14:0")
    assert trace["citations"][1]["quote"].startswith("designed at Google")


def test_async_tools_are_recorded_the_same_way() -> None:
    rec = recorder()

    @rec.search
    async def web_search(query: str) -> dict[str, Any]:
        await asyncio.sleep(0)
        return BRAVE

    @rec.read
    async def read_page(url: str) -> str:
        await asyncio.sleep(0)
        return WEB[url]

    async def agent() -> None:
        await asyncio.gather(web_search("golang"), web_search(query="go language"))
        assert await read_page("https://go.dev/") == GO_PAGE

    asyncio.run(agent())
    rec.answer("Go [1]", ["https://go.dev/"])
    run = rec.run()
    assert sorted(run.queries) == ["go language", "golang"]
    assert sorted({r.query for r in run.results}) == [0, 1]  # each result names the query it answers
    assert [p.url for p in run.pages] == ["https://go.dev/"]
    assert rec.guard() == ()


def test_a_page_cut_to_max_chars_is_returned_cut_and_recorded_as_truncated() -> None:
    rec = recorder()
    _, read_page = brave_tools(rec, max_chars=40)
    assert read_page("https://go.dev/") == GO_PAGE[:40]
    rec.answer("Go [1]", ["https://go.dev/"])
    [page] = rec.trace()["pages"]
    assert (page["text"], page["truncated"]) == (GO_PAGE[:40], True)


def test_a_reader_may_say_status_final_url_and_truncation_itself() -> None:
    rec = recorder()

    @rec.read
    def fetch(url: str) -> dict[str, Any]:
        return {"text": "Moved.", "status": 301, "final_url": "https://go.dev/doc/", "truncated": True,
                "published": "2026-01-05"}

    @rec.read
    def fetch_page(url: str) -> Page:
        return Page(url=url, text="Not found", status=404)

    assert fetch("https://golang.org/doc")["status"] == 301
    fetch_page("https://go.dev/missing")
    rec.answer("nothing")
    pages = rec.run().pages
    assert (pages[0].status, pages[0].final_url, pages[0].truncated, pages[0].published) == (
        301, "https://go.dev/doc/", True, date(2026, 1, 5))
    assert (pages[1].status, pages[1].fetched_at) == (404, datetime(2026, 10, 2, 9, 14, 2, tzinfo=UTC))


def test_what_cannot_be_recorded_is_an_error_that_says_why() -> None:
    rec = recorder()

    @rec.search(provider="serpapi")
    def wrong_provider(query: str) -> dict[str, Any]:
        return BRAVE

    with pytest.raises(RecordError, match=r"serpapi response at \$: missing key 'organic_results'"):
        wrong_provider("golang")

    @rec.search
    def unknown(query: str) -> dict[str, Any]:
        return {"hits": []}

    with pytest.raises(RecordError, match="not the response shape of any known search API"):
        unknown("golang")

    @rec.read
    def reader(url: str) -> bytes:
        return b"<html>"

    with pytest.raises(RecordError, match="the page reader returned bytes for https://go.dev/"):
        reader("https://go.dev/")
    with pytest.raises(RecordError, match="has no parameter 'q'"):
        rec.search(lambda query: BRAVE, arg="q")
    with pytest.raises(RecordError, match="no question"):
        Recorder(environ={})
    with pytest.raises(RecordError, match="without a time zone"):
        Recorder("q", clock=lambda: datetime(2026, 1, 1), environ={})


def test_a_failed_search_records_the_query_and_no_results() -> None:
    rec = recorder()

    @rec.search
    def web_search(query: str) -> dict[str, Any]:
        return {"type": "ErrorResponse", "error": {"code": "RATE_LIMITED"}}

    web_search("golang")
    rec.answer("nothing found")
    assert (rec.run().queries, rec.run().results) == (("golang",), ())
    assert rec.notes and "failed" in rec.notes[0]


# ------------------------------------------------------------------------------- saving

def test_the_saved_trace_loads_and_passes_the_gate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rec = recorder(case="go-designers")
    clean_run(rec)
    file = rec.save(str(tmp_path / "runs" / "go-designers.json"))
    run = load_trace(file)
    assert (run.case, len(run.results), len(run.pages)) == ("go-designers", 3, 2)
    assert run.pages[0].fetched_at == datetime(2026, 10, 2, 9, 14, 2, tzinfo=UTC)
    assert main(["check", file, "--judge", "off", "--json", str(tmp_path / "report.json")]) == 0
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["verdict"] == "pass"


def test_a_fabricated_citation_saved_fails_the_gate(tmp_path: Path) -> None:
    rec = recorder()
    clean_run(rec)
    rec.answer("Go [1]", ["https://go.dev/blog/go-2-released"])
    file = rec.save(str(tmp_path / "run.json"))
    assert main(["check", file, "--judge", "off", "--json", str(tmp_path / "r.json")]) == 1


def test_save_writes_where_sourcegate_run_says(tmp_path: Path) -> None:
    target = tmp_path / "out" / "trace.json"
    env = {"SOURCEGATE_TRACE_FILE": str(target), "SOURCEGATE_CASE": "from-env",
           "SOURCEGATE_QUESTION": "What is Go?"}
    rec = Recorder(clock=clock(), environ=env)
    rec.answer("Go.")
    assert rec.save(environ=env) == str(target)
    data = json.loads(target.read_text(encoding="utf-8"))
    assert (data["case"], data["question"]) == ("from-env", "What is Go?")
    with pytest.raises(RecordError, match="SOURCEGATE_TRACE_FILE"):
        rec.save(environ={})


def test_nothing_is_written_without_an_answer(tmp_path: Path) -> None:
    rec = recorder()
    with pytest.raises(RecordError, match="no answer recorded"):
        rec.save(str(tmp_path / "t.json"))
    assert not list(tmp_path.iterdir())


def test_saving_into_a_golden_set_freezes_its_web(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "golden"
    root.mkdir()
    (root / "golden.yaml").write_text(
        "format: sourcegate-golden/1\nversion: 1\nname: go\ncases:\n"
        "  - id: go-designers\n    question: What is Go, and who designed it?\n", encoding="utf-8")
    rec = recorder(case="go-designers")
    clean_run(rec)
    rec.save(str(root / "runs" / "go-designers.json"), snapshot=str(root))
    assert main(["snapshot", "verify", str(root)]) == 0
    store = SnapshotStore(str(root / "snapshot"))
    assert store.search("brave", "golang language").response == BRAVE  # the provider's whole JSON
    page = store.page("https://go.dev")
    assert (page.body, page.fetched_at) == (GO_PAGE, datetime(2026, 10, 2, 9, 14, 2, tzinfo=UTC))
    assert store.extraction("https://go.dev/").text == GO_PAGE
    assert main(["snapshot", "verify", str(root), "--provider", "brave"]) == 0


# ------------------------------------------------------------------------------- guard

def test_guard_lets_a_clean_answer_through() -> None:
    rec = recorder()
    clean_run(rec)
    assert rec.guard() == ()


def test_guard_names_each_failing_citation_with_its_reason() -> None:
    rec = recorder()
    web_search, read_page = brave_tools(rec)
    web_search("golang")
    read_page("https://go.dev/")
    draft = "Go 2 shipped [1], the tour is good [2], and Go is 20 years old [3]."
    found = rec.guard(draft, [
        {"url": "https://go.dev/blog/go2-released"},                              # never in any result
        {"url": "https://go.dev/tour/"},                                          # seen, never read
        {"url": "https://go.dev/", "quote": "Go was first released in 1999 by Microsoft"},  # not on the page
    ])
    assert [(f.check, f.url) for f in found] == [
        ("fabricated_url", "https://go.dev/blog/go2-released"),
        ("unread_citation", "https://go.dev/tour/"),
        ("passage_missing", "https://go.dev/"),
        ("domain_cap", "https://go.dev/"),  # three go.dev pages: the third is over the cap of 2
    ]
    assert "never fetched" in found[1].message
    # the loop the docs show: drop what failed, read a source before citing it, check again
    bad = {f.url for f in found}
    read_page("https://en.wikipedia.org/wiki/Go_(programming_language)")
    kept = [c for c in CLEAN if c.url not in bad]
    assert [c.url for c in kept] == ["https://en.wikipedia.org/wiki/Go_(programming_language)"]
    assert rec.guard("Go was designed by Griesemer, Pike and Thompson [1].", kept) == ()


def test_guard_checks_unresolved_pages_and_the_domain_cap() -> None:
    rec = recorder()

    @rec.search
    def web_search(query: str) -> dict[str, Any]:
        return {"results": [{"position": i, "title": "t", "url": f"https://news.example.com/{i}", "snippet": ""}
                            for i in range(1, 5)]}

    @rec.read
    def read_page(url: str) -> dict[str, Any]:
        return {"text": "gone", "status": 404} if url.endswith("/4") else {"text": "ok", "status": 200}

    web_search("news")
    for i in range(1, 5):
        read_page(f"https://news.example.com/{i}")
    cited = [f"https://news.example.com/{i}" for i in range(1, 5)]
    found = rec.guard("a [1] b [2] c [3] d [4]", cited)
    assert sorted(f.check for f in found) == ["domain_cap", "url_unresolved"]
    # the case's own site is exempt from the cap
    exempt = recorder(about_domains=["example.com"])
    exempt.search(lambda query: web_search(query))("news")
    for url in cited[:3]:
        exempt.read(lambda url: read_page(url))(url)
    assert exempt.guard("a [1] b [2] c [3]", cited[:3]) == ()


def test_guard_refuses_a_draft_that_cites_nothing() -> None:
    rec = recorder()
    clean_run(rec)
    [finding] = rec.guard("The answer is 42.")
    assert (finding.check, finding.url, finding.message) == ("no_citations", None, "the answer cites no source")
    assert rec.guard("The answer is 42.", []) == (finding,)  # an empty list cites nothing either


def test_guard_checks_the_answer_s_own_links_beside_its_citations_list() -> None:
    # A citations list does not hide a link the answer writes: the reader follows it all the same.
    rec = recorder()
    clean_run(rec)
    draft = ("Go is Google's open source language [1], designed by Griesemer, Pike and Thompson [2]; "
             "see also [WHO](https://who.int/invented-page-2026).")
    found = rec.guard(draft, CLEAN)
    assert [(f.check, f.url) for f in found] == [("fabricated_url", "https://who.int/invented-page-2026")]
    rec.answer(draft, CLEAN)
    assert [(f.check, f.url) for f in rec.guard()] == [("fabricated_url", "https://who.int/invented-page-2026")]


def test_guard_counts_a_page_fetched_and_the_links_on_it_as_seen() -> None:
    rec = recorder()

    @rec.read
    def read_page(url: str) -> dict[str, Any]:
        if url.endswith("/gone"):
            return {"text": "Not Found", "status": 404}
        return {"text": "Releases: [Go 1.23](/doc/go1.23) and <a href='https://go.dev/blog/'>the blog</a>.",
                "status": 200}

    read_page("https://go.dev/doc/devel/release")  # no search showed it: the agent fetched it by URL
    read_page("https://go.dev/gone")
    draft = "Go 1.23 shipped [1] [2] [3] [4]."
    found = rec.guard(draft, ["https://go.dev/doc/devel/release", "https://go.dev/doc/go1.23",
                              "https://go.dev/gone", "https://go.dev/blog/"])
    assert [(f.check, f.url) for f in found if f.check != "domain_cap"] == [
        ("unread_citation", "https://go.dev/doc/go1.23"),  # a link on the page it read, never opened
        ("unread_citation", "https://go.dev/blog/"),
        ("url_unresolved", "https://go.dev/gone"),  # fetched, and it did not answer
    ]
    assert "a page the agent read links to (https://go.dev/doc/devel/release)" in found[0].message


def test_links_a_reader_returns_beside_the_text_are_recorded_and_seen() -> None:
    rec = recorder()

    @rec.read
    def scrape(url: str) -> dict[str, Any]:
        return {"text": "Go releases", "status": 200, "links": ["https://go.dev/doc/go1.23"]}

    scrape("https://go.dev/doc/devel/release")
    rec.answer("Go 1.23 shipped [1].", ["https://go.dev/doc/go1.23"])
    assert [(f.check, f.url) for f in rec.guard()] == [("unread_citation", "https://go.dev/doc/go1.23")]
    [page] = rec.trace()["pages"]
    assert page["links"] == ["https://go.dev/doc/go1.23"]
    with pytest.raises(RecordError, match="'links' of what the reader returned for https://x.test/ must be a list"):
        rec.read(lambda url: {"text": "t", "links": "https://y.test/"})("https://x.test/")


def test_guard_needs_an_answer() -> None:
    with pytest.raises(RecordError, match="guard"):
        recorder().guard()


def test_the_recorder_is_public() -> None:
    assert gate.Recorder is Recorder
    assert issubclass(gate.RecordError, gate.InputError)


def test_a_search_that_raises_keeps_its_query_and_the_error() -> None:
    rec = recorder()

    @rec.search
    def web_search(query: str) -> dict[str, Any]:
        raise TimeoutError("the search API did not answer")

    with pytest.raises(TimeoutError):
        web_search("golang")
    rec.answer("nothing")
    assert (rec.run().queries, rec.run().results) == (("golang",), ())


def test_the_query_may_be_any_named_parameter_and_sdk_objects_are_dumped() -> None:
    rec = recorder()

    class Response:  # the shape of an SDK's pydantic response
        def model_dump(self, mode: str = "python") -> dict[str, Any]:
            assert mode == "json"
            return BRAVE

    @rec.search(arg="q")
    def web_search(count: int, q: str) -> Response:
        return Response()

    assert isinstance(web_search(5, q="golang"), Response)
    rec.answer("Go")
    assert rec.run().queries == ("golang",)
    assert len(rec.run().results) == 3
    with pytest.raises(RecordError, match="expected the query as the string argument 'q'"):
        web_search(5, q=None)  # type: ignore[arg-type]


def test_a_query_answered_twice_differently_keeps_the_first_in_the_snapshot(tmp_path: Path) -> None:
    rec = recorder()
    answers = iter([BRAVE, {**BRAVE, "web": {"type": "search", "results": []}}])

    @rec.search
    def web_search(query: str) -> Any:
        return next(answers)

    web_search("golang")
    web_search("golang")
    rec.answer("Go")
    rec.save(str(tmp_path / "golden" / "runs" / "go.json"), snapshot=str(tmp_path / "golden"))
    store = SnapshotStore(str(tmp_path / "golden" / "snapshot"))
    assert store.search("brave", "golang").response == BRAVE
    assert store.index().searches == {("brave", "golang")}
    assert any("answered differently" in n for n in rec.notes)


def test_an_async_callable_that_does_not_look_like_one_is_awaited_before_recording() -> None:
    import functools

    rec = recorder()

    async def fetch(url: str, prefix: str) -> str:
        return prefix + WEB[url]

    read_page = rec.read(functools.partial(fetch, prefix=""))
    assert asyncio.run(read_page("https://go.dev/")) == GO_PAGE
    rec.answer("Go")
    assert rec.run().pages[0].text == GO_PAGE


def test_the_environment_is_read_where_the_recorder_starts_and_saves(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCEGATE_QUESTION", "What is Go?")
    monkeypatch.setenv("SOURCEGATE_CASE", "go")
    monkeypatch.setenv("SOURCEGATE_TRACE_FILE", str(tmp_path / "go.json"))
    rec = Recorder()
    rec.answer("Go.")
    assert load_trace(rec.save()).case == "go"
