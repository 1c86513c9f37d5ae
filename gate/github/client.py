"""The HTTP client for GitHub's issue-comment endpoints: requests, pagination, retries, errors.

Every ``requests`` exception and every non-2xx reply becomes :class:`GitHubError` in one place
(:meth:`GitHubClient._send`), so callers handle one error type. A POST is not blindly repeated
after a 5xx or a lost connection, because GitHub may have created the comment already: it raises
:class:`UncertainWrite` instead, and :func:`gate.github.comments.upsert_comment` lists the comments
again before anything else is tried.

Every wait has an end. Each exchange (connecting, the reply's headers, its body read in chunks)
must be over within ``request_deadline`` seconds, and one logical operation (a request with its
retries, or everything :meth:`GitHubClient.operation` covers, such as a whole comment upsert)
within ``deadline`` seconds: a server that trickles its reply a byte at a time, which never trips a
read timeout, is a :class:`GitHubError` at the deadline like any other failure.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from functools import partial
from typing import Any
from urllib.parse import quote, urlsplit

import requests

from gate.deadline import DeadlineExceeded, call_by
from gate.errors import GitHubError
from gate.github.context import REPO_NAME
from gate.github.replies import MAX_ERROR_TEXT, raise_http_error, reply_json, reply_object
from gate.github.retry import RetryBudget, RetryPolicy, retry_delay

__all__ = ["API_VERSION", "API_USER_AGENT", "GitHubClient", "UncertainWrite"]

API_VERSION = "2022-11-28"
API_USER_AGENT = "sourcegate"

# A runaway Link chain (or a server that links a page to itself) must not loop forever:
# 1000 pages of 100 is far more comments than any pull request has.
_MAX_PAGES = 1000

# The body is read in pieces of this size, with the deadline checked between them.
_CHUNK = 16 * 1024

REQUEST_DEADLINE = 60.0
"""Default seconds one HTTP exchange may take in all, from connecting to the reply's last byte."""

OPERATION_DEADLINE = 300.0
"""Default seconds one logical operation may take in all: a request with its retries and their
waits, or a whole comment upsert (listing, creating or updating, and any retries)."""


class UncertainWrite(GitHubError):
    """A POST failed in a way that leaves open whether GitHub acted on it (5xx, lost connection)."""


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

    ``timeout`` bounds each connect and each read; ``request_deadline`` one whole exchange and
    ``deadline`` one whole operation (see the module's docstring), however slowly a server answers.
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
        request_deadline: float = REQUEST_DEADLINE,
        deadline: float = OPERATION_DEADLINE,
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
        self.retry_policy = RetryPolicy(max(0, max_retries), backoff, max_total_sleep, sleep)
        """The retry limits of one logical operation (also used by upsert_comment)."""
        self._timeout = timeout
        self._clock = clock
        self._request_deadline = request_deadline
        self._deadline = deadline
        self._until: float | None = None
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

    @contextmanager
    def operation(self) -> Iterator[None]:
        """Every request inside shares one total deadline, ``deadline`` seconds from the outermost entry."""
        if self._until is not None:
            yield
            return
        self._until = time.monotonic() + self._deadline
        try:
            yield
        finally:
            self._until = None

    def has_time_for(self, seconds: float) -> bool:
        """True unless waiting ``seconds`` would go past the current operation's deadline."""
        return self._until is None or time.monotonic() + seconds < self._until

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
            page = reply_json(response, "GET", url)
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
        return reply_object(response, "POST", url)

    def update_comment(self, repo: str, comment_id: int, body: str) -> dict[str, Any]:
        """Replace the body of comment ``comment_id`` (HTTP 200) and return the comment."""
        url = self._url(f"{_repo_path(repo)}/issues/comments/{_positive(comment_id, 'comment_id')}")
        # Setting the same body twice has the same effect as once, so PATCH may be retried freely.
        response = self._send("PATCH", url, json_body={"body": body}, write=True)
        return reply_object(response, "PATCH", url)

    def authenticated_login(self) -> str | None:
        """Return the token owner's login from ``GET /user``, or None when GitHub will not say.

        An Actions ``GITHUB_TOKEN`` (an installation token) gets 403 here; such a token writes
        comments as ``github-actions[bot]``. The answer is cached for the client's lifetime.
        """
        if self._login_cache is None:
            try:
                response = self._send("GET", self._url("/user"))
            except GitHubError as exc:
                if exc.status in (403, 404):
                    self._login_cache = (None,)
                    return None
                raise
            login = reply_object(response, "GET", self._url("/user")).get("login")
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
            "User-Agent": API_USER_AGENT,
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
        with self.operation():
            return self._send_within(method, url, params=params, json_body=json_body, repeatable=repeatable,
                                     write=write)

    def _send_within(
        self,
        method: str,
        url: str,
        *,
        params: Mapping[str, Any] | None,
        json_body: Mapping[str, Any] | None,
        repeatable: bool,
        write: bool,
    ) -> requests.Response:
        what = f"{method} {urlsplit(url).path}"
        budget = RetryBudget(self.retry_policy)
        assert self._until is not None
        until = self._until
        while True:
            now = time.monotonic()
            if now >= until:
                raise GitHubError(f"GitHub API {what} failed: the deadline of {self._deadline:g}s has passed")
            by = min(until, now + self._request_deadline)
            try:
                response = call_by(by, partial(self._exchange, method, url, params, json_body, by))
            except (requests.ConnectionError, requests.Timeout, DeadlineExceeded) as exc:
                reason = self._describe_transport_error(exc)
                if not repeatable:
                    raise UncertainWrite(f"GitHub API {what} failed: {reason}") from exc
                delay = budget.backoff_delay()
                if self.has_time_for(delay) and budget.wait(delay, what, reason):
                    continue
                raise GitHubError(f"GitHub API {what} failed: {reason}") from exc
            except requests.RequestException as exc:
                detail = self._scrub(str(exc))[:MAX_ERROR_TEXT]
                raise GitHubError(f"GitHub API {what} failed: {type(exc).__name__}: {detail}") from exc

            if 200 <= response.status_code < 300:
                return response

            retry = retry_delay(response, budget, self._clock)
            if retry is not None:
                delay, reason, rate_limited = retry
                if not repeatable and not rate_limited:
                    # A 5xx after a POST: the comment may exist. Let upsert_comment look first.
                    raise_http_error(what, response, write=write, scrub=self._scrub, error_type=UncertainWrite)
                if self.has_time_for(delay) and budget.wait(delay, what, reason):
                    response.close()
                    continue
                raise_http_error(what, response, write=write and not rate_limited, scrub=self._scrub)
            raise_http_error(what, response, write=write, scrub=self._scrub)

    def _exchange(
        self,
        method: str,
        url: str,
        params: Mapping[str, Any] | None,
        json_body: Mapping[str, Any] | None,
        by: float,
    ) -> requests.Response:
        """One request and its whole reply, read in chunks, given up at ``by`` (monotonic)."""
        wait = max(0.001, min(self._timeout, by - time.monotonic()))
        response = self._session.request(
            method, url, params=params, json=json_body, headers=self._headers(), timeout=wait, stream=True
        )
        chunks: list[bytes] = []
        try:
            for chunk in response.iter_content(_CHUNK):
                if time.monotonic() > by:
                    raise DeadlineExceeded
                chunks.append(chunk)
        except BaseException:
            response.close()
            raise
        # The body is in hand: make it the response's content, as a non-streamed request would.
        response._content = b"".join(chunks)
        return response

    def _describe_transport_error(self, exc: BaseException) -> str:
        # str(exc) of a urllib3 failure is a long repr with the full URL; a short reason reads
        # better and the full exception stays reachable through __cause__.
        host = self._origin[1]
        if isinstance(exc, DeadlineExceeded):
            return (f"no complete reply from {host} within the deadline "
                    f"({self._request_deadline:g}s a request, {self._deadline:g}s an operation)")
        if isinstance(exc, requests.Timeout):
            return f"no answer from {host} within {self._timeout:g}s ({type(exc).__name__})"
        return f"could not reach {host} ({type(exc).__name__})"


def _repo_path(repo: str) -> str:
    if not REPO_NAME.match(repo) or repo.split("/")[1] in (".", ".."):
        raise GitHubError(f"repository must look like owner/name, got {repo!r}")
    owner, name = repo.split("/")
    return f"/repos/{quote(owner, safe='')}/{quote(name, safe='')}"


def _positive(value: int, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise GitHubError(f"{name} must be a positive integer, got {value!r}")
    return value
