"""The one module that talks to the GitHub REST API.

sourcegate posts a single pull-request comment per golden set and edits it in place on every run.
This module finds the pull request from the Actions environment (:func:`pr_context_from_env`),
lists, creates and updates issue comments (:class:`GitHubClient`), recognises its own comment
(:func:`find_own_comment`) and glues these together (:func:`upsert_comment`).

Choices worth knowing:

* A comment is ours only if it carries the exact marker line **and** was written by an accepted
  author. Anyone can paste the marker into a comment; matching on the marker alone would let them
  make sourcegate overwrite (or fail to update) the wrong comment.
* Every ``requests`` exception and every non-2xx reply is turned into :class:`GitHubError` in one
  place (``GitHubClient._send``), so callers handle one error type. Messages name the method and
  the URL path, never the query string or the token.
* Retries: 5xx, 429, secondary rate limits and connection failures are retried with exponential
  backoff, honouring ``retry-after``; the total sleep of one call is capped. A POST is not blindly
  repeated after a 5xx or a lost connection, because GitHub may have created the comment already;
  :func:`upsert_comment` instead lists the comments again and updates the one it finds.
"""

from __future__ import annotations

import email.utils
import json
import logging
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NoReturn
from urllib.parse import quote, urlsplit

import requests

from gate.errors import GitHubError

__all__ = [
    "ACTIONS_BOT_LOGIN",
    "DEFAULT_API_URL",
    "DEFAULT_AUTHOR_LOGINS",
    "FORK_HINT",
    "MARKER_PREFIX",
    "MAX_COMMENT_CHARS",
    "GitHubClient",
    "GitHubError",
    "PullRequestContext",
    "UpsertResult",
    "find_own_comment",
    "marker",
    "pr_context_from_env",
    "upsert_comment",
    "with_marker",
]

log = logging.getLogger(__name__)

DEFAULT_API_URL = "https://api.github.com"
API_VERSION = "2022-11-28"
USER_AGENT = "sourcegate"

#: The author of comments made with an Actions ``GITHUB_TOKEN``. Square brackets cannot appear in a
#: user's login, so nobody can register this name and impersonate the bot.
ACTIONS_BOT_LOGIN = "github-actions[bot]"
DEFAULT_AUTHOR_LOGINS: frozenset[str] = frozenset({ACTIONS_BOT_LOGIN})

MARKER_PREFIX = "<!-- sourcegate:comment"

#: GitHub rejects issue comments longer than this (HTTP 422 "Body is too long").
MAX_COMMENT_CHARS = 65536

FORK_HINT = (
    "the token cannot write to this pull request (a fork PR's token is read-only); "
    "see the README's fork-safe workflow"
)

# Owner and repository names on GitHub use only these characters; checking them keeps a hostile
# GITHUB_REPOSITORY or argument from steering requests to another API path.
_REPO_RE = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
_KEY_UNSAFE_RE = re.compile(r"[^A-Za-z0-9._-]")
_MAX_KEY_CHARS = 100
# A runaway Link chain (or a server that links a page to itself) must not loop forever:
# 1000 pages of 100 is far more comments than any pull request has.
_MAX_PAGES = 1000
# GitHub asks clients to wait at least a minute after a secondary rate limit without retry-after.
_SECONDARY_LIMIT_MIN_WAIT = 60.0
_MAX_ERROR_TEXT = 500


# --------------------------------------------------------------------------------------------
# Pull request context


@dataclass(frozen=True)
class PullRequestContext:
    """Where to comment: the API root, the base repository and the pull request number."""

    api_url: str
    repository: str
    number: int
    base_sha: str | None
    head_sha: str | None
    is_fork: bool


def pr_context_from_env(env: Mapping[str, str]) -> PullRequestContext | None:
    """Read the pull request from a GitHub Actions environment.

    Uses ``GITHUB_EVENT_PATH`` (the event payload), ``GITHUB_REPOSITORY`` and ``GITHUB_API_URL``.
    Returns None when there is no event file or the event is not about a pull request (a push,
    a schedule, ...). Raises :class:`GitHubError` when the event file cannot be read or a pull
    request event lacks its number.
    """
    event_path = env.get("GITHUB_EVENT_PATH")
    if not event_path:
        return None
    try:
        with open(event_path, encoding="utf-8") as fh:
            event = json.load(fh)
    except (OSError, ValueError) as exc:
        raise GitHubError(
            f"cannot read the GitHub event file named by GITHUB_EVENT_PATH ({event_path}): {exc}"
        ) from exc
    if not isinstance(event, dict):
        return None
    pr = event.get("pull_request")
    if not isinstance(pr, dict):
        return None

    number = pr.get("number", event.get("number"))
    if not isinstance(number, int) or isinstance(number, bool) or number <= 0:
        raise GitHubError(f"the pull request event in {event_path} has no valid pull_request.number")

    base = _as_dict(pr.get("base"))
    head = _as_dict(pr.get("head"))
    base_name = _as_dict(base.get("repo")).get("full_name")
    # head.repo is null when the fork was deleted after the pull request was opened.
    head_name = _as_dict(head.get("repo")).get("full_name")
    # Unknown counts as a fork: assuming a read-only token is the cautious reading.
    is_fork = not (
        isinstance(base_name, str)
        and isinstance(head_name, str)
        and base_name.casefold() == head_name.casefold()
    )

    repository = env.get("GITHUB_REPOSITORY") or (base_name if isinstance(base_name, str) else None)
    if repository is None:
        repository = _as_dict(event.get("repository")).get("full_name")
    if not isinstance(repository, str) or not _REPO_RE.match(repository):
        raise GitHubError(f"cannot tell the repository (owner/name) of the pull request: {repository!r}")

    api_url = (env.get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/")
    return PullRequestContext(
        api_url=api_url,
        repository=repository,
        number=number,
        base_sha=_str_or_none(base.get("sha")),
        head_sha=_str_or_none(head.get("sha")),
        is_fork=is_fork,
    )


def _as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


# --------------------------------------------------------------------------------------------
# Client


class _UncertainWrite(GitHubError):
    """A POST failed in a way that leaves open whether GitHub acted on it (5xx, lost connection)."""


class _RetryBudget:
    """Counts the retries and the sleep of one logical operation, and sleeps when allowed."""

    def __init__(self, client: GitHubClient) -> None:
        self._client = client
        self.attempt = 0
        self.slept = 0.0

    def backoff_delay(self) -> float:
        return float(self._client._backoff * (2**self.attempt))

    def wait(self, delay: float, what: str, reason: str) -> bool:
        """Sleep ``delay`` seconds and return True, or return False when the budget forbids it."""
        client = self._client
        delay = max(0.0, delay)
        if self.attempt >= client._max_retries:
            log.warning("GitHub API %s: %s; giving up after %d retries", what, reason, self.attempt)
            return False
        if self.slept + delay > client._max_total_sleep:
            log.warning(
                "GitHub API %s: %s; waiting %.1fs would exceed the %.0fs retry budget, giving up",
                what,
                reason,
                delay,
                client._max_total_sleep,
            )
            return False
        self.attempt += 1
        log.warning(
            "GitHub API %s: %s; retry %d/%d in %.1fs", what, reason, self.attempt, client._max_retries, delay
        )
        client._sleep(delay)
        self.slept += delay
        return True


class GitHubClient:
    """A small GitHub REST client for issue comments, with retries and safe error messages.

    ``api_url`` is the API root: ``https://api.github.com`` or a GitHub Enterprise Server root such
    as ``https://ghe.example.com/api/v3`` (paths are appended to it, the prefix is kept). The token
    is sent only to that origin and never appears in messages, logs or ``repr``. Use the client as a
    context manager, or call :meth:`close`, to release its connections (a session passed in is left
    open for its owner).

    One call retries at most ``max_retries`` times and sleeps at most ``max_total_sleep`` seconds in
    all; a wait that would go past that (a long ``retry-after``, an exhausted hourly quota) fails at
    once instead. ``sleep`` and ``clock`` are there so tests need not wait.
    """

    def __init__(
        self,
        api_url: str,
        token: str,
        *,
        session: requests.Session | None = None,
        max_retries: int = 4,
        backoff: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
        timeout: float = 30,
        max_total_sleep: float = 120.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        parts = urlsplit(api_url)
        if parts.scheme not in ("https", "http") or not parts.netloc:
            raise GitHubError(f"GitHub API URL must be an http(s) URL, got {api_url!r}")
        if not token:
            raise GitHubError("no GitHub token was given")
        self.api_url = api_url.rstrip("/")
        self._origin = (parts.scheme, parts.netloc.lower())
        self._token = token
        self._owns_session = session is None
        self._session = session if session is not None else requests.Session()
        self._max_retries = max(0, max_retries)
        self._backoff = backoff
        self._sleep = sleep
        self._timeout = timeout
        self._max_total_sleep = max_total_sleep
        self._clock = clock
        self._login_cache: tuple[str | None] | None = None

    def __repr__(self) -> str:
        # Spelled out so that the token can never reach a repr, a log line or a traceback.
        return f"GitHubClient(api_url={self.api_url!r})"

    def __enter__(self) -> GitHubClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the HTTP session if this client created it."""
        if self._owns_session:
            self._session.close()

    # ---- endpoints ------------------------------------------------------------------------

    def list_comments(self, repo: str, number: int) -> list[dict[str, Any]]:
        """Return every comment of issue or pull request ``number``, oldest first, all pages."""
        url: str | None = self._url(f"{_repo_path(repo)}/issues/{_positive(number, 'number')}/comments")
        params: dict[str, Any] | None = {"per_page": 100}
        comments: list[dict[str, Any]] = []
        seen: set[str] = set()
        while url is not None:
            if url in seen or len(seen) >= _MAX_PAGES:
                raise GitHubError(f"GitHub API GET {urlsplit(url).path}: pagination does not end")
            seen.add(url)
            response = self._send("GET", url, params=params)
            page = self._json(response, "GET", url)
            if not isinstance(page, list) or not all(isinstance(item, dict) for item in page):
                raise GitHubError(
                    f"GitHub API GET {urlsplit(url).path}: expected a list of comments",
                    status=response.status_code,
                )
            comments.extend(page)
            # The next link already carries per_page and page; adding params again would duplicate them.
            params = None
            url = self._next_link(response)
        return comments

    def create_comment(self, repo: str, number: int, body: str) -> dict[str, Any]:
        """Create a comment on issue or pull request ``number`` (HTTP 201) and return it."""
        url = self._url(f"{_repo_path(repo)}/issues/{_positive(number, 'number')}/comments")
        response = self._send("POST", url, json_body={"body": body}, repeatable=False, write=True)
        return self._json_object(response, "POST", url)

    def update_comment(self, repo: str, comment_id: int, body: str) -> dict[str, Any]:
        """Replace the body of comment ``comment_id`` (HTTP 200) and return the comment."""
        url = self._url(f"{_repo_path(repo)}/issues/comments/{_positive(comment_id, 'comment_id')}")
        # Setting the same body twice has the same effect as once, so PATCH may be retried freely.
        response = self._send("PATCH", url, json_body={"body": body}, write=True)
        return self._json_object(response, "PATCH", url)

    def authenticated_login(self) -> str | None:
        """Return the token owner's login from ``GET /user``, or None when GitHub will not say.

        An Actions ``GITHUB_TOKEN`` (an installation token) gets 403 here; such a token writes
        comments as :data:`ACTIONS_BOT_LOGIN`. The answer is cached for the client's lifetime.
        """
        if self._login_cache is None:
            try:
                response = self._send("GET", self._url("/user"))
            except GitHubError as exc:
                if exc.status in (403, 404):
                    self._login_cache = (None,)
                    return None
                raise
            login = self._json_object(response, "GET", self._url("/user")).get("login")
            self._login_cache = (login if isinstance(login, str) and login else None,)
        return self._login_cache[0]

    # ---- plumbing -------------------------------------------------------------------------

    def _url(self, path: str) -> str:
        # Plain concatenation keeps a GitHub Enterprise prefix such as /api/v3; urljoin would drop it.
        return f"{self.api_url}/{path.lstrip('/')}"

    def _headers(self) -> dict[str, str]:
        # Per request rather than on the session, so a session lent by the caller is not modified.
        return {
            "Authorization": f"Bearer {self._token}",
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": API_VERSION,
            "User-Agent": USER_AGENT,
        }

    def _scrub(self, text: str) -> str:
        return text.replace(self._token, "***") if self._token else text

    def _next_link(self, response: requests.Response) -> str | None:
        next_url = response.links.get("next", {}).get("url")
        if not next_url:
            return None
        parts = urlsplit(next_url)
        # The token goes with every request: never follow a link to another origin.
        if (parts.scheme, parts.netloc.lower()) != self._origin:
            raise GitHubError(
                f"GitHub API GET {urlsplit(response.url).path}: refusing to follow a pagination link "
                f"to another host ({parts.scheme}://{parts.netloc})",
                status=response.status_code,
            )
        return next_url

    def _send(
        self,
        method: str,
        url: str,
        *,
        params: Mapping[str, Any] | None = None,
        json_body: Mapping[str, Any] | None = None,
        repeatable: bool = True,
        write: bool = False,
    ) -> requests.Response:
        """Send one request with retries; return a 2xx response or raise :class:`GitHubError`."""
        what = f"{method} {urlsplit(url).path}"
        budget = _RetryBudget(self)
        while True:
            try:
                response = self._session.request(
                    method,
                    url,
                    params=params,
                    json=json_body,
                    headers=self._headers(),
                    timeout=self._timeout,
                )
            except (requests.ConnectionError, requests.Timeout) as exc:
                reason = self._describe_transport_error(exc)
                if not repeatable:
                    raise _UncertainWrite(f"GitHub API {what} failed: {reason}") from exc
                if budget.wait(budget.backoff_delay(), what, reason):
                    continue
                raise GitHubError(f"GitHub API {what} failed: {reason}") from exc
            except requests.RequestException as exc:
                detail = self._scrub(str(exc))[:_MAX_ERROR_TEXT]
                raise GitHubError(f"GitHub API {what} failed: {type(exc).__name__}: {detail}") from exc

            if 200 <= response.status_code < 300:
                return response

            retry = self._retry_delay(response, budget)
            if retry is not None:
                delay, reason, rate_limited = retry
                if not repeatable and not rate_limited:
                    # A 5xx after a POST: the comment may exist. Let upsert_comment look first.
                    self._raise_http_error(what, response, write=write, error_type=_UncertainWrite)
                if budget.wait(delay, what, reason):
                    response.close()
                    continue
                self._raise_http_error(what, response, write=write and not rate_limited)
            self._raise_http_error(what, response, write=write)

    def _retry_delay(
        self, response: requests.Response, budget: _RetryBudget
    ) -> tuple[float, str, bool] | None:
        """Return (delay, reason, is_rate_limit) if the reply deserves a retry, else None."""
        status = response.status_code
        headers = response.headers
        retry_after = _parse_retry_after(headers.get("retry-after"), self._clock)
        if status in (403, 429):
            message = _github_message(response)[0].lower()
            if retry_after is not None:
                return retry_after, f"HTTP {status}, rate limited (retry-after {retry_after:g}s)", True
            reset = headers.get("x-ratelimit-reset")
            if headers.get("x-ratelimit-remaining") == "0" and reset:
                try:
                    wait = float(reset) - self._clock()
                except ValueError:
                    wait = budget.backoff_delay()
                # One second past the reset: the reset time is whole seconds and clocks drift.
                return wait + 1.0, f"HTTP {status}, rate limit exhausted until {reset}", True
            if "secondary rate limit" in message:
                delay = max(_SECONDARY_LIMIT_MIN_WAIT, budget.backoff_delay())
                return delay, f"HTTP {status}, secondary rate limit", True
            if status == 429:
                return budget.backoff_delay(), "HTTP 429", True
            return None
        if status >= 500:
            delay = retry_after if retry_after is not None else budget.backoff_delay()
            return delay, f"HTTP {status}", False
        return None

    def _raise_http_error(
        self,
        what: str,
        response: requests.Response,
        *,
        write: bool,
        error_type: type[GitHubError] = GitHubError,
    ) -> NoReturn:
        """Raise the one :class:`GitHubError` for a non-2xx reply, chained to requests' HTTPError."""
        status = response.status_code
        message, details = _github_message(response)
        text = f"GitHub API {what} failed: HTTP {status}"
        if message:
            text += f": {message}"
        if details:
            text += f" ({details})"
        if status == 403 and write:
            text += f"; {FORK_HINT}"
        error = error_type(self._scrub(text)[: 2 * _MAX_ERROR_TEXT], status=status)
        try:
            response.raise_for_status()
        except requests.HTTPError as cause:
            # Chained so a debugger can reach the response; its text holds the URL, never the token.
            raise error from cause
        # Only a 1xx/3xx reply that requests did not follow gets here: nothing to chain.
        raise error from None

    def _describe_transport_error(self, exc: requests.RequestException) -> str:
        # str(exc) of a urllib3 failure is a long repr with the full URL; a short reason reads
        # better and the full exception stays reachable through __cause__.
        host = self._origin[1]
        if isinstance(exc, requests.Timeout):
            return f"no answer from {host} within {self._timeout:g}s ({type(exc).__name__})"
        return f"could not reach {host} ({type(exc).__name__})"

    def _json(self, response: requests.Response, method: str, url: str) -> Any:
        try:
            return response.json()
        except ValueError as exc:
            raise GitHubError(
                f"GitHub API {method} {urlsplit(url).path}: HTTP {response.status_code} reply is not JSON",
                status=response.status_code,
            ) from exc

    def _json_object(self, response: requests.Response, method: str, url: str) -> dict[str, Any]:
        data = self._json(response, method, url)
        if not isinstance(data, dict):
            raise GitHubError(
                f"GitHub API {method} {urlsplit(url).path}: expected a JSON object",
                status=response.status_code,
            )
        return data


def _repo_path(repo: str) -> str:
    if not _REPO_RE.match(repo) or repo.split("/")[1] in (".", ".."):
        raise GitHubError(f"repository must look like owner/name, got {repo!r}")
    owner, name = repo.split("/")
    return f"/repos/{quote(owner, safe='')}/{quote(name, safe='')}"


def _positive(value: int, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise GitHubError(f"{name} must be a positive integer, got {value!r}")
    return value


def _parse_retry_after(value: str | None, clock: Callable[[], float]) -> float | None:
    """Seconds to wait from a ``retry-after`` header: delta-seconds or an HTTP date."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - clock())


def _github_message(response: requests.Response) -> tuple[str, str]:
    """GitHub's ``message`` and a short summary of its ``errors`` list, from an error reply."""
    try:
        data = response.json()
    except ValueError:
        return "", ""
    if not isinstance(data, dict):
        return "", ""
    message = data.get("message")
    message = " ".join(message.split()) if isinstance(message, str) else ""
    parts: list[str] = []
    errors = data.get("errors")
    if isinstance(errors, list):
        for item in errors[:5]:
            if isinstance(item, dict):
                if isinstance(item.get("message"), str):
                    parts.append(item["message"])
                else:
                    where = ".".join(str(item[k]) for k in ("resource", "field") if item.get(k))
                    code = item.get("code", "")
                    parts.append(f"{where}: {code}" if where else str(code))
            elif isinstance(item, str):
                parts.append(item)
    return message[:_MAX_ERROR_TEXT], "; ".join(parts)[:_MAX_ERROR_TEXT]


# --------------------------------------------------------------------------------------------
# Marker and upsert


def marker(key: str) -> str:
    """The hidden line that tags sourcegate's comment for golden set ``key``.

    The key is reduced to ``[A-Za-z0-9._-]`` (other characters become ``-``) so it can never close
    the HTML comment, and is capped at 100 characters. An empty key becomes ``default``.
    """
    safe = _KEY_UNSAFE_RE.sub("-", key)[:_MAX_KEY_CHARS] or "default"
    return f"{MARKER_PREFIX} key={safe} -->"


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
    """What :func:`upsert_comment` did, and where the comment is."""

    action: Literal["created", "updated"]
    comment_id: int
    url: str | None


def upsert_comment(
    client: GitHubClient,
    repo: str,
    number: int,
    key: str,
    body: str,
    *,
    author_logins: frozenset[str] | None = None,
) -> UpsertResult:
    """Create sourcegate's comment for ``key`` on pull request ``number``, or update it in place.

    ``author_logins`` are the authors whose marked comment may be updated; by default
    :data:`DEFAULT_AUTHOR_LOGINS` plus the token owner's login when ``GET /user`` answers.
    The marker line is appended to ``body`` if missing. A second comment is never created while
    one is found; when a create fails in a way that may have created it anyway (5xx, lost
    connection), the comments are listed again before anything else is tried.
    """
    if author_logins is None:
        login = client.authenticated_login()
        author_logins = DEFAULT_AUTHOR_LOGINS | ({login} if login else frozenset())
    full_body = with_marker(body, key)
    if len(full_body) > MAX_COMMENT_CHARS:
        raise GitHubError(
            f"the comment for {key!r} is {len(full_body)} characters; "
            f"GitHub accepts at most {MAX_COMMENT_CHARS}"
        )

    budget = _RetryBudget(client)
    while True:
        existing = find_own_comment(client.list_comments(repo, number), key, author_logins)
        if existing is not None:
            comment_id = int(existing["id"])
            updated = client.update_comment(repo, comment_id, full_body)
            return UpsertResult("updated", comment_id, _html_url(updated, existing))
        try:
            created = client.create_comment(repo, number, full_body)
        except _UncertainWrite as exc:
            if budget.wait(budget.backoff_delay(), f"POST comment on {repo}#{number}", str(exc)):
                continue
            raise
        created_id = created.get("id")
        if not isinstance(created_id, int) or isinstance(created_id, bool):
            raise GitHubError(f"GitHub API POST comment on {repo}#{number}: reply has no comment id")
        return UpsertResult("created", created_id, _html_url(created, None))


def _html_url(comment: Mapping[str, Any], fallback: Mapping[str, Any] | None) -> str | None:
    for source in (comment, fallback or {}):
        url = source.get("html_url")
        if isinstance(url, str) and url:
            return url
    return None
