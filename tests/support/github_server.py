"""A fake GitHub REST API for tests: a real HTTP server on 127.0.0.1, never the internet.

It serves the endpoints :mod:`gate.github` uses, shaped after GitHub's own description (the copied
OpenAPI subset in ``tests/fixtures/github/``) and recorded traffic (octokit fixtures):

* ``GET  {prefix}/repos/{owner}/{repo}/issues/{n}/comments`` with ``per_page`` (default 30,
  max 100) and ``page``, oldest first, and a ``Link`` header like GitHub's: the links point at
  ``/repositories/{id}/issues/{n}/comments?per_page=..&page=..`` (as GitHub's do) with
  rel ``prev``/``next``/``last``/``first`` in GitHub's order.
* ``GET  {prefix}/repositories/{id}/issues/{n}/comments``: the same listing, for those links.
* ``POST {prefix}/repos/{owner}/{repo}/issues/{n}/comments``: 201 and the new comment.
* ``PATCH {prefix}/repos/{owner}/{repo}/issues/comments/{id}``: 200 and the comment.
* ``GET  {prefix}/user``: the token owner, or 403 like an Actions ``GITHUB_TOKEN`` or any other
  GitHub App installation token.

Every request is recorded (method, path, headers, body). A request without the expected token
gets 401 ``Bad credentials``. POST and PATCH bodies are checked against the request-body schema of
that operation in the OpenAPI file; a body that fails gets 422 ``Validation Failed`` in GitHub's
shape. Failures can be scripted per route with :meth:`FakeGitHub.script` (see the ``Reply``
helpers below). With ``prefix="/api/v3"`` it looks like a GitHub Enterprise Server.

Comments follow the ``issue-comment`` schema; :func:`validate_issue_comment` checks any object
against it (OpenAPI's ``nullable`` is translated to JSON Schema for that).
"""

from __future__ import annotations

import base64
import functools
import itertools
import json
import math
import re
import socket
import threading
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jsonschema
from referencing import Registry
from referencing.jsonschema import DRAFT4

from tests.support.loopback import ServerThread

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "github"
OPENAPI_PATH = FIXTURES / "rest-api-issue-comments.openapi.json"
OCTOKIT_ERRORS_PATH = FIXTURES / "octokit.errors.normalized-fixture.json"

DEFAULT_TOKEN = "ghs_fakeTokenForLoopbackTests0123456789"
#: github-actions[bot] as GitHub shows it (the id is the real one of that account).
ACTIONS_BOT = {"login": "github-actions[bot]", "id": 41898282, "type": "Bot"}

ROUTES = ("list_comments", "create_comment", "update_comment", "get_user")

_OPENAPI_URI = "urn:sourcegate-tests:github-openapi"
_DOCS = "https://docs.github.com/rest"
_SECONDARY_MESSAGE = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. "
    "If you reach out to GitHub Support for help, please include the request ID 0000:0000:0000000:0000000."
)


# --------------------------------------------------------------------------------------------
# OpenAPI


@functools.cache
def openapi() -> dict[str, Any]:
    """The copied OpenAPI subset, parsed once."""
    with open(OPENAPI_PATH, encoding="utf-8") as fh:
        data: dict[str, Any] = json.load(fh)
    return data


def _nullable_to_jsonschema(node: Any) -> Any:
    # OpenAPI 3.0 says "nullable: true" where JSON Schema says "null is also allowed".
    if isinstance(node, list):
        return [_nullable_to_jsonschema(item) for item in node]
    if not isinstance(node, dict):
        return node
    converted = {key: _nullable_to_jsonschema(value) for key, value in node.items() if key != "nullable"}
    if node.get("nullable") is True:
        return {"anyOf": [{"type": "null"}, converted]}
    return converted


@functools.cache
def _registry() -> Registry[Any]:
    resource = DRAFT4.create_resource(_nullable_to_jsonschema(openapi()))
    registry: Registry[Any] = Registry().with_resource(_OPENAPI_URI, resource)
    return registry


def _component_validator(name: str) -> jsonschema.Draft4Validator:
    # Draft 4 is the JSON Schema closest to OpenAPI 3.0's schema objects.
    return jsonschema.Draft4Validator(
        {"$ref": f"{_OPENAPI_URI}#/components/schemas/{name}"}, registry=_registry()
    )


def validate_issue_comment(comment: Any) -> None:
    """Raise ``jsonschema.ValidationError`` unless ``comment`` fits GitHub's ``issue-comment``."""
    _component_validator("issue-comment").validate(comment)


def validate_component(name: str, value: Any) -> None:
    """Raise ``jsonschema.ValidationError`` unless ``value`` fits ``#/components/schemas/{name}``."""
    _component_validator(name).validate(value)


def _request_body_validator(method: str, template: str) -> jsonschema.Draft4Validator:
    operation = openapi()["paths"][template][method]
    schema = operation["requestBody"]["content"]["application/json"]["schema"]
    return jsonschema.Draft4Validator(_nullable_to_jsonschema(schema))


# --------------------------------------------------------------------------------------------
# Scripted replies


@dataclass(frozen=True)
class Reply:
    """A scripted answer for one request to a route.

    ``body`` is sent as JSON, or as-is when it is a ``str`` (GitHub's proxies answer some 5xx with
    HTML). ``apply=True`` carries out the request first and then sends this reply anyway: a write
    that succeeded behind a failing reply. ``drop=True`` closes the connection with no reply.
    ``trickle`` > 0 sends the body one byte every ``trickle`` seconds (a server that never trips a
    read timeout), until the body is out or the server stops.
    """

    status: int
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    apply: bool = False
    drop: bool = False
    trickle: float = 0.0


def forbidden_integration() -> Reply:
    """403 as a read-only ``GITHUB_TOKEN`` (a fork's pull request) gets it on a write."""
    return Reply(
        403,
        {
            "message": "Resource not accessible by integration",
            "documentation_url": "https://docs.github.com/rest/issues/comments#create-an-issue-comment",
        },
    )


def not_found() -> Reply:
    """404 as GitHub sends it for a missing (or hidden) repository, issue or comment."""
    return Reply(404, {"message": "Not Found", "documentation_url": _DOCS})


def validation_failed() -> Reply:
    """The real 422 body recorded by octokit/fixtures (``errors`` scenario)."""
    with open(OCTOKIT_ERRORS_PATH, encoding="utf-8") as fh:
        recorded = json.load(fh)[0]
    return Reply(int(recorded["status"]), recorded["response"])


def server_error(status: int = 500) -> Reply:
    """A 5xx; 502 and 504 come as an HTML page like GitHub's front end sends, others as JSON."""
    if status in (502, 504):
        return Reply(status, "<html><body><h1>Bad gateway</h1></body></html>\n")
    return Reply(status, {"message": "Server Error"})


def rate_limited(retry_after: float | None = None, *, status: int = 429) -> Reply:
    """429 (or another status) with an optional ``retry-after`` header in seconds."""
    headers = {} if retry_after is None else {"retry-after": f"{retry_after:g}"}
    body = {"message": "API rate limit exceeded for installation ID 1.", "documentation_url": _DOCS}
    return Reply(status, body, headers)


def secondary_rate_limit(*, status: int = 403, retry_after: float | None = None) -> Reply:
    """GitHub's secondary (abuse) rate limit reply, 403 by default."""
    headers = {} if retry_after is None else {"retry-after": f"{retry_after:g}"}
    body = {
        "message": _SECONDARY_MESSAGE,
        "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
    }
    return Reply(status, body, headers)


def primary_rate_limit(reset_epoch: int) -> Reply:
    """403 with ``x-ratelimit-remaining: 0``: the hourly quota is spent until ``reset_epoch``."""
    body = {"message": "API rate limit exceeded for installation ID 1.", "documentation_url": _DOCS}
    headers = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset_epoch)}
    return Reply(403, body, headers)


# --------------------------------------------------------------------------------------------
# Recorded requests


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server saw it."""

    method: str
    target: str  # path and query, as sent
    route: str | None
    headers: Mapping[str, str]  # lower-case names
    body: bytes

    @property
    def path(self) -> str:
        """The path without the query."""
        return urlsplit(self.target).path

    @property
    def query(self) -> dict[str, list[str]]:
        """The parsed query string."""
        return parse_qs(urlsplit(self.target).query)

    @property
    def json(self) -> Any:
        """The body parsed as JSON (None when empty)."""
        return json.loads(self.body) if self.body else None

    def header(self, name: str) -> str | None:
        """A request header, by case-insensitive name."""
        return self.headers.get(name.lower())


# --------------------------------------------------------------------------------------------
# The server


_ROUTE_PATTERNS: tuple[tuple[str, str, re.Pattern[str]], ...] = (
    (
        "GET",
        "list_comments",
        re.compile(r"^/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)/issues/(?P<n>\d+)/comments$"),
    ),
    ("GET", "list_comments", re.compile(r"^/repositories/(?P<repo_id>\d+)/issues/(?P<n>\d+)/comments$")),
    (
        "POST",
        "create_comment",
        re.compile(r"^/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)/issues/(?P<n>\d+)/comments$"),
    ),
    (
        "PATCH",
        "update_comment",
        re.compile(r"^/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)/issues/comments/(?P<id>\d+)$"),
    ),
    ("GET", "get_user", re.compile(r"^/user$")),
)

_Response = tuple[int, Any, dict[str, str]]


class FakeGitHub:
    """The fake API. Use as a context manager; ``base_url`` is the API root to give the client.

    ``login`` is the token owner's login; None makes the token behave like an Actions
    ``GITHUB_TOKEN`` (``GET /user`` is 403, comments are written by github-actions[bot]). ``app``
    makes it a GitHub App's installation token instead: ``GET /user`` is 403 too, and comments are
    written by ``<app>[bot]``.
    """

    def __init__(self, *, token: str = DEFAULT_TOKEN, prefix: str = "", login: str | None = None,
                 app: str | None = None) -> None:
        if prefix and (not prefix.startswith("/") or prefix.endswith("/")):
            raise ValueError("prefix must start with '/' and not end with it, e.g. '/api/v3'")
        if login is not None and app is not None:
            raise ValueError("a token belongs to a user (login) or to a GitHub App (app), not both")
        self.token = token
        self.prefix = prefix
        self.login = login
        self.app = app
        self._lock = threading.Lock()
        self._requests: list[RecordedRequest] = []
        self._scripts: dict[str, deque[Reply]] = {route: deque() for route in ROUTES}
        self._comments: dict[tuple[str, int], list[dict[str, Any]]] = {}
        self._repo_ids: dict[str, int] = {}
        self._ids = itertools.count(1_000_001)
        self._clock = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC)
        self._create_validator = _request_body_validator(
            "post", "/repos/{owner}/{repo}/issues/{issue_number}/comments"
        )
        self._update_validator = _request_body_validator(
            "patch", "/repos/{owner}/{repo}/issues/comments/{comment_id}"
        )
        self._running: ServerThread | None = None
        self.stopping = threading.Event()
        """Set when the server stops: a trickling reply stops with it."""

    # ---- lifecycle ------------------------------------------------------------------------

    def start(self) -> FakeGitHub:
        """Bind 127.0.0.1 on a free port and serve in a background thread."""
        httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        httpd.daemon_threads = True
        httpd.fake = self  # type: ignore[attr-defined]
        self._running = ServerThread(httpd, "fake-github").start()
        return self

    def stop(self) -> None:
        """Stop serving and close the listening socket."""
        if self._running is not None:
            self.stopping.set()
            self._running.stop()
            self._running = None

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    @property
    def origin(self) -> str:
        """``http://127.0.0.1:PORT``."""
        if self._running is None:
            raise RuntimeError("the fake GitHub server is not running")
        return self._running.url

    @property
    def base_url(self) -> str:
        """The API root: the origin plus the prefix (``/api/v3`` for an Enterprise-like server)."""
        return self.origin + self.prefix

    # ---- state and scripting --------------------------------------------------------------

    def script(self, route: str, *replies: Reply) -> None:
        """Queue replies for the next requests to ``route`` (one of :data:`ROUTES`), in order."""
        if route not in self._scripts:
            raise ValueError(f"unknown route {route!r}; expected one of {ROUTES}")
        with self._lock:
            self._scripts[route].extend(replies)

    def add_comment(
        self,
        repo: str,
        number: int,
        body: str,
        *,
        login: str = "octocat",
        user_type: str = "User",
        author_association: str = "NONE",
    ) -> dict[str, Any]:
        """Put a comment on issue ``number`` of ``repo`` as ``login``; return it."""
        user = {"login": login, "id": 9000 + len(login), "type": user_type}
        with self._lock:
            return _copy(self._new_comment(repo, number, body, user, author_association))

    def comments(self, repo: str, number: int) -> list[dict[str, Any]]:
        """A copy of the comments on issue ``number`` of ``repo``, oldest first."""
        with self._lock:
            return [_copy(comment) for comment in self._comments.get((repo, number), [])]

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, in order."""
        with self._lock:
            return list(self._requests)

    def requests_to(self, route: str) -> list[RecordedRequest]:
        """The recorded requests that matched ``route``."""
        return [r for r in self.requests if r.route == route]

    # ---- request handling (called from the handler threads) ---------------------------------

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _next_script(self, route: str) -> Reply | None:
        with self._lock:
            queue = self._scripts[route]
            return queue.popleft() if queue else None

    def _authorized(self, headers: Mapping[str, str]) -> bool:
        value = headers.get("authorization", "")
        return value in (f"Bearer {self.token}", f"token {self.token}")

    def _repo_id(self, repo: str) -> int:
        return self._repo_ids.setdefault(repo, 1000 + len(self._repo_ids))

    def _repo_by_id(self, repo_id: int) -> str | None:
        for name, known in self._repo_ids.items():
            if known == repo_id:
                return name
        return None

    def _actor(self) -> dict[str, Any]:
        if self.app is not None:
            return {"login": f"{self.app}[bot]", "id": 7000 + len(self.app), "type": "Bot"}
        if self.login is None:
            return dict(ACTIONS_BOT)
        return {"login": self.login, "id": 5000 + len(self.login), "type": "User"}

    def _simple_user(self, user: Mapping[str, Any]) -> dict[str, Any]:
        login = str(user["login"])
        api = f"{self.base_url}/users/{login}"
        return {
            "login": login,
            "id": int(user["id"]),
            "node_id": base64.b64encode(f"04:User{user['id']}".encode()).decode(),
            "avatar_url": f"https://avatars.githubusercontent.com/u/{user['id']}?v=4",
            "gravatar_id": "",
            "url": api,
            "html_url": f"https://github.com/{login}",
            "followers_url": f"{api}/followers",
            "following_url": f"{api}/following{{/other_user}}",
            "gists_url": f"{api}/gists{{/gist_id}}",
            "starred_url": f"{api}/starred{{/owner}}{{/repo}}",
            "subscriptions_url": f"{api}/subscriptions",
            "organizations_url": f"{api}/orgs",
            "repos_url": f"{api}/repos",
            "events_url": f"{api}/events{{/privacy}}",
            "received_events_url": f"{api}/received_events",
            "type": str(user["type"]),
            "site_admin": False,
        }

    def _now(self) -> str:
        self._clock += timedelta(seconds=1)
        return self._clock.strftime("%Y-%m-%dT%H:%M:%SZ")

    def _new_comment(
        self, repo: str, number: int, body: str, user: Mapping[str, Any], association: str
    ) -> dict[str, Any]:
        # Caller holds the lock.
        self._repo_id(repo)
        comment_id = next(self._ids)
        now = self._now()
        api_repo = f"{self.base_url}/repos/{repo}"
        comment = {
            "id": comment_id,
            "node_id": base64.b64encode(f"012:IssueComment{comment_id}".encode()).decode(),
            "url": f"{api_repo}/issues/comments/{comment_id}",
            "html_url": f"https://github.com/{repo}/pull/{number}#issuecomment-{comment_id}",
            "body": body,
            "user": self._simple_user(user),
            "created_at": now,
            "updated_at": now,
            "issue_url": f"{api_repo}/issues/{number}",
            "author_association": association,
            "performed_via_github_app": None,
            "reactions": {
                "url": f"{api_repo}/issues/comments/{comment_id}/reactions",
                "total_count": 0,
                "+1": 0,
                "-1": 0,
                "laugh": 0,
                "confused": 0,
                "heart": 0,
                "hooray": 0,
                "eyes": 0,
                "rocket": 0,
            },
        }
        self._comments.setdefault((repo, number), []).append(comment)
        return comment

    def _handle(
        self, route: str, params: dict[str, str], query: dict[str, list[str]], body: bytes
    ) -> _Response:
        if route == "get_user":
            if self.login is None:
                return (
                    403,
                    {"message": "Resource not accessible by integration", "documentation_url": _DOCS},
                    {},
                )
            return 200, self._simple_user(self._actor()), {}
        if route == "list_comments":
            return self._list(params, query)

        try:
            payload = json.loads(body or b"null")
        except ValueError:
            return 400, {"message": "Problems parsing JSON", "documentation_url": _DOCS}, {}
        validator = self._create_validator if route == "create_comment" else self._update_validator
        errors = sorted(validator.iter_errors(payload), key=lambda e: list(e.path))
        if errors:
            return 422, _validation_failed_body(errors), {}
        text = payload["body"]
        if len(text) > 65536:
            too_long = {
                "resource": "IssueComment",
                "code": "unprocessable",
                "field": "data",
                "message": "Body is too long (maximum is 65536 characters)",
            }
            return 422, {"message": "Validation Failed", "errors": [too_long], "documentation_url": _DOCS}, {}

        repo = f"{params['owner']}/{params['repo']}"
        with self._lock:
            if route == "create_comment":
                comment = self._new_comment(repo, int(params["n"]), text, self._actor(), "NONE")
                return 201, comment, {"location": str(comment["url"])}
            for (known_repo, _number), items in self._comments.items():
                if known_repo.lower() != repo.lower():
                    continue
                for comment in items:
                    if comment["id"] == int(params["id"]):
                        comment["body"] = text
                        comment["updated_at"] = self._now()
                        return 200, comment, {}
        return not_found().status, not_found().body, {}

    def _list(self, params: dict[str, str], query: dict[str, list[str]]) -> _Response:
        number = int(params["n"])
        with self._lock:
            if "repo_id" in params:
                repo = self._repo_by_id(int(params["repo_id"]))
                if repo is None:
                    return 404, {"message": "Not Found", "documentation_url": _DOCS}, {}
            else:
                repo = f"{params['owner']}/{params['repo']}"
            repo_id = self._repo_id(repo)
            items = sorted(self._comments.get((repo, number), []), key=lambda c: int(c["id"]))
            per_page = min(100, max(1, _int_param(query, "per_page", 30)))
            page = max(1, _int_param(query, "page", 1))
            last = max(1, math.ceil(len(items) / per_page))
            chunk = items[(page - 1) * per_page : page * per_page]
            rels: list[tuple[str, int]] = []
            # The order GitHub uses (see the paginate-issues octokit fixture).
            if page > 1:
                rels.append(("prev", min(page - 1, last)))
            if page < last:
                rels.append(("next", page + 1))
            if page != last:
                rels.append(("last", last))
            if page > 1:
                rels.append(("first", 1))
            link_base = f"{self.base_url}/repositories/{repo_id}/issues/{number}/comments"
            headers = {}
            if rels:
                headers["link"] = ", ".join(
                    f'<{link_base}?per_page={per_page}&page={target}>; rel="{rel}"' for rel, target in rels
                )
            return 200, [_copy(comment) for comment in chunk], headers


def _copy(comment: Mapping[str, Any]) -> dict[str, Any]:
    # A deep copy through JSON: callers get what a client would, and cannot edit server state.
    copied: dict[str, Any] = json.loads(json.dumps(comment))
    return copied


def _int_param(query: Mapping[str, list[str]], name: str, default: int) -> int:
    try:
        return int(query[name][0])
    except (KeyError, IndexError, ValueError):
        return default


def _validation_failed_body(errors: list[jsonschema.ValidationError]) -> dict[str, Any]:
    items: list[dict[str, Any]] = []
    for error in errors:
        if error.validator == "required":
            missing = re.findall(r"'([^']+)' is a required property", error.message)
            items.append(
                {"resource": "IssueComment", "code": "missing_field", "field": missing[0] if missing else ""}
            )
        else:
            where = ".".join(str(p) for p in error.path) or "data"
            items.append({"resource": "IssueComment", "code": "invalid", "field": where})
    return {
        "message": "Validation Failed",
        "errors": items,
        "documentation_url": "https://docs.github.com/rest/issues/comments#create-an-issue-comment",
    }


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "GitHub.com"
    sys_version = ""
    # A keep-alive connection the client forgot must not hold a handler thread forever.
    timeout = 10
    # Headers and body leave as separate writes: with Nagle's algorithm on, the body waited for the
    # client's delayed ACK of the headers, some 40 ms per reply on a keep-alive connection.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the per-request stderr log."""

    def do_GET(self) -> None:
        """Serve GET."""
        self._dispatch()

    def do_POST(self) -> None:
        """Serve POST."""
        self._dispatch()

    def do_PATCH(self) -> None:
        """Serve PATCH."""
        self._dispatch()

    def do_PUT(self) -> None:
        """Serve PUT (always 404 here)."""
        self._dispatch()

    def do_DELETE(self) -> None:
        """Serve DELETE (always 404 here)."""
        self._dispatch()

    @property
    def fake(self) -> FakeGitHub:
        fake: FakeGitHub = self.server.fake  # type: ignore[attr-defined]
        return fake

    def _dispatch(self) -> None:
        fake = self.fake
        length = int(self.headers.get("content-length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = {name.lower(): value for name, value in self.headers.items()}
        split = urlsplit(self.path)
        route_name: str | None = None
        params: dict[str, str] = {}
        path = split.path
        if path.startswith(fake.prefix + "/"):
            local = path[len(fake.prefix) :]
            for method, name, pattern in _ROUTE_PATTERNS:
                match = pattern.match(local)
                if match and method == self.command:
                    route_name, params = name, match.groupdict()
                    break
        fake._record(RecordedRequest(self.command, self.path, route_name, headers, body))

        if route_name is None:
            self._send(404, {"message": "Not Found", "documentation_url": _DOCS}, {})
            return
        if not fake._authorized(headers):
            self._send(401, {"message": "Bad credentials", "documentation_url": _DOCS}, {})
            return
        scripted = fake._next_script(route_name)
        if scripted is not None and scripted.drop:
            # Like a proxy that gives up: the client sees the connection end with no reply.
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        if scripted is None or scripted.apply:
            status, payload, extra = fake._handle(route_name, params, parse_qs(split.query), body)
        if scripted is not None:
            status, payload, extra = scripted.status, scripted.body, dict(scripted.headers)
        self._send(status, payload, extra, scripted.trickle if scripted is not None else 0.0)

    def _send(self, status: int, payload: Any, extra: Mapping[str, str], trickle: float = 0.0) -> None:
        if isinstance(payload, str):
            data, content_type = payload.encode(), "text/html; charset=utf-8"
        else:
            data, content_type = json.dumps(payload).encode(), "application/json; charset=utf-8"
        self.send_response(status)
        self.send_header("content-type", content_type)
        self.send_header("content-length", str(len(data)))
        self.send_header("x-github-media-type", "github.v3; format=json")
        self.send_header("x-github-api-version-selected", "2022-11-28")
        self.send_header("x-ratelimit-limit", "5000")
        self.send_header("x-ratelimit-resource", "core")
        for name, value in extra.items():
            self.send_header(name, value)
        if "x-ratelimit-remaining" not in {name.lower() for name in extra}:
            self.send_header("x-ratelimit-remaining", "4999")
        self.end_headers()
        if not trickle:
            self.wfile.write(data)
            return
        self.close_connection = True
        for i in range(len(data)):
            if self.fake.stopping.wait(trickle):
                return
            try:
                self.wfile.write(data[i:i + 1])
            except OSError:
                return  # the client gave up
