"""The PR comment and job summary: pinned by golden files, escaped, trimmed, posted (loopback only)."""

from __future__ import annotations

import copy
import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from gate.cli import main
from gate.config import SoftBound
from gate.deliver.publish import COMMENT_AUTHORS_ENV, comment_authors, is_login, parse_logins
from gate.errors import InputError
from gate.github import ACTIONS_BOT_LOGIN, marker
from gate.model import Finding
from gate.report.comment import COMMENT_LIMIT, CommentReporter
from gate.report.json import JsonReporter
from gate.report.markdown import MarkdownReporter
from gate.report.summary import SUMMARY_LIMIT, SummaryReporter
from gate.verdict.report import Report
from tests.support.github_server import FIXTURES, FakeGitHub, forbidden_integration
from tests.support.golden_factory import write_golden
from tests.support.report_factory import (
    CONFIG,
    FAB,
    assert_golden,
    case,
    frozen_web_report,
    judgement,
    regression_pair,
    regression_report,
)

RUN_URL = "https://github.com/Codertocat/Hello-World/actions/runs/42"
TOKEN = "ghs_loopbackTokenForCommentTests000000000"
REPO = "Codertocat/Hello-World"


def test_comment_with_a_baseline_matches_its_golden_file() -> None:
    assert_golden("comment_regression.md", CommentReporter(run_url=RUN_URL).render(regression_report()))


def test_comment_without_a_baseline_matches_its_golden_file() -> None:
    assert_golden("comment_no_baseline.md", CommentReporter().render(regression_pair()[1]))


def test_job_summary_matches_its_golden_file() -> None:
    assert_golden("summary_regression.md", SummaryReporter().render(regression_report()))


def test_json_comparison_matches_its_golden_file() -> None:
    assert_golden("report_regression.json", JsonReporter().render(regression_report()))


HOSTILE = ("@octocat </details><!-- x --> <img src=x onerror=alert(1)> ![p](https://evil.example/p.png) "
           "| ## head #12 www.evil.example $x$\n- item\n```")


def hostile_report() -> Report:
    bad = Finding("fabricated_url", HOSTILE, "https://evil.example/a)|![x](https://evil.example/i.png)<!--")
    j = judgement([("supported", None)])
    j = replace(j, claims=(replace(j.claims[0], text=HOSTILE),))
    base = case("c|@x`</details>", {"grounding_rate": 1.0}, [], j)
    flipped = replace(j, verdicts=(replace(j.verdicts[0], verdict="unsupported", overruled=True,
                                           overrule_reason="quote_not_found"),))
    cur = case("c|@x`</details>", {"grounding_rate": 0.0}, [bad], flipped)
    from gate.verdict.compare import BaselineOrigin, compare
    from tests.support.report_factory import decide_report

    before = Report("pass", (), "demo", 1, (base,))
    after = Report("fail", (HOSTILE,), "demo", 1, (cur,), warnings=(HOSTILE,))
    origin = BaselineOrigin(file="b.json", ref=HOSTILE)
    return decide_report(after, CONFIG, compare(before, after, CONFIG, origin))


def _html(markdown: str) -> str:
    """``markdown`` as GitHub renders it (cmarkgfm, raw HTML let through: GitHub sanitises after)."""
    import cmarkgfm
    from cmarkgfm.cmark import Options

    html: str = cmarkgfm.github_flavored_markdown_to_html(markdown, options=Options.CMARK_OPT_UNSAFE)
    return html


def unescaped_pipes(line: str) -> int:
    return len(re.findall(r"(?<!\\)\|", line))


@pytest.mark.parametrize("render", [CommentReporter().render, SummaryReporter().render])
def test_untrusted_text_cannot_ping_open_tags_load_images_or_break_tables(render: Any) -> None:
    full = render(hostile_report())
    # A link's target is the whole URL, every character kept literal: it opens nothing else.
    links = re.findall(r'<a href="([^"]*)"', _html(full))
    assert links and all(h.startswith("https://evil.example/") for h in links)
    assert "https://evil.example/a)%7C!%5Bx%5D(https://evil.example/i.png)%3C!--" in links
    # Inside a link's target and a code span nothing is a mention, tag, link or image: look at the rest.
    text = re.sub(r"(?<![`\\])(`+)(?!`)(.+?)(?<!`)\1(?!`)", "CODE", full)
    text = re.sub(r"\]\((?:\\.|[^\\)\s])*\)", "](LINK)", text)
    assert "CODE" in text
    assert "@octocat" not in text and "@\u200boctocat" in text
    assert text.count("<details>") == 1 and text.count("</details>") == 1
    assert text.count("<!--") == (1 if render.__self__.__class__ is CommentReporter else 0)
    assert "<img" not in text and "![" not in text
    assert "#12" not in text and "https://evil" not in text.replace("`https://evil", "")
    for line in full.splitlines():
        assert not line.startswith(("## head", "- item", "```"))
        if line.startswith("| "):
            header = {"case": 7, "figure": 6, "": 6}
            assert unescaped_pipes(line) in header.values(), line


def test_an_oversize_report_is_trimmed_under_the_limit() -> None:
    base, cur = regression_pair()
    many = tuple(Finding("fabricated_url", "x" * 280, f"https://made-up.example.net/{i}/{'y' * 150}")
                 for i in range(2000))
    cur = replace(cur, cases=(*cur.cases, case("huge", {"query_quality": 1.0}, many)))
    from gate.verdict.compare import BaselineOrigin, compare
    from tests.support.report_factory import decide_report

    report = decide_report(cur, CONFIG, compare(base, cur, CONFIG, BaselineOrigin(file="baseline.json")))
    text = CommentReporter(run_url=RUN_URL).render(report)
    assert len(text) <= COMMENT_LIMIT
    assert text.startswith("## ❌ sourcegate: **fail**")
    assert "| figure | baseline | PR | delta | status |" in text
    assert "more failure(s) not shown here: see the job summary or the report artifact" in text
    assert "This comment was trimmed to fit GitHub's 65,536-character limit. The full report is in" in text
    assert "claim 2: supported → unsupported, quote not found" in text  # a short section is not pushed out
    assert text.rstrip().endswith(marker("demo"))
    assert text.count("<details>") == text.count("</details>")
    assert len(SummaryReporter().render(report)) > COMMENT_LIMIT  # the summary keeps it all


def test_the_job_summary_fits_githubs_1_mib_counted_in_bytes() -> None:
    """GitHub drops a whole step summary over 1 MiB, and counts UTF-8 bytes: quotes from pages in
    Chinese take three bytes a character, so a summary under a million characters can be far over."""
    base, cur = regression_pair()
    many = tuple(Finding("passage_missing", "引文不在页面上" * 45, f"https://example.cn/{i}/{'页面' * 90}")
                 for i in range(1500))
    cur = replace(cur, cases=(*cur.cases, case("huge", {"query_quality": 1.0}, many)))
    from gate.verdict.compare import BaselineOrigin, compare
    from tests.support.report_factory import decide_report

    report = decide_report(cur, CONFIG, compare(base, cur, CONFIG, BaselineOrigin(file="baseline.json")))
    text = SummaryReporter().render(report)
    assert len(text.encode("utf-8")) <= SUMMARY_LIMIT < 1024 * 1024
    assert text.startswith("## ❌ sourcegate: **fail**")
    assert "more failure(s) not shown here" in text
    assert "This job summary was trimmed to fit GitHub's 1 MiB limit" in text and "This comment" not in text
    assert text.count("<details>") == text.count("</details>")


def blocking_report(failures: tuple[Finding, ...] = ()) -> Report:
    """Grounding falls on ten cases out of ten, and the config says it blocks: beyond judge noise."""
    from gate.verdict.compare import BaselineOrigin, compare
    from tests.support.report_factory import decide_report

    cfg = replace(CONFIG, soft=MappingProxyType({**CONFIG.soft, "grounding_rate": SoftBound(floor=0.5, block=True)}))
    base = Report("pass", (), "demo", 1, tuple(case(f"c{i}", {"grounding_rate": 0.9}) for i in range(10)))
    cur = Report("pass", (), "demo", 1, tuple(case(f"c{i}", {"grounding_rate": 0.8}, failures if i == 0 else ())
                                               for i in range(10)))
    return decide_report(cur, cfg, compare(base, cur, cfg, BaselineOrigin(file="baseline.json")))


def test_the_comment_says_why_each_blocking_regression_counts() -> None:
    report = blocking_report()
    text = CommentReporter().render(report)
    visible = text.split("<details>", 1)[0]  # not only in the collapsible rest
    assert "| grounding | 0.90 | 0.80 | -0.10 | ❌ blocking |" in visible
    why = ("grounding 0\\.90 → 0\\.80: regressed by 0\\.10, past its tolerance 0\\.05, and beyond judge noise: "
           "worse in 10 and better in 0 of 10 paired cases \\(sign test p \\= 0\\.001\\), p &lt;\\= 0\\.05")
    assert f"**Why:** {why}\n" in visible  # the one blocking figure is the one-line reason
    # With a hard failure leading the reasons, each blocking figure gets its own visible line.
    failing = CommentReporter().render(blocking_report((FAB,))).split("<details>", 1)[0]
    assert ("**Why:** 1 hard failure in 1 of 10 cases, 1 new since the baseline: 1 fabricated\\_url \\(in c0\\); "
            "and 1 soft figure blocks: grounding") in failing
    assert f"❌ **Blocks:** {why}" in failing
    figure = next(f for f in json.loads(JsonReporter().render(report))["comparison"]["figures"]
                  if f["figure"] == "grounding_rate")
    assert figure["status"] == "blocking" and "beyond judge noise" in figure["why"]
    assert "❌ **Blocks:**" not in CommentReporter().render(regression_report())  # within noise: no such line


def test_hallucination_is_split_by_retrieval_success_with_and_without_a_baseline() -> None:
    for report in (regression_report(), regression_pair()[1]):
        text = CommentReporter().render(report)
        assert "| hallucination, retrieval ok |" in text and "| hallucination, retrieval failed |" in text
        data = json.loads(JsonReporter().render(report))
        assert data["judge"]["hallucination_by_retrieval"] == {"retrieval_succeeded": 0.0,
                                                                "retrieval_failed": 0.5}
    figures = {f["figure"]: f for f in json.loads(JsonReporter().render(regression_report()))["comparison"]["figures"]}
    assert figures["hallucination_rate.retrieval_failed"]["pr"] == 0.5


def test_the_footer_counts_runs_the_judge_cache_served_and_replies_it_missed() -> None:
    text = CommentReporter().render(regression_report())
    assert ("1 of 2 judged run(s) served from the judge cache with no API call (3 cached replies read); "
            "1 reply missing from the judge cache in 1 run(s)") in text


# -- posting through the loopback fake GitHub -------------------------------------------------------


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeGitHub]:
    yield from _serve(monkeypatch, tmp_path, app=None)


@pytest.fixture
def app_github(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeGitHub]:
    """The token is a GitHub App's: GET /user answers 403, comments are written by my-app[bot]."""
    yield from _serve(monkeypatch, tmp_path, app="my-app")


def _serve(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, app: str | None) -> Iterator[FakeGitHub]:
    monkeypatch.delenv(COMMENT_AUTHORS_ENV, raising=False)
    with FakeGitHub(token=TOKEN, app=app) as fake:
        event = json.loads((FIXTURES / "pull_request.synchronize.json").read_text(encoding="utf-8"))
        (tmp_path / "event.json").write_text(json.dumps(event), encoding="utf-8")
        monkeypatch.setenv("GITHUB_EVENT_PATH", str(tmp_path / "event.json"))
        monkeypatch.setenv("GITHUB_REPOSITORY", REPO)
        monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
        monkeypatch.setenv("GITHUB_API_URL", fake.base_url)
        monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "summary.md"))
        monkeypatch.setenv("GITHUB_SERVER_URL", "https://github.com")
        monkeypatch.setenv("GITHUB_RUN_ID", "42")
        yield fake


@pytest.fixture(scope="module")
def failing_set_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    golden = write_golden(tmp_path_factory.mktemp("failing") / "demo", ["a", "b"])
    assert main(["baseline", "update", str(golden)]) == 0
    return write_golden(golden, ["a", "b"], bad=["b"])


@pytest.fixture
def failing_set(failing_set_once: Path, tmp_path: Path) -> Path:
    """A set whose baseline passed and whose case ``b`` now fails: this test's own copy."""
    return Path(shutil.copytree(failing_set_once, tmp_path / "demo"))


def check(golden: Path) -> int:
    return main(["check", str(golden), "--comment", "--markdown", str(golden.parent / "out.md")])


def test_the_marker_comment_on_the_second_page_is_updated(github: FakeGitHub, failing_set: Path) -> None:
    for i in range(130):
        body = f"comment {i}" if i != 117 else f"old report\n\n{marker('demo')}\n"
        github.add_comment(REPO, 2, body, login=ACTIONS_BOT_LOGIN if i == 117 else "octocat",
                           user_type="Bot" if i == 117 else "User")
    ours = github.comments(REPO, 2)[117]["id"]
    assert check(failing_set) == 1
    assert not github.requests_to("create_comment")
    patched = github.requests_to("update_comment")
    assert len(patched) == 1 and patched[0].path.endswith(f"/issues/comments/{ours}")
    body = github.comments(REPO, 2)[117]["body"]
    assert body.startswith("## ❌ sourcegate: **fail**") and body.rstrip().endswith(marker("demo"))
    assert f"[job summary]({RUN_URL})" in body
    pages = [r.query.get("page") for r in github.requests_to("list_comments")]
    assert ["2"] in pages


def test_a_marker_planted_by_another_user_is_ignored(github: FakeGitHub, failing_set: Path) -> None:
    planted = github.add_comment(REPO, 2, f"gotcha\n{marker('demo')}", login="mallory")
    assert check(failing_set) == 1
    assert not github.requests_to("update_comment")
    assert len(github.requests_to("create_comment")) == 1
    comments = github.comments(REPO, 2)
    assert comments[0]["body"] == planted["body"] and len(comments) == 2


def fork_event(tmp_path: Path) -> Path:
    event = json.loads((FIXTURES / "pull_request.opened.json").read_text(encoding="utf-8"))
    forked = copy.deepcopy(event)
    forked["pull_request"]["head"]["repo"]["full_name"] = "mallory/Hello-World"
    path = tmp_path / "fork-event.json"
    path.write_text(json.dumps(forked), encoding="utf-8")
    return path


def test_a_403_never_changes_the_verdict(github: FakeGitHub, failing_set: Path, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(fork_event(tmp_path)))
    github.script("create_comment", forbidden_integration())
    assert check(failing_set) == 1
    err = capsys.readouterr().err
    assert "could not post the PR comment" in err and "read-only" in err
    assert "verdict and exit code are unchanged" in err and TOKEN not in err
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert summary.startswith("## ❌ sourcegate: **fail**")

    write_golden(failing_set, ["a", "b"])  # fixed: the same 403 leaves a pass a pass
    github.script("create_comment", forbidden_integration())
    assert check(failing_set) == 0


def test_no_pull_request_no_token_no_comment(github: FakeGitHub, failing_set: Path,
                                            monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(FIXTURES / "push.json"))
    assert check(failing_set) == 1
    assert "not a pull_request event" in capsys.readouterr().err
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(FIXTURES / "pull_request.opened.json"))
    monkeypatch.delenv("GITHUB_TOKEN")
    assert check(failing_set) == 1
    assert "GITHUB_TOKEN is not set" in capsys.readouterr().err
    assert not github.requests


def test_the_comment_renders_the_same_from_the_report_artifact(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITHUB_SERVER_URL", "GITHUB_REPOSITORY", "GITHUB_RUN_ID"):
        monkeypatch.delenv(name, raising=False)
    report = regression_report()
    artifact = tmp_path / "report.json"
    artifact.write_text(JsonReporter().render(report), encoding="utf-8")
    assert main(["comment", str(artifact), "--output", str(tmp_path / "comment.md")]) == 0
    assert (tmp_path / "comment.md").read_text(encoding="utf-8") == CommentReporter().render(report)


def test_a_tampered_artifact_is_an_input_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(JsonReporter().render(regression_report()))
    data["comparison"]["cases"][0]["flipped_claims"] = [{"claim": "1; rm -rf /", "text": 3}]
    artifact = tmp_path / "report.json"
    artifact.write_text(json.dumps(data), encoding="utf-8")
    assert main(["comment", str(artifact), "--output", "-"]) == 2
    assert "$.comparison.cases[0].flipped_claims[0]" in capsys.readouterr().err


def test_every_string_of_a_tampered_artifact_is_shown_as_text(tmp_path: Path) -> None:
    """A fork can upload any report under the artifact's name: a figure label of its choosing must
    not ping, open a tag, load an image or break the summary table of the comment posted from it."""
    data = json.loads(JsonReporter().render(regression_report()))
    data["comparison"]["figures"][0]["label"] = "@octocat </details> ![p](https://evil.example/p.png) | x\n## head"
    artifact = tmp_path / "report.json"
    artifact.write_text(json.dumps(data), encoding="utf-8")
    assert main(["comment", str(artifact), "--output", str(tmp_path / "comment.md")]) == 0
    text = (tmp_path / "comment.md").read_text(encoding="utf-8")
    assert "@octocat" not in text and "@\u200boctocat" in text
    assert "</details>" not in text.split("<details>", 1)[0] and "![" not in text
    (row,) = [line for line in text.splitlines() if "octocat" in line]
    assert row.startswith("| @\u200boctocat &lt;/details&gt;") and unescaped_pipes(row) == 6
    assert not any(line.startswith("## head") for line in text.splitlines())


def test_comment_posts_to_the_pr_given_by_number(github: FakeGitHub, tmp_path: Path) -> None:
    artifact = tmp_path / "report.json"
    artifact.write_text(JsonReporter().render(regression_report()), encoding="utf-8")
    assert main(["comment", str(artifact), "--pr", "7"]) == 0
    (posted,) = github.requests_to("create_comment")
    assert posted.path.endswith(f"/repos/{REPO}/issues/7/comments")
    assert posted.json["body"].rstrip().endswith(marker("demo"))


# -- a GitHub App's token: the comment's author must be named ----------------------------------------

APP = "my-app[bot]"


def app_comment(github: FakeGitHub, number: int = 2) -> int:
    comment = github.add_comment(REPO, number, f"old report\n\n{marker('demo')}\n", login=APP, user_type="Bot")
    return int(comment["id"])


@pytest.mark.parametrize("how", ["flag", "variable", "flag wins over the variable"])
def test_an_app_authored_comment_is_updated_when_its_login_is_named(
        app_github: FakeGitHub, failing_set: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str], how: str) -> None:
    ours = app_comment(app_github)
    flags = ["--comment-author", APP] if how != "variable" else []
    if how != "flag":
        monkeypatch.setenv(COMMENT_AUTHORS_ENV, APP if how == "variable" else "someone-else[bot]")
    assert main(["check", str(failing_set), "--comment", *flags, "--markdown", str(failing_set / "o.md")]) == 1
    assert not app_github.requests_to("create_comment")
    (patched,) = app_github.requests_to("update_comment")
    assert patched.path.endswith(f"/issues/comments/{ours}")
    assert [c["id"] for c in app_github.comments(REPO, 2)] == [ours]
    assert "not an accepted comment author" not in capsys.readouterr().err


def test_an_unnamed_app_login_gets_a_new_comment_and_a_hint(
        app_github: FakeGitHub, failing_set: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    app_comment(app_github)
    # The flag wins: the variable naming the App is not read when --comment-author is given.
    monkeypatch.setenv(COMMENT_AUTHORS_ENV, APP)
    assert main(["check", str(failing_set), "--comment", "--comment-author", "other-app[bot]",
                 "--markdown", str(failing_set / "o.md")]) == 1
    assert len(app_github.requests_to("create_comment")) == 1 and not app_github.requests_to("update_comment")
    monkeypatch.delenv(COMMENT_AUTHORS_ENV)
    capsys.readouterr()
    assert check(failing_set) == 1
    assert len(app_github.comments(REPO, 2)) == 3  # the silent duplicate this hint is about
    hints = [line for line in capsys.readouterr().err.splitlines() if "not an accepted comment author" in line]
    assert len(hints) == 1
    assert "GitHub wrote the comment as my-app[bot]" in hints[0] and "next run would not recognise it" in hints[0]
    assert f"`comment-author: {APP}`" in hints[0] and f"`--comment-author '{APP}'`" in hints[0]
    assert f"{COMMENT_AUTHORS_ENV}='{APP}'" in hints[0]


def test_the_comment_command_updates_an_app_authored_comment(app_github: FakeGitHub, tmp_path: Path) -> None:
    ours = app_comment(app_github, number=7)
    artifact = tmp_path / "report.json"
    artifact.write_text(JsonReporter().render(regression_report()), encoding="utf-8")
    assert main(["comment", str(artifact), "--pr", "7", "--comment-author", APP]) == 0
    assert not app_github.requests_to("create_comment")
    (patched,) = app_github.requests_to("update_comment")
    assert patched.path.endswith(f"/issues/comments/{ours}")


@pytest.mark.parametrize("login", ["my app[bot]", "my-app[Bot]", "@my-app", "my-app[bot]x", "x;y", ""])
def test_an_invalid_comment_author_flag_is_an_input_error(
        github: FakeGitHub, failing_set: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        login: str) -> None:
    capsys.readouterr()
    assert main(["check", str(failing_set), "--comment", "--comment-author", login]) == 2
    err = capsys.readouterr().err
    assert "argument --comment-author" in err and "is not a GitHub login" in err
    artifact = tmp_path / "report.json"
    artifact.write_text(JsonReporter().render(regression_report()), encoding="utf-8")
    assert main(["comment", str(artifact), "--pr", "7", "--comment-author", login]) == 2
    assert "argument --comment-author" in capsys.readouterr().err
    assert not github.requests


def test_an_invalid_comment_authors_variable_is_an_input_error_before_any_set_runs(
        github: FakeGitHub, failing_set: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(COMMENT_AUTHORS_ENV, "my-app[bot], not a login")
    capsys.readouterr()
    out = tmp_path / "out.md"
    assert main(["check", str(failing_set), "--comment", "--markdown", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{COMMENT_AUTHORS_ENV}: 'not a login' is not a GitHub login" in err
    assert not out.exists()
    artifact = tmp_path / "report.json"
    artifact.write_text(JsonReporter().render(regression_report()), encoding="utf-8")
    assert main(["comment", str(artifact), "--pr", "7"]) == 2
    assert not github.requests
    # Without --comment the variable is not needed, so it is not read.
    assert main(["check", str(failing_set), "--markdown", str(out)]) == 1


def test_logins_and_where_they_come_from() -> None:
    assert all(is_login(x) for x in ("my-app[bot]", "octocat", "github-actions[bot]", "a-1"))
    assert not any(is_login(x) for x in ("", "my app", "my-app[bot]\n", "[bot]", "a[bot][bot]", "é"))
    assert parse_logins(" a[bot], b ,\n a[bot] ,", "X") == ("a[bot]", "b")
    assert parse_logins("", "X") == ()
    with pytest.raises(InputError, match=r"^X: 'a b' is not a GitHub login"):
        parse_logins("a b", "X")
    env = {COMMENT_AUTHORS_ENV: "from-env[bot]"}
    assert comment_authors(None, env) == ("from-env[bot]",)
    assert comment_authors(["flag[bot]", "flag[bot]"], env) == ("flag[bot]",)
    assert comment_authors([], {}) == ()
    with pytest.raises(InputError, match="^--comment-author: "):
        comment_authors(["bad login"], env)


def test_the_example_comment_leads_with_the_new_failures_and_their_sentences_and_folds_the_known() -> None:
    from tests.test_readme import example_comment

    text = example_comment()
    new, rest = text.split("### Known failures (13, already in the baseline)\n", 1)
    new = new.split("### New failures (3)\n", 1)[1]
    assert new.index("**`storm-dervla-disruption`**") < new.index("**`who-physical-activity-adults`**")
    who = ("- `fabricated_url`: cited [www\\.who\\.int/publications/i/item/9789240114319]"
           "(https://www.who.int/publications/i/item/9789240114319) but no search result, redirect or page the agent "
           "read ever showed it\n"
           "  > The 2026 update of the WHO guidelines kept these targets and added a recommendation to break up "
           "sitting every 30 minutes\\.\n")
    assert who in new
    known = rest.split("\n\n###", 1)[0]
    # One line per check, the most frequent first, with its count and cases.
    assert known.splitlines()[:2] == ["", "- `stale_sources`: 2 in `ecb-deposit-rate-now`, `uk-fixed-mortgage-rates`"]
    assert "- `passage_missing`: 1 in `solar-wind-vs-coal-2025`" in known
    assert len([line for line in known.splitlines() if line.startswith("- ")]) == 8
    assert "| check |" not in text and "|---|---|---|" not in text  # the one table left is the figures'


def test_the_job_summary_keeps_the_comments_order_and_lists_every_known_failure() -> None:
    from tests.test_readme import example_report

    text = SummaryReporter().render(example_report())
    order = [text.index(h) for h in ("### New failures (3)", "### Known failures (13", "### Cases that changed (3)",
                                     "### All cases")]
    assert order == sorted(order)
    known = text.split("### Known failures", 1)[1].split("### Cases that changed", 1)[0]
    assert known.count("\n- `") == 13 and "**`four-day-week-evidence`**" in known


def test_comment_with_pages_the_base_never_recorded_matches_its_golden_file() -> None:
    assert_golden("comment_frozen_web.md", CommentReporter().render(frozen_web_report()))


def test_markdown_report_lists_the_pages_recorded_in_the_pull_request() -> None:
    text = MarkdownReporter().render(frozen_web_report())
    section = text.split("### Pages recorded in this pull request (2)", 1)[1].split("###", 1)[0]
    assert "- `delta`: [news\\.example\\.com/2024/07/rust\\-1\\-80\\-released]" \
           "(https://news.example.com/2024/07/rust-1-80-released)" in section
    assert "read them before approving" in section
