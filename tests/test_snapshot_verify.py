"""Coverage: every run's queries and read pages must be in the snapshot, or the miss is listed."""

from __future__ import annotations

from pathlib import Path

from gate.model import Page, Run
from gate.snapshot.records import ContentsRecord, PageRecord, SearchRecord
from gate.snapshot.store import SnapshotIndex, SnapshotStore
from gate.snapshot.verify import render, verify


def _run(case: str, queries: tuple[str, ...], urls: tuple[str, ...]) -> Run:
    return Run(case=case, question="q?", answer="a", queries=queries, source=f"runs/{case}.json",
               pages=tuple(Page(url=u, text="t", status=200) for u in urls))


def _index(tmp_path: Path) -> SnapshotIndex:
    store = SnapshotStore(str(tmp_path / "snapshot"))
    store.put_search(SearchRecord("serpapi", "ecb deposit rate", {"organic_results": []}))
    store.put_page(PageRecord(url="https://www.ecb.europa.eu/rates", status=200, body="x"))
    return store.index()


def test_a_covered_run() -> None:
    index = SnapshotIndex(searches=frozenset(), pages=frozenset(), extractions=frozenset())
    assert verify([_run("a", (), ())], index).covered


def test_verify_finds_a_page_the_snapshot_lacks(tmp_path: Path) -> None:
    runs = [
        _run("covered", ("ecb  deposit rate",), ("http://ecb.europa.eu/rates/",)),
        _run("reads-more", ("ecb deposit rate",), ("https://www.ecb.europa.eu/rates", "https://x.test/new")),
    ]
    coverage = verify(runs, _index(tmp_path))
    assert not coverage.covered
    (miss,) = coverage.misses
    assert miss.case == "reads-more"
    assert miss.missing_pages == ("https://x.test/new",)
    assert miss.missing_queries == ()
    text = render(coverage, "snap")
    assert "does not cover 1 of 2 run(s)" in text
    assert "reads-more (runs/reads-more.json)" in text
    assert "page not recorded: https://x.test/new" in text
    assert "sourcegate snapshot build" in text


def test_verify_finds_a_query_the_snapshot_lacks_and_lists_it_once(tmp_path: Path) -> None:
    coverage = verify([_run("new-query", ("ECB deposit rate", "ECB deposit rate"), ())], _index(tmp_path))
    assert coverage.misses[0].missing_queries == ("ECB deposit rate",)  # case matters


def test_a_provider_can_be_required(tmp_path: Path) -> None:
    runs = [_run("a", ("ecb deposit rate",), ())]
    assert verify(runs, _index(tmp_path), provider="serpapi").covered
    coverage = verify(runs, _index(tmp_path), provider="brave")
    assert not coverage.covered
    assert "by provider 'brave'" in render(coverage, "snap")


def test_a_fetch_that_failed_transiently_is_not_required(tmp_path: Path) -> None:
    # `snapshot build` never records a 408, 429 or 5xx (errors are never cached), so a run that met
    # one would otherwise be "not covered" however often the snapshot is rebuilt.
    run = Run(case="flaky", question="q?", answer="a", source="runs/flaky.json", pages=(
        Page(url="https://www.ecb.europa.eu/rates", text="x", status=200),
        Page(url="https://x.test/busy", text="Service Unavailable", status=503),
        Page(url="https://x.test/slow", text="", status=429),
        Page(url="https://x.test/gone", text="Not Found", status=404),
    ))
    coverage = verify([run], _index(tmp_path))
    assert coverage.misses[0].missing_pages == ("https://x.test/gone",)  # a 404 is an answer: recordable


def test_a_page_a_provider_read_covers_the_run_that_read_it(tmp_path: Path) -> None:
    store = SnapshotStore(str(tmp_path / "snapshot"))
    store.put_contents(ContentsRecord("tavily", "https://news.example/pinning",
                                      {"results": [{"url": "https://news.example/pinning", "raw_content": "x"}]}))
    index = store.index()
    assert index.has_read("http://www.news.example/pinning/") and not index.has_page("https://news.example/pinning")
    assert verify([_run("read-by-tavily", (), ("https://news.example/pinning",))], index).covered
