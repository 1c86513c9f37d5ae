"""Building the snapshot from recorded runs: what each layer gets, deterministic and idempotent."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from gate.model import Page, Run, SearchResult
from gate.snapshot.build import build, build_plan
from gate.snapshot.store import SnapshotStore
from gate.urls.anchors import Anchor, extract_anchors

EXAMPLE = Path(__file__).parent.parent / "cached-snapshots" / "example"
STARTED = datetime(2026, 10, 7, 10, 14, 26, tzinfo=UTC)


def _run(case: str = "c", **fields: object) -> Run:
    values: dict[str, object] = {"case": case, "question": "q?", "answer": "a", "source": f"runs/{case}.json"}
    values.update(fields)
    return Run(**values)  # type: ignore[arg-type]


def test_each_query_gets_its_results_in_the_neutral_shape() -> None:
    run = _run(queries=("numpy  2.5 notes", "numpy 2.5 deprecations"), started_at=STARTED, results=(
        SearchResult(query=0, position=1, title="T", url="https://numpy.org/a", snippet="s",
                     published=date(2026, 6, 21)),
        SearchResult(query=1, position=1, title="U", url="https://numpy.org/b", snippet=""),
    ))
    p = build_plan([run])
    by_query = {s.query: s for s in p.searches}
    assert set(by_query) == {"numpy 2.5 notes", "numpy 2.5 deprecations"}
    assert by_query["numpy 2.5 notes"].provider == "trace"
    assert by_query["numpy 2.5 notes"].recorded_at == STARTED
    assert by_query["numpy 2.5 notes"].response == {"results": [
        {"position": 1, "title": "T", "url": "https://numpy.org/a", "snippet": "s",
         "published": "2026-06-21"}]}
    assert by_query["numpy 2.5 deprecations"].response["results"][0]["published"] is None
    assert p.notes == ()


def test_a_query_with_no_results_is_recorded_as_empty() -> None:
    p = build_plan([_run(queries=("nothing here",))])
    assert [s.response for s in p.searches] == [{"results": []}]


def test_minimal_results_split_where_positions_restart() -> None:
    results = tuple(SearchResult(query=None, position=n, title="", url=f"https://a.test/{i}", snippet="")
                    for i, n in enumerate([1, 2, 3, 1, 2]))
    p = build_plan([_run(queries=("first", "second"), results=results)])
    by_query = {s.query: [r["url"] for r in s.response["results"]] for s in p.searches}
    assert by_query == {"first": ["https://a.test/0", "https://a.test/1", "https://a.test/2"],
                        "second": ["https://a.test/3", "https://a.test/4"]}


def test_results_that_cannot_be_attributed_are_not_guessed() -> None:
    results = tuple(SearchResult(query=None, position=n, title="", url=f"https://a.test/{n}", snippet="")
                    for n in [1, 2, 3])
    p = build_plan([_run(queries=("first", "second"), results=results)])
    assert p.searches == ()
    assert len(p.notes) == 1 and "its queries are not recorded" in p.notes[0]


def test_pages_and_extractions_come_from_what_was_read() -> None:
    fetched = datetime(2026, 10, 7, 10, 15, tzinfo=UTC)
    page = Page(url="https://numpy.org/doc/stable/x", text="See [the notes](../2.5/notes.html).",
                final_url="https://numpy.org/doc/2.5/x", status=200, fetched_at=fetched,
                published=date(2026, 6, 21))
    p = build_plan([_run(pages=(page,))])
    (fetch,) = p.pages
    assert (fetch.url, fetch.status, fetch.final_url, fetch.body, fetch.fetched_at) == (
        page.url, 200, page.final_url, page.text, fetched)
    (extraction,) = p.extractions
    assert extraction.published == date(2026, 6, 21)
    # The relative link resolves against where the redirect ended, as a browser would.
    assert extraction.anchors == (Anchor("https://numpy.org/doc/2.5/notes.html", "the notes"),)


def test_a_transient_failure_in_a_run_is_not_recorded() -> None:
    page = Page(url="https://a.test/", text="Service Unavailable", status=503)
    p = build_plan([_run(pages=(page,))])
    assert p.pages == () and p.extractions == ()
    assert "HTTP 503 is a transient failure" in p.notes[0]


def test_two_runs_that_disagree_keep_the_first_and_say_so() -> None:
    one = _run("one", pages=(Page(url="https://a.test/x", text="first", status=200),))
    two = _run("two", pages=(Page(url="http://www.a.test/x/", text="second", status=200),))
    p = build_plan([one, two])
    assert [r.body for r in p.pages] == ["first"]
    assert any("runs/two.json recorded it differently from runs/one.json" in n for n in p.notes)
    # The same answer twice is not a disagreement.
    assert build_plan([one, one]).notes == ()


def test_anchors_inline_reference_and_autolinks_but_not_images_or_code() -> None:
    text = (
        "Read [the guide](https://a.test/guide \"title\") and [this][ref].\n"
        "![a chart](https://a.test/chart.png) <https://b.test/x>\n"
        "```\n[not a link](https://c.test/)\n```\n"
        "[ref]: /docs/ref\n"
    )
    assert extract_anchors(text, "https://a.test/page") == (
        Anchor("https://a.test/guide", "the guide"),
        Anchor("https://a.test/docs/ref", "this"),
        Anchor("https://b.test/x", "https://b.test/x"),
    )


def test_anchors_of_html_in_the_text_but_not_in_comments_or_scripts() -> None:
    text = (
        '<p>See <a class="x" href="/docs?a=1&amp;b=2">the <b>docs</b></a>, <A HREF=\'https://b.test/\'>B</A>\n'
        "and [markdown](https://c.test/) beside it.</p>\n"
        '<!-- <a href="https://hidden.test/">old</a> -->\n'
        "<script>var s = '<a href=\"https://js.test/\">x</a>';</script>\n"
        '<a href="">self</a> <a name="top">no href</a>'
    )
    assert extract_anchors(text, "https://a.test/page") == (
        Anchor("https://a.test/docs?a=1&b=2", "the docs"),
        Anchor("https://b.test/", "B"),
        Anchor("https://c.test/", "markdown"),
    )


def test_the_extraction_of_a_recorded_html_text_keeps_its_links() -> None:
    page = Page(url="https://shop.test/buy/pro", status=200,
                text='<nav><a href="/buy/air">Air</a> <a href="https://shop.test/buy/e">E</a></nav>')
    (extraction,) = build_plan([_run(pages=(page,))]).extractions
    assert extraction.anchors == (Anchor("https://shop.test/buy/air", "Air"), Anchor("https://shop.test/buy/e", "E"))


def test_the_links_a_reader_showed_beside_the_text_are_anchors_too() -> None:
    page = Page(url="https://a.test/x", status=200, text="See [B](https://b.test/).",
                links=("https://b.test/", "https://c.test/", "https://c.test/"))
    (extraction,) = build_plan([_run(pages=(page,))]).extractions
    assert extraction.anchors == (Anchor("https://b.test/", "B"), Anchor("https://c.test/", ""))


def test_a_malformed_link_on_a_page_is_kept_as_written() -> None:
    # Page text is untrusted: a link urllib cannot parse must not stop the build.
    text = "See <https://[::1> and [docs](http://[oops) then [ok](/fine)."
    assert extract_anchors(text, "https://a.test/page") == (
        Anchor("https://[::1", "https://[::1"),
        Anchor("http://[oops", "docs"),
        Anchor("https://a.test/fine", "ok"),
    )
    assert extract_anchors("[x](/y)", "https://[broken") == (Anchor("/y", "x"),)


def _copy_example(tmp_path: Path, name: str) -> Path:
    root = tmp_path / name
    root.mkdir()
    shutil.copy(EXAMPLE / "golden.yaml", root / "golden.yaml")
    shutil.copytree(EXAMPLE / "runs", root / "runs")
    return root


def _tree(folder: Path) -> dict[str, bytes]:
    return {str(f.relative_to(folder)): f.read_bytes() for f in sorted(folder.rglob("*.json"))}


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example set's golden.yaml and runs with the snapshot built from them, built once for the module."""
    root = _copy_example(tmp_path_factory.mktemp("built"), "b")
    build(str(root))
    return root


def test_build_is_deterministic_and_idempotent(built: Path, tmp_path: Path) -> None:
    a = _copy_example(tmp_path, "a")
    first = build(str(a))
    assert first.written and first.unchanged == 0 and first.stale == ()
    assert _tree(a / "snapshot") == _tree(built / "snapshot")  # another build of the same runs
    again = build(str(a))
    assert again.written == () and again.unchanged == len(first.written)
    assert "0 file(s) written" in again.summary()


def test_entries_no_run_produced_are_listed_not_deleted(built: Path, tmp_path: Path) -> None:
    root = Path(shutil.copytree(built, tmp_path / "a"))
    (root / "runs" / "numpy-2-5-highlights.json").unlink()
    golden = (root / "golden.yaml").read_text()
    start = golden.index("- id: numpy-2-5-highlights")
    (root / "golden.yaml").write_text(golden[:start] + golden[golden.index("- id:", start + 1):])
    result = build(str(root))
    assert len(result.stale) == 2 + 3 + 3  # its two queries, three pages and three extractions
    assert all(Path(f).is_file() for f in result.stale)


def test_built_entries_read_back_through_the_store(built: Path) -> None:
    store = SnapshotStore(str(built / "snapshot"))  # read only
    store.index()  # every entry passes its schema and its key check
    reuters = "https://www.reuters.com/markets/us/fed-cuts-rates-quarter-point-signals-more-easing-2026-09-16/"
    assert store.page(reuters).status == 404  # a recorded 404 is an answer
    hit = store.search("trace", "NumPy 2.5.0 release notes")
    assert hit.response["results"][0]["url"].startswith("https://numpy.org/doc/stable/release/2.5.0-notes.html")
    first = next(iter(sorted(Path(store.root, "search").iterdir())))
    assert json.loads(first.read_text())["format"] == "sourcegate-search/1"
