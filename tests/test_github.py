"""Tests of gate.github against a real HTTP server on loopback (tests/support/github_server.py)."""

from __future__ import annotations

import copy
import json
import logging
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from gate.errors import GateError
from gate.github import (
    ACTIONS_BOT_LOGIN,
    DEFAULT_AUTHOR_LOGINS,
    FORK_HINT,
    MARKER_PREFIX,
    MAX_COMMENT_CHARS,
    GitHubClient,
    GitHubError,
    PullRequestContext,
    find_own_comment,
    marker,
    pr_context_from_env,
    upsert_comment,
    with_marker,
)
from tests.support.github_server import (
    ACTIONS_BOT,
    FIXTURES,
    FakeGitHub,
    Reply,
    forbidden_integration,
    not_found,
    primary_rate_limit,
    rate_limited,
    secondary_rate_limit,
    server_error,
    validate_component,
    validate_issue_comment,
    validation_failed,
)

TOKEN = "ghs_S3cretTokenThatMustNeverLeak000000000"
REPO = "Codertocat/Hello-World"
PR = 2
BOT: dict[str, str] = {"login": str(ACTIONS_BOT["login"]), "user_type": "Bot"}


@pytest.fixture
def server() -> Iterator[FakeGitHub]:
    with FakeGitHub(token=TOKEN) as fake:
        yield fake


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def client(server: FakeGitHub, sleeps: list[float]) -> Iterator[GitHubClient]:
    # sleep=sleeps.append: the delays are recorded, nothing really waits.
    with GitHubClient(server.base_url, TOKEN, sleep=sleeps.append) as github:
        yield github


def _methods(server: FakeGitHub) -> list[str]:
    return [f"{r.method} {r.route}" for r in server.requests]


# --------------------------------------------------------------------------------------------
# Requests on the wire


def test_headers_and_pagination_follow_links_to_the_end(server: FakeGitHub, client: GitHubClient) -> None:
    for i in range(250):
        server.add_comment(REPO, PR, f"comment {i}")

    comments = client.list_comments(REPO, PR)

    assert [c["body"] for c in comments] == [f"comment {i}" for i in range(250)]
    listing = server.requests_to("list_comments")
    assert [r.query.get("page", ["1"])[0] for r in listing] == ["1", "2", "3"]
    assert listing[0].path == f"/repos/{REPO}/issues/{PR}/comments"
    assert listing[0].query == {"per_page": ["100"]}
    # The later pages come from the Link header verbatim (GitHub's /repositories/{id}/... form).
    assert listing[1].path.startswith("/repositories/")
    assert listing[1].query == {"per_page": ["100"], "page": ["2"]}
    for request in listing:
        assert request.header("authorization") == f"Bearer {TOKEN}"
        assert request.header("accept") == "application/vnd.github+json"
        assert request.header("x-github-api-version") == "2022-11-28"
        assert request.header("user-agent") == "sourcegate"


def test_fake_link_header_has_githubs_shape() -> None:
    # The rel names and their order on the first, middle and last pages, as recorded from GitHub.
    recorded = json.loads((FIXTURES / "octokit.paginate-issues.normalized-fixture.json").read_text())

    def rels(link_header: str) -> list[str]:
        return [part.split('rel="')[1].rstrip('"') for part in link_header.split(", ")]

    expected = [rels(entry["headers"]["link"]) for entry in recorded]
    with FakeGitHub(token=TOKEN) as fake, requests.Session() as session:
        for i in range(15):
            fake.add_comment(REPO, PR, f"c{i}")
        got = []
        for page in range(1, 6):
            response = session.get(
                f"{fake.base_url}/repos/{REPO}/issues/{PR}/comments",
                params={"per_page": 3, "page": page},
                headers={"Authorization": f"Bearer {TOKEN}"},
            )
            got.append(rels(response.headers["link"]))
            assert len(response.json()) == 3
    assert got == expected


def test_fake_replies_fit_the_openapi_schemas(server: FakeGitHub, client: GitHubClient) -> None:
    created = client.create_comment(REPO, PR, "hello")
    updated = client.update_comment(REPO, int(created["id"]), "hello again")
    listed = client.list_comments(REPO, PR)
    for comment in (created, updated, *listed):
        validate_issue_comment(comment)
    assert updated["body"] == "hello again"
    assert listed == [updated]


def test_fake_checks_request_bodies_and_credentials(server: FakeGitHub) -> None:
    url = f"{server.base_url}/repos/{REPO}/issues/{PR}/comments"
    with requests.Session() as session:
        invalid = session.post(
            url, json={"text": "no body field"}, headers={"Authorization": f"Bearer {TOKEN}"}
        )
        wrong_type = session.post(url, json={"body": 42}, headers={"Authorization": f"Bearer {TOKEN}"})
        anonymous = session.post(url, json={"body": "hi"})
    assert invalid.status_code == 422
    validate_component("validation-error", invalid.json())
    assert invalid.json()["errors"] == [
        {"resource": "IssueComment", "code": "missing_field", "field": "body"}
    ]
    assert wrong_type.status_code == 422
    assert wrong_type.json()["errors"][0]["code"] == "invalid"
    assert anonymous.status_code == 401
    assert anonymous.json()["message"] == "Bad credentials"
    assert server.comments(REPO, PR) == []


# --------------------------------------------------------------------------------------------
# upsert_comment


def test_marker_comment_on_second_page_is_updated_not_duplicated(
    server: FakeGitHub, client: GitHubClient
) -> None:
    for i in range(120):
        server.add_comment(REPO, PR, f"chatter {i}")
    ours = server.add_comment(REPO, PR, f"old report\n\n{marker('example')}\n", **BOT)
    server.add_comment(REPO, PR, "more chatter")

    result = upsert_comment(client, REPO, PR, "example", "new report")

    assert result.action == "updated"
    assert result.comment_id == ours["id"]
    assert result.url == ours["html_url"]
    assert not server.requests_to("create_comment")
    patches = server.requests_to("update_comment")
    assert [r.path for r in patches] == [f"/repos/{REPO}/issues/comments/{ours['id']}"]
    assert patches[0].json == {"body": f"new report\n\n{marker('example')}\n"}
    bodies = [c["body"] for c in server.comments(REPO, PR)]
    assert len(bodies) == 122
    assert bodies[120] == f"new report\n\n{marker('example')}\n"


def test_marker_planted_by_another_user_is_ignored(server: FakeGitHub, client: GitHubClient) -> None:
    planted = server.add_comment(REPO, PR, f"gotcha\n{marker('example')}", login="mallory")

    result = upsert_comment(client, REPO, PR, "example", "report")

    assert result.action == "created"
    assert result.comment_id != planted["id"]
    assert not server.requests_to("update_comment")
    comments = server.comments(REPO, PR)
    assert comments[0]["body"] == planted["body"]
    assert comments[1]["user"]["login"] == ACTIONS_BOT_LOGIN
    assert comments[1]["body"].endswith(marker("example") + "\n")


def test_no_marker_creates_then_later_runs_update_the_same_comment(
    server: FakeGitHub, client: GitHubClient
) -> None:
    server.add_comment(REPO, PR, "LGTM")
    server.add_comment(REPO, PR, f"another golden set\n{marker('other')}", **BOT)

    first = upsert_comment(client, REPO, PR, "example", "run 1")
    second = upsert_comment(client, REPO, PR, "example", "run 2")

    assert (first.action, second.action) == ("created", "updated")
    assert first.comment_id == second.comment_id
    assert first.url is not None and first.url.endswith(f"#issuecomment-{first.comment_id}")
    ours = [c for c in server.comments(REPO, PR) if marker("example") in c["body"]]
    assert [c["body"] for c in ours] == [f"run 2\n\n{marker('example')}\n"]
    # GET /user is asked once (403 for an Actions token) and the answer is remembered.
    assert len(server.requests_to("get_user")) == 1


def test_personal_token_login_is_an_accepted_author() -> None:
    with FakeGitHub(token=TOKEN, login="octocat") as fake, GitHubClient(fake.base_url, TOKEN) as github:
        assert github.authenticated_login() == "octocat"
        mine = fake.add_comment(REPO, PR, f"x\n{marker('example')}", login="octocat")
        result = upsert_comment(github, REPO, PR, "example", "y")
    assert (result.action, result.comment_id) == ("updated", mine["id"])


def test_explicit_author_logins_replace_the_default(server: FakeGitHub, client: GitHubClient) -> None:
    server.add_comment(REPO, PR, f"x\n{marker('example')}", **BOT)
    result = upsert_comment(
        client, REPO, PR, "example", "y", author_logins=frozenset({"sourcegate-app[bot]"})
    )
    assert result.action == "created"
    assert not server.requests_to("get_user")


def test_an_app_token_comment_is_updated_only_when_its_login_is_named() -> None:
    """A GitHub App's token writes as ``<slug>[bot]`` and gets 403 from ``GET /user``: neither
    default tells that login, so without naming it every run would post a new comment."""
    with FakeGitHub(token=TOKEN, app="my-app") as fake, GitHubClient(fake.base_url, TOKEN) as github:
        mine = fake.add_comment(REPO, PR, f"old\n{marker('example')}", login="my-app[bot]", user_type="Bot")
        result = upsert_comment(github, REPO, PR, "example", "new", extra_authors=("my-app[bot]",))
        assert (result.action, result.comment_id, result.unrecognised_author) == ("updated", mine["id"], None)
        assert not fake.requests_to("create_comment")
        assert len(fake.requests_to("update_comment")) == 1

        # Not named: a second comment, and the result says which login the next run should accept.
        unnamed = upsert_comment(github, REPO, PR, "example", "again")
        assert (unnamed.action, unnamed.unrecognised_author) == ("created", "my-app[bot]")
        assert len(fake.requests_to("get_user")) == 1  # 403, asked once, remembered


def test_named_authors_are_added_to_the_defaults(server: FakeGitHub, client: GitHubClient) -> None:
    ours = server.add_comment(REPO, PR, f"x\n{marker('example')}", **BOT)
    result = upsert_comment(client, REPO, PR, "example", "y", extra_authors=("my-app[bot]",))
    assert (result.action, result.comment_id) == ("updated", ours["id"])
    assert len(server.requests_to("get_user")) == 1
    # A comment created by an accepted author needs no hint.
    created = upsert_comment(client, REPO, PR, "other", "z", extra_authors=("my-app[bot]",))
    assert (created.action, created.unrecognised_author) == ("created", None)


def test_create_that_failed_after_writing_is_found_not_repeated(
    server: FakeGitHub, client: GitHubClient
) -> None:
    # GitHub created the comment but the proxy answered 502: listing again finds it, no duplicate.
    server.script("create_comment", Reply(502, "<html>Bad gateway</html>", apply=True))

    result = upsert_comment(client, REPO, PR, "example", "report")

    assert result.action == "updated"
    assert _methods(server) == [
        "GET get_user",
        "GET list_comments",
        "POST create_comment",
        "GET list_comments",
        "PATCH update_comment",
    ]
    assert len(server.comments(REPO, PR)) == 1


def test_create_that_failed_before_writing_is_retried(
    server: FakeGitHub, client: GitHubClient, sleeps: list[float]
) -> None:
    server.script("create_comment", server_error(500))

    result = upsert_comment(client, REPO, PR, "example", "report")

    assert result.action == "created"
    assert len(server.requests_to("create_comment")) == 2
    assert len(server.comments(REPO, PR)) == 1
    assert sleeps == [1.0]


def test_too_long_body_is_refused_before_any_write(server: FakeGitHub, client: GitHubClient) -> None:
    with pytest.raises(GitHubError, match="at most 65536"):
        upsert_comment(client, REPO, PR, "example", "x" * MAX_COMMENT_CHARS)
    assert not server.requests_to("create_comment")


# --------------------------------------------------------------------------------------------
# Retries


def test_5xx_then_success_is_retried_with_backoff(
    server: FakeGitHub, client: GitHubClient, sleeps: list[float]
) -> None:
    server.add_comment(REPO, PR, "hi")
    server.script("list_comments", server_error(502), server_error(500))

    assert [c["body"] for c in client.list_comments(REPO, PR)] == ["hi"]
    assert sleeps == [1.0, 2.0]
    assert len(server.requests_to("list_comments")) == 3


def test_dropped_connection_is_retried(server: FakeGitHub, client: GitHubClient, sleeps: list[float]) -> None:
    server.script("list_comments", Reply(0, drop=True))
    assert client.list_comments(REPO, PR) == []
    assert sleeps == [1.0]


def test_patch_is_retried_on_5xx(server: FakeGitHub, client: GitHubClient, sleeps: list[float]) -> None:
    comment = server.add_comment(REPO, PR, "x", **BOT)
    server.script("update_comment", server_error(503))
    assert client.update_comment(REPO, comment["id"], "y")["body"] == "y"
    assert sleeps == [1.0]


def test_429_retry_after_is_honoured(server: FakeGitHub, client: GitHubClient, sleeps: list[float]) -> None:
    server.script("create_comment", rate_limited(retry_after=7))
    assert client.create_comment(REPO, PR, "x")["body"] == "x"
    assert sleeps == [7.0]
    assert len(server.comments(REPO, PR)) == 1


def test_secondary_rate_limit_403_is_retried(
    server: FakeGitHub, client: GitHubClient, sleeps: list[float]
) -> None:
    server.script("create_comment", secondary_rate_limit(retry_after=3), secondary_rate_limit())
    client.create_comment(REPO, PR, "x")
    # With retry-after, exactly that; without, GitHub asks for at least a minute.
    assert sleeps == [3.0, 60.0]


def test_primary_rate_limit_waits_until_reset(server: FakeGitHub, sleeps: list[float]) -> None:
    server.script("list_comments", primary_rate_limit(reset_epoch=1_700_000_010))
    with GitHubClient(server.base_url, TOKEN, sleep=sleeps.append, clock=lambda: 1_700_000_000.0) as github:
        github.list_comments(REPO, PR)
    assert sleeps == [11.0]


def test_wait_beyond_the_sleep_budget_fails_at_once(server: FakeGitHub, sleeps: list[float]) -> None:
    server.script("create_comment", rate_limited(retry_after=3600))
    with (
        GitHubClient(server.base_url, TOKEN, sleep=sleeps.append, max_total_sleep=120) as github,
        pytest.raises(GitHubError) as caught,
    ):
        github.create_comment(REPO, PR, "x")
    assert caught.value.status == 429
    assert "API rate limit exceeded" in str(caught.value)
    # A rate limit is not a permissions problem: no fork hint.
    assert FORK_HINT not in str(caught.value)
    assert sleeps == []


def test_retries_stop_after_max_retries(server: FakeGitHub, sleeps: list[float]) -> None:
    server.script("list_comments", *[server_error(502)] * 5)
    with (
        GitHubClient(server.base_url, TOKEN, sleep=sleeps.append, max_retries=2, backoff=0.5) as github,
        pytest.raises(GitHubError) as caught,
    ):
        github.list_comments(REPO, PR)
    assert caught.value.status == 502
    assert sleeps == [0.5, 1.0]
    assert len(server.requests_to("list_comments")) == 3


# --------------------------------------------------------------------------------------------
# Errors


def test_403_on_create_gives_the_fork_hint_without_retry(
    server: FakeGitHub, client: GitHubClient, sleeps: list[float]
) -> None:
    server.script("create_comment", forbidden_integration())
    with pytest.raises(GitHubError) as caught:
        upsert_comment(client, REPO, PR, "example", "report")
    error = caught.value
    assert isinstance(error, GateError)
    assert error.status == 403
    assert str(error) == (
        f"GitHub API POST /repos/{REPO}/issues/{PR}/comments failed: HTTP 403: "
        f"Resource not accessible by integration; {FORK_HINT}"
    )
    assert isinstance(error.__cause__, requests.HTTPError)
    assert len(server.requests_to("create_comment")) == 1
    assert sleeps == []


def test_403_on_update_gives_the_fork_hint(server: FakeGitHub, client: GitHubClient) -> None:
    comment = server.add_comment(REPO, PR, f"x\n{marker('example')}", **BOT)
    server.script("update_comment", forbidden_integration())
    with pytest.raises(GitHubError, match="fork-safe workflow") as caught:
        upsert_comment(client, REPO, PR, "example", "y")
    assert f"PATCH /repos/{REPO}/issues/comments/{comment['id']}" in str(caught.value)


def test_404_carries_githubs_message(server: FakeGitHub, client: GitHubClient, sleeps: list[float]) -> None:
    server.script("list_comments", not_found())
    with pytest.raises(GitHubError) as caught:
        client.list_comments(REPO, PR)
    assert caught.value.status == 404
    assert (
        str(caught.value) == f"GitHub API GET /repos/{REPO}/issues/{PR}/comments failed: HTTP 404: Not Found"
    )
    assert sleeps == []


def test_422_carries_githubs_message_and_errors(server: FakeGitHub, client: GitHubClient) -> None:
    server.script("create_comment", validation_failed())
    with pytest.raises(GitHubError) as caught:
        client.create_comment(REPO, PR, "x")
    assert caught.value.status == 422
    assert str(caught.value).endswith("HTTP 422: Validation Failed (Label.color: invalid)")
    assert len(server.requests_to("create_comment")) == 1


def test_non_json_error_body(server: FakeGitHub, sleeps: list[float]) -> None:
    server.script("list_comments", server_error(502))
    with (
        GitHubClient(server.base_url, TOKEN, sleep=sleeps.append, max_retries=0) as github,
        pytest.raises(GitHubError, match=r"failed: HTTP 502$"),
    ):
        github.list_comments(REPO, PR)


def test_refuses_to_follow_a_link_to_another_host(server: FakeGitHub, client: GitHubClient) -> None:
    # localhost:1 is never contacted: the check happens before any request.
    server.script("list_comments", Reply(200, [], {"link": '<http://localhost:1/x?page=2>; rel="next"'}))
    with pytest.raises(GitHubError, match="refusing to follow a pagination link to another host"):
        client.list_comments(REPO, PR)
    assert len(server.requests) == 1


def test_bad_arguments_are_refused_before_any_request(server: FakeGitHub, client: GitHubClient) -> None:
    for repo in ("no-slash", "a/b/c", "a/..", "a/b?x=1"):
        with pytest.raises(GitHubError, match="owner/name"):
            client.list_comments(repo, PR)
    with pytest.raises(GitHubError, match="positive integer"):
        client.update_comment(REPO, 0, "x")
    assert server.requests == []


def _error_texts(error: BaseException) -> list[str]:
    texts: list[str] = []
    current: BaseException | None = error
    while current is not None:
        texts += [str(current), repr(current), *map(str, current.args)]
        current = current.__cause__ or current.__context__
    return texts


def test_token_never_appears_in_errors_logs_or_repr(
    server: FakeGitHub, sleeps: list[float], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    errors: list[GitHubError] = []
    with GitHubClient(server.base_url, TOKEN, sleep=sleeps.append, max_retries=1) as github:
        assert TOKEN not in repr(github) and TOKEN not in str(vars(github).get("api_url"))
        # A server that echoes the credentials back (some proxies do) must not make us repeat them.
        server.script("list_comments", Reply(400, {"message": f"bad header Authorization: Bearer {TOKEN}"}))
        server.script("create_comment", server_error(500), forbidden_integration())
        for call in (
            lambda: github.list_comments(REPO, PR),
            lambda: github.create_comment(REPO, PR, "x"),
            lambda: github.create_comment(REPO, PR, "x"),
        ):
            with pytest.raises(GitHubError) as caught:
                call()
            errors.append(caught.value)
        server.script("list_comments", server_error(502), server_error(502))
        with pytest.raises(GitHubError) as caught:
            github.list_comments(REPO, PR)
        errors.append(caught.value)

    with GitHubClient(server.base_url, "wrong-" + TOKEN) as github, pytest.raises(GitHubError) as caught:
        github.list_comments(REPO, PR)
    assert caught.value.status == 401 and "Bad credentials" in str(caught.value)
    errors.append(caught.value)

    # A connection refused on a loopback port nobody listens on.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        closed_port = probe.getsockname()[1]
    with (
        GitHubClient(f"http://127.0.0.1:{closed_port}", TOKEN, sleep=sleeps.append, max_retries=1) as github,
        pytest.raises(GitHubError) as caught,
    ):
        github.list_comments(REPO, PR)
    assert caught.value.status is None and "could not reach" in str(caught.value)
    errors.append(caught.value)

    assert "***" in str(errors[0])
    for error in errors:
        for text in _error_texts(error):
            assert TOKEN not in text
    assert caplog.records, "retries should have been logged"
    assert TOKEN not in caplog.text


# --------------------------------------------------------------------------------------------
# GitHub Enterprise


def test_enterprise_prefix_is_kept() -> None:
    with FakeGitHub(token=TOKEN, prefix="/api/v3") as fake:
        for i in range(101):
            fake.add_comment(REPO, PR, f"c{i}")
        mine = fake.add_comment(REPO, PR, f"x\n{marker('example')}", **BOT)
        with GitHubClient(fake.base_url + "/", TOKEN) as github:
            assert github.api_url.endswith("/api/v3")
            result = upsert_comment(github, REPO, PR, "example", "y")
        paths = [r.path for r in fake.requests]
    assert (result.action, result.comment_id) == ("updated", mine["id"])
    assert paths and all(p.startswith("/api/v3/") for p in paths)
    assert f"/api/v3/repos/{REPO}/issues/comments/{mine['id']}" in paths
    assert any(p.startswith("/api/v3/repositories/") for p in paths)


# --------------------------------------------------------------------------------------------
# Marker and find_own_comment (pure)


def _comment(comment_id: int, body: str, login: str = ACTIONS_BOT_LOGIN) -> dict[str, Any]:
    return {"id": comment_id, "body": body, "user": {"login": login, "type": "Bot"}}


def test_marker_format_and_key_sanitizing() -> None:
    assert marker("example") == "<!-- sourcegate:comment key=example -->"
    assert marker("my set/v1.2_x") == "<!-- sourcegate:comment key=my-set-v1.2_x -->"
    hostile = marker("x --><img src=y>")
    assert hostile.startswith(MARKER_PREFIX) and hostile.count("-->") == 1 and "<img" not in hostile
    assert marker("") == "<!-- sourcegate:comment key=default -->"
    assert len(marker("k" * 500)) < 150


def test_with_marker_appends_once() -> None:
    once = with_marker("report\n", "example")
    assert once == f"report\n\n{marker('example')}\n"
    assert with_marker(once, "example") == once
    assert with_marker("", "example") == f"{marker('example')}\n"


def test_find_own_comment_rules() -> None:
    authors = DEFAULT_AUTHOR_LOGINS
    line = marker("example")
    comments = [
        _comment(5, f"quoted inline {line} is not a marker line"),
        _comment(6, f"x\n{marker('example2')}"),
        _comment(7, f"x\n{line}", login="mallory"),
        _comment(9, f"newer\n{line}"),
        _comment(8, f"older\n  {line}  \n"),
        {"id": 3, "body": None, "user": None},
        {"id": "2", "body": line, "user": {"login": ACTIONS_BOT_LOGIN}},
    ]
    found = find_own_comment(comments, "example", authors)
    assert found is not None and found["id"] == 8
    assert find_own_comment(comments, "example", frozenset({"mallory"})) == comments[2]
    assert find_own_comment(comments, "missing", authors) is None
    assert find_own_comment([], "example", authors) is None


# --------------------------------------------------------------------------------------------
# pr_context_from_env on real webhook payloads


def _env(event_path: Path, **extra: str) -> dict[str, str]:
    return {"GITHUB_EVENT_PATH": str(event_path), "GITHUB_REPOSITORY": REPO, **extra}


@pytest.mark.parametrize("name", ["pull_request.opened.json", "pull_request.synchronize.json"])
def test_pr_context_from_real_payloads(name: str) -> None:
    ctx = pr_context_from_env(_env(FIXTURES / name))
    assert ctx == PullRequestContext(
        api_url="https://api.github.com",
        repository=REPO,
        number=2,
        base_sha="f95f852bd8fca8fcc58a9a2d6c842781e32a215e",
        head_sha="ec26c3e57ca3a959ca5aad62de7213c562f8c821",
        is_fork=False,
    )


def test_pr_context_fork_and_deleted_fork(tmp_path: Path) -> None:
    event = json.loads((FIXTURES / "pull_request.opened.json").read_text())
    fork = copy.deepcopy(event)
    fork["pull_request"]["head"]["repo"]["full_name"] = "mallory/Hello-World"
    (tmp_path / "fork.json").write_text(json.dumps(fork))
    deleted = copy.deepcopy(event)
    deleted["pull_request"]["head"]["repo"] = None
    (tmp_path / "deleted.json").write_text(json.dumps(deleted))

    fork_ctx = pr_context_from_env(_env(tmp_path / "fork.json"))
    deleted_ctx = pr_context_from_env(_env(tmp_path / "deleted.json"))

    assert fork_ctx is not None and fork_ctx.is_fork and fork_ctx.repository == REPO
    assert deleted_ctx is not None and deleted_ctx.is_fork
    assert deleted_ctx.head_sha == "ec26c3e57ca3a959ca5aad62de7213c562f8c821"


def test_pr_context_push_or_no_event_is_none() -> None:
    assert pr_context_from_env(_env(FIXTURES / "push.json")) is None
    assert pr_context_from_env({"GITHUB_REPOSITORY": REPO}) is None


def test_pr_context_enterprise_api_url_and_repository_fallback() -> None:
    env = {
        "GITHUB_EVENT_PATH": str(FIXTURES / "pull_request.opened.json"),
        "GITHUB_API_URL": "https://ghe.example.com/api/v3/",
    }
    ctx = pr_context_from_env(env)
    assert ctx is not None
    assert ctx.api_url == "https://ghe.example.com/api/v3"
    # Without GITHUB_REPOSITORY the base repository of the event is used.
    assert ctx.repository == REPO


def test_pr_context_unreadable_event(tmp_path: Path) -> None:
    (tmp_path / "broken.json").write_text("{not json")
    with pytest.raises(GitHubError, match="GITHUB_EVENT_PATH"):
        pr_context_from_env(_env(tmp_path / "broken.json"))
    with pytest.raises(GitHubError, match="GITHUB_EVENT_PATH"):
        pr_context_from_env(_env(tmp_path / "missing.json"))


# --------------------------------------------------------------------------------------------
# Deadlines: a reply trickled a byte at a time never trips a read timeout

# About 330 bytes at 0.05 s each: 16 s to send, every byte well within the 5 s read timeout. The
# calls below end in a fraction of a second only because of the deadlines (passed small here; in
# production they are tens of seconds); without them the reply would arrive.
_SLOW = Reply(200, [{"id": 1, "body": "x" * 300}], trickle=0.05)


def test_a_trickled_reply_is_a_github_error_at_the_request_deadline(server: FakeGitHub) -> None:
    server.script("list_comments", _SLOW)
    with (GitHubClient(server.base_url, TOKEN, timeout=5, request_deadline=0.25, max_retries=0) as github,
          pytest.raises(GitHubError, match=r"no complete reply .* within the deadline \(0.25s a request")):
        github.list_comments(REPO, PR)


def test_the_whole_upsert_shares_one_deadline(server: FakeGitHub, sleeps: list[float]) -> None:
    server.script("list_comments", *[_SLOW] * 5)
    with (GitHubClient(server.base_url, TOKEN, sleep=sleeps.append, backoff=0.01, timeout=5,
                       request_deadline=0.3, deadline=0.55) as github,
          pytest.raises(GitHubError, match="deadline")):
        upsert_comment(github, REPO, PR, "example", "body", author_logins=frozenset({"someone"}))
    # One retry fitted in the 0.55 s (and was cut short by them); the next attempt would have gone past
    # the operation's deadline.
    assert len(server.requests_to("list_comments")) == 2
    assert server.requests_to("create_comment") == []
