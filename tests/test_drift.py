"""``sourcegate drift``: every cited URL checked live, against real web servers on loopback.

Each golden set here cites pages served by stand-in sites on 127.0.0.1 and 127.0.0.2 (two hosts, so
two registered domains), let through record mode's guard by ``record.allow``. The traces recorded
each page with a 200 and its text; today the sites answer the same, 404, a redirect to the other
host, other text, or nothing at all, and each URL must get its verdict.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from gate.cli import main
from gate.files.jsonio import load_json, validate
from gate.snapshot.records import PageRecord
from gate.snapshot.store import SnapshotStore
from tests.support.web_sites import Reply, Silent, Site, flaky, no_head, page, redirect, status

TEXT = "The committee met on 4 March and agreed the new schedule for the spring term."


def write_set(root: Path, cited: dict[str, tuple[str, int | None, str]], *, deadline: float = 10,
              allow: tuple[str, ...] = ("127.0.0.1", "127.0.0.2"), name: str = "drifty") -> Path:
    """A golden set whose case ``id`` cites ``url``, recorded with ``status`` and ``text``."""
    (root / "runs").mkdir(parents=True)
    golden = {"format": "sourcegate-golden/1", "version": 2, "name": name,
              "cases": [{"id": cid, "question": f"What happened ({cid})?"} for cid in cited]}
    (root / "golden.yaml").write_text(yaml.safe_dump(golden, sort_keys=False), encoding="utf-8")
    config = {"judge": {"mode": "off"}, "record": {"allow": list(allow), "deadline_seconds": deadline}}
    (root / "sourcegate.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    for cid, (url, recorded, text) in cited.items():
        run = {"format": "sourcegate-trace/1", "case": cid, "question": f"What happened ({cid})?",
               "started_at": "2026-10-01T09:00:00Z", "queries": ["what happened"],
               "results": [{"query": 0, "position": 1, "title": "A page", "url": url, "snippet": "..."}],
               "pages": [{"url": url, "status": recorded, "text": text, "fetched_at": "2026-10-01T09:00:02Z"}],
               "answer": f"It happened [1].\n\n[1]: {url}", "citations": [{"url": url}]}
        (root / "runs" / f"{cid}.json").write_text(json.dumps(run), encoding="utf-8")
    return root


@pytest.fixture
def two_hosts() -> Iterator[tuple[Site, Site]]:
    elsewhere = Site("127.0.0.2", {"/new-home": page(TEXT)})
    with elsewhere:
        here = Site("127.0.0.1", {
            "/same": page(TEXT),
            "/gone": status(404),
            "/moved": redirect(elsewhere.url("/new-home")),
            "/moved-here": redirect("/same", 302),
            "/changed": page("The committee did not meet; the schedule is unchanged."),
            "/html": page(f"<!doctype html><html><head><title>t</title><script>var x;</script></head>"
                          f"<body><p>{TEXT}</p></body></html>", "text/html"),
            "/no-head": no_head(page(TEXT)),
            "/broken-then": status(404),
        })
        with here:
            yield here, elsewhere


def _drift(root: Path, tmp: Path, *extra: str) -> tuple[int, dict[str, dict[str, object]], str]:
    out, md = tmp / "drift.json", tmp / "drift.md"
    code = main(["drift", str(root), "--json", str(out), "--markdown", str(md), "-q", *extra])
    if code == 2:
        return code, {}, ""
    data = load_json(str(out))
    validate(data, "drift", str(out))
    return code, {u["cases"][0]: u for u in data["urls"]}, md.read_text(encoding="utf-8")


def test_each_cited_url_gets_its_verdict_and_the_exit_code_is_0(tmp_path: Path, two_hosts: tuple[Site, Site]) -> None:
    here, elsewhere = two_hosts
    root = write_set(tmp_path / "set", {
        "same": (here.url("/same"), 200, TEXT),
        "gone": (here.url("/gone"), 200, TEXT),
        "moved": (here.url("/moved"), 200, TEXT),
        "moved-on-its-site": (here.url("/moved-here"), 200, TEXT),
        "changed": (here.url("/changed"), 200, TEXT),
        "no-head": (here.url("/no-head"), 200, TEXT),
        "broken-then": (here.url("/broken-then"), 404, "not found"),
    })
    code, urls, md = _drift(root, tmp_path)
    assert code == 0
    verdicts = {case: u["verdict"] for case, u in urls.items()}
    assert verdicts == {"same": "ok", "gone": "gone", "moved": "moved", "moved-on-its-site": "ok",
                        "changed": "ok", "no-head": "ok", "broken-then": "ok"}
    assert urls["gone"]["status"] == 404 and urls["gone"]["recorded_status"] == 200
    assert urls["moved"]["final_url"] == elsewhere.url("/new-home")
    assert urls["same"]["method"] == "HEAD" and urls["same"]["content"] is None
    assert urls["no-head"]["method"] == "GET" and "HEAD answered HTTP 405" in str(urls["no-head"]["reason"])
    assert "failed when recorded too" in str(urls["broken-then"]["reason"])
    # without --content, a GET only where HEAD answered 4xx (it may be HEAD that the server refuses)
    assert sorted(p for m, p in here.seen if m == "GET") == ["/broken-then", "/gone", "/no-head"]
    assert md.startswith("<!-- sourcegate:drift key=drifty -->\n## sourcegate drift: 2 of 7 cited URLs drifted")
    assert "| gone | `" + here.url("/gone") + "` |" in md


def test_with_content_a_page_whose_text_changed_is_changed(tmp_path: Path, two_hosts: tuple[Site, Site]) -> None:
    here, _ = two_hosts
    root = write_set(tmp_path / "set", {
        "same": (here.url("/same"), 200, f"  {TEXT.upper()}\n"),  # re-wrapped and re-cased: the same text
        "changed": (here.url("/changed"), 200, TEXT),
        "html": (here.url("/html"), 200, TEXT),
    })
    code, urls, md = _drift(root, tmp_path, "--content", "--fail-on", "changed")
    assert code == 1
    assert {c: (u["verdict"], u["content"]) for c, u in urls.items()} == {
        "same": ("ok", "same"), "changed": ("changed", "changed"), "html": ("ok", "same")}
    assert {m for m, _ in here.seen} == {"GET"}
    assert "| changed |" in md


def test_a_server_that_never_answers_is_an_error_within_the_deadline(tmp_path: Path) -> None:
    with Silent() as silent:
        root = write_set(tmp_path / "set", {"mute": (silent.url("/page"), 200, TEXT)}, deadline=1.5)
        code, urls, _ = _drift(root, tmp_path)
    assert code == 0
    assert urls["mute"]["verdict"] == "error" and urls["mute"]["status"] is None
    assert "no answer within 1.5 s" in str(urls["mute"]["reason"])
    assert urls["mute"]["attempts"] == 1  # the deadline is patience already spent: not retried


def test_fail_on_names_the_verdicts_that_exit_1(tmp_path: Path, two_hosts: tuple[Site, Site],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    here, _ = two_hosts
    root = write_set(tmp_path / "set", {"gone": (here.url("/gone"), 200, TEXT), "same": (here.url("/same"), 200, TEXT)})
    assert _drift(root, tmp_path, "--fail-on", "moved")[0] == 0
    assert _drift(root, tmp_path, "--fail-on", "moved,gone")[0] == 1
    capsys.readouterr()
    assert main(["drift", str(root), "--fail-on", "gnoe"]) == 2
    assert "'gnoe' is not a verdict (did you mean 'gone'?)" in capsys.readouterr().err
    assert main(["drift", str(root), "--fail-on", "changed"]) == 2
    assert "--fail-on changed needs --content" in capsys.readouterr().err


def test_a_transient_answer_is_retried_and_its_retry_after_respected(tmp_path: Path) -> None:
    routes = {"/busy": flaky(Reply(503, b"busy", headers={"Retry-After": "0"}), page(TEXT)),
              "/slow-down": flaky(Reply(429, b"slow down"), page(TEXT)),
              "/down": status(500)}
    with Site("127.0.0.1", routes) as site:
        root = write_set(tmp_path / "set", {c: (site.url(f"/{c}"), 200, TEXT) for c in ("busy", "slow-down", "down")})
        code, urls, _ = _drift(root, tmp_path, "--max-retries", "1")
    assert code == 0
    assert (urls["busy"]["verdict"], urls["busy"]["attempts"]) == ("ok", 2)
    assert (urls["slow-down"]["verdict"], urls["slow-down"]["attempts"]) == ("ok", 2)
    assert (urls["down"]["verdict"], urls["down"]["attempts"]) == ("gone", 2)
    assert "still failing after 2 attempts" in str(urls["down"]["reason"])


def test_a_host_that_keeps_answering_429_is_an_error_not_gone(tmp_path: Path) -> None:
    with Site("127.0.0.1", {"/limited": status(429, {"Retry-After": "0"})}) as site:
        root = write_set(tmp_path / "set", {"limited": (site.url("/limited"), 200, TEXT)})
        _, urls, _ = _drift(root, tmp_path, "--max-retries", "1")
    assert urls["limited"]["verdict"] == "error" and urls["limited"]["status"] == 429
    assert "HTTP 429 (too many requests) after 2 attempts" in str(urls["limited"]["reason"])


def test_the_guard_of_record_mode_refuses_what_record_allow_does_not_list(tmp_path: Path) -> None:
    # A loopback page not in record.allow, and an allowed one redirecting to a private address: both
    # refused before any connection is made (the test's own network guard would fail on one).
    with Site("127.0.0.1", {"/to-intranet": redirect("http://10.1.2.3/admin")}) as site, \
            Site("127.0.0.2", {"/page": page(TEXT)}) as other:
        root = write_set(tmp_path / "set", {"private": (other.url("/page"), 200, TEXT),
                                            "hop": (site.url("/to-intranet"), 200, TEXT)}, allow=("127.0.0.1",))
        _, urls, _ = _drift(root, tmp_path)
        assert other.seen == []
    assert urls["private"]["verdict"] == "error"
    assert "refused: 127.0.0.2 is a loopback address" in str(urls["private"]["reason"])
    assert urls["hop"]["verdict"] == "error"
    assert "10.1.2.3 is a private address (redirect hop 1" in str(urls["hop"]["reason"])


def test_one_page_cited_by_several_cases_is_checked_once_and_names_them(tmp_path: Path) -> None:
    with Site("127.0.0.1", {"/gone": status(410)}) as site:
        url = site.url("/gone")
        root = write_set(tmp_path / "set", {"a": (url, 200, TEXT), "b": (url + "#part", 200, TEXT),
                                            "c": (url.replace("http://", "HTTP://"), 200, TEXT)})
        code, urls, md = _drift(root, tmp_path)
        assert [m for m, _ in site.seen] == ["HEAD", "GET"]
    assert code == 0
    assert list(urls) == ["a"] and urls["a"]["cases"] == ["a", "b", "c"]
    assert "`a`, `b`, `c`" in md


def test_the_baseline_s_cited_urls_are_checked_too(tmp_path: Path, two_hosts: tuple[Site, Site]) -> None:
    here, _ = two_hosts
    root = write_set(tmp_path / "set", {"same": (here.url("/same"), 200, TEXT)})
    baseline = tmp_path / "baseline.json"
    assert main(["baseline", "update", str(root), "--baseline", str(baseline), "--judge", "off"]) == 0
    data = json.loads(baseline.read_text(encoding="utf-8"))
    data["cases"][0]["hard_failures"].append(
        {"check": "fabricated_url", "url": here.url("/gone"), "message": "cited but never seen"})
    baseline.write_text(json.dumps(data), encoding="utf-8")
    assert main(["drift", str(root), "--baseline", str(baseline), "--json", str(tmp_path / "d.json"), "-q"]) == 0
    urls = load_json(str(tmp_path / "d.json"))["urls"]
    assert [(u["url"], u["verdict"], u["cases"]) for u in urls] == [
        (here.url("/gone"), "gone", ["same"]), (here.url("/same"), "ok", ["same"])]
    assert main(["drift", str(root), "--baseline", str(tmp_path / "missing.json")]) == 2


def test_bad_input_is_refused_before_any_request(tmp_path: Path, two_hosts: tuple[Site, Site],
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    here, _ = two_hosts
    root = write_set(tmp_path / "set", {"same": (here.url("/same"), 200, TEXT)}, allow=("not a host!",))
    assert main(["drift", str(root), "--json", str(tmp_path / "d.json")]) == 2
    assert "sourcegate.yaml at $.record.allow[0]" in capsys.readouterr().err
    good = write_set(tmp_path / "good", {"same": (here.url("/same"), 200, TEXT)})
    assert main(["drift", str(good), "--json", str(good / "golden.yaml")]) == 2
    assert "this run reads the golden set's golden.yaml" in capsys.readouterr().err
    assert main(["drift", str(tmp_path / "nothing")]) == 2
    assert here.seen == [] and not (tmp_path / "d.json").exists()


def test_markdown_goes_to_stdout_when_no_report_is_asked_for(tmp_path: Path, two_hosts: tuple[Site, Site],
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    here, _ = two_hosts
    root = write_set(tmp_path / "set", {"same": (here.url("/same"), 200, TEXT)})
    assert main(["drift", str(root)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("<!-- sourcegate:drift key=drifty -->\n## sourcegate drift: nothing drifted")
    assert "sourcegate drift: golden set drifty v2: 1 cited URL: 0 gone, 0 moved, 0 changed, 0 error, 1 ok" in err


def test_what_no_run_read_is_taken_from_the_snapshot_and_a_truncated_page_is_not_compared(
        tmp_path: Path, two_hosts: tuple[Site, Site]) -> None:
    here, _ = two_hosts
    html = (f"<!doctype html><html><head><title>t</title><script>var x;</script></head>"
            f"<body><p>{TEXT}</p></body></html>")
    root = write_set(tmp_path / "set", {"unread": (here.url("/html"), 200, TEXT),
                                        "cut": (here.url("/changed"), 200, TEXT)})
    for cid in ("unread", "cut"):  # the runs cite these pages; "unread" never read its page
        run_file = root / "runs" / f"{cid}.json"
        run = json.loads(run_file.read_text(encoding="utf-8"))
        if cid == "unread":
            run["pages"] = []
        else:
            run["pages"][0]["truncated"] = True
        run_file.write_text(json.dumps(run), encoding="utf-8")
    SnapshotStore(str(root / "snapshot")).put_page(PageRecord(
        url=here.url("/html"), status=200, body=html, final_url=here.url("/html"), content_type="text/html"))
    code, urls, _ = _drift(root, tmp_path, "--content")
    assert code == 0
    unread = urls["unread"]
    assert (unread["recorded_status"], unread["verdict"], unread["content"]) == (200, "ok", "same")
    assert (urls["cut"]["verdict"], urls["cut"]["content"]) == ("ok", None)
    assert "text not compared: the recorded page was cut short (truncated)" in str(urls["cut"]["reason"])


def test_a_backslash_or_userinfo_url_is_looked_at_on_the_host_it_is_judged_by(
        tmp_path: Path, two_hosts: tuple[Site, Site]) -> None:
    # "A\@B" is a request to A for every browser, and for the checks: drift asks A, never B. A URL
    # with userinfo is refused, nothing sent: the password would go out as credentials.
    here, elsewhere = two_hosts
    a, b = here.url("/same"), elsewhere.url("/new-home")
    trick = a.replace("/same", "\\@" + b.removeprefix("http://"))
    root = write_set(tmp_path / "set", {"trick": (trick, 200, TEXT),
                                        "userinfo": (b.replace("http://", "http://me:pw@"), 200, TEXT)})
    # The trace's citations list gives the URL as written. Its answer must not restate it as a markdown
    # reference: there "\@" is an escaped "@", another URL (userinfo, on B), which the run would cite too.
    trick_run = root / "runs" / "trick.json"
    run = json.loads(trick_run.read_text(encoding="utf-8"))
    trick_run.write_text(json.dumps({**run, "answer": "It happened [1]."}), encoding="utf-8")
    code, urls, _ = _drift(root, tmp_path)
    assert code == 0
    assert urls["trick"]["status"] == 404  # asked of 127.0.0.1 (no such page there), not of 127.0.0.2
    assert {p for _, p in here.seen} == {"/@" + b.removeprefix("http://")}  # its HEAD, then its GET
    assert elsewhere.seen == []
    assert urls["userinfo"]["verdict"] == "error" and "userinfo" in str(urls["userinfo"]["reason"])
