"""sourcegate's own pull-request comment: the hidden marker, finding it, and creating or updating it.

A comment is ours only if it carries the exact marker line **and** was written by an accepted
author. Anyone can paste the marker into a comment; matching on the marker alone would let them
make sourcegate overwrite (or fail to update) the wrong comment.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from gate.errors import GitHubError
from gate.github.client import GitHubClient, UncertainWrite
from gate.github.retry import RetryBudget
from gate.text.marker import MARKER_PREFIX, marker

__all__ = [
    "ACTIONS_BOT_LOGIN",
    "DEFAULT_AUTHOR_LOGINS",
    "MARKER_PREFIX",
    "MAX_COMMENT_CHARS",
    "UpsertResult",
    "find_own_comment",
    "marker",
    "upsert_comment",
    "with_marker",
]

#: The author of comments made with an Actions ``GITHUB_TOKEN``. Square brackets cannot appear in a
#: user's login, so nobody can register this name and impersonate the bot.
ACTIONS_BOT_LOGIN = "github-actions[bot]"
DEFAULT_AUTHOR_LOGINS: frozenset[str] = frozenset({ACTIONS_BOT_LOGIN})

#: GitHub rejects issue comments longer than this (HTTP 422 "Body is too long").
MAX_COMMENT_CHARS = 65536



def _has_marker_line(body: str, line: str) -> bool:
    # Whole-line match, so key=example does not also match key=example2 or a quoted marker.
    return any(candidate.strip() == line for candidate in body.splitlines())


def with_marker(body: str, key: str) -> str:
    """Return ``body`` ending with the marker line for ``key`` (unchanged if it already has it)."""
    line = marker(key)
    if _has_marker_line(body, line):
        return body
    return f"{body.rstrip()}\n\n{line}\n" if body.strip() else f"{line}\n"


def find_own_comment(
    comments: Sequence[Mapping[str, Any]], key: str, author_logins: frozenset[str]
) -> Mapping[str, Any] | None:
    """Pick sourcegate's comment for ``key`` from a list of issue comments, or None.

    A comment counts only if its body has the exact marker line and its ``user.login`` is in
    ``author_logins``: someone else pasting the marker must not take over the comment. When several
    count, the oldest (lowest id) wins, so the choice is stable from run to run.
    """
    line = marker(key)
    best: Mapping[str, Any] | None = None
    best_id = 0
    for comment in comments:
        comment_id = comment.get("id")
        body = comment.get("body")
        user = comment.get("user")
        login = user.get("login") if isinstance(user, Mapping) else None
        if not isinstance(comment_id, int) or isinstance(comment_id, bool) or not isinstance(body, str):
            continue
        if login not in author_logins or not _has_marker_line(body, line):
            continue
        if best is None or comment_id < best_id:
            best, best_id = comment, comment_id
    return best


@dataclass(frozen=True)
class UpsertResult:
    """What :func:`upsert_comment` did, and where the comment is.

    ``unrecognised_author`` is the login GitHub wrote a created comment as when it is not one of
    the accepted authors (a GitHub App's ``<slug>[bot]`` that nobody named): the next run would
    not recognise that comment and would post a second one. None otherwise.
    """

    action: Literal["created", "updated"]
    comment_id: int
    url: str | None
    unrecognised_author: str | None = None


def upsert_comment(
    client: GitHubClient,
    repo: str,
    number: int,
    key: str,
    body: str,
    *,
    author_logins: frozenset[str] | None = None,
    extra_authors: Iterable[str] = (),
) -> UpsertResult:
    """Create sourcegate's comment for ``key`` on pull request ``number``, or update it in place.

    ``author_logins`` are the authors whose marked comment may be updated; by default
    :data:`DEFAULT_AUTHOR_LOGINS` plus the token owner's login when ``GET /user`` answers.
    ``extra_authors`` are added to them: the login a GitHub App's token writes as
    (``<slug>[bot]``), which neither the default nor ``GET /user`` (403 for such a token) can tell.
    The marker line is appended to ``body`` if missing. A second comment is never created while
    one is found; when a create fails in a way that may have created it anyway (5xx, lost
    connection), the comments are listed again before anything else is tried. The whole upsert
    shares the client's one total deadline (:meth:`GitHubClient.operation`).
    """
    with client.operation():
        return _upsert(client, repo, number, key, body, author_logins, extra_authors)


def _upsert(client: GitHubClient, repo: str, number: int, key: str, body: str,
            author_logins: frozenset[str] | None, extra_authors: Iterable[str]) -> UpsertResult:
    if author_logins is None:
        login = client.authenticated_login()
        author_logins = DEFAULT_AUTHOR_LOGINS | ({login} if login else frozenset())
    author_logins = author_logins | frozenset(extra_authors)
    full_body = with_marker(body, key)
    if len(full_body) > MAX_COMMENT_CHARS:
        raise GitHubError(
            f"the comment for {key!r} is {len(full_body)} characters; "
            f"GitHub accepts at most {MAX_COMMENT_CHARS}"
        )

    budget = RetryBudget(client.retry_policy)
    while True:
        existing = find_own_comment(client.list_comments(repo, number), key, author_logins)
        if existing is not None:
            comment_id = int(existing["id"])
            updated = client.update_comment(repo, comment_id, full_body)
            return UpsertResult("updated", comment_id, _html_url(updated, existing))
        try:
            created = client.create_comment(repo, number, full_body)
        except UncertainWrite as exc:
            delay = budget.backoff_delay()
            if client.has_time_for(delay) and budget.wait(delay, f"POST comment on {repo}#{number}", str(exc)):
                continue
            raise
        created_id = created.get("id")
        if not isinstance(created_id, int) or isinstance(created_id, bool):
            raise GitHubError(f"GitHub API POST comment on {repo}#{number}: reply has no comment id")
        user = created.get("user")
        author = user.get("login") if isinstance(user, Mapping) else None
        foreign = author if isinstance(author, str) and author not in author_logins else None
        return UpsertResult("created", created_id, _html_url(created, None), foreign)


def _html_url(comment: Mapping[str, Any], fallback: Mapping[str, Any] | None) -> str | None:
    for source in (comment, fallback or {}):
        url = source.get("html_url")
        if isinstance(url, str) and url:
            return url
    return None
