"""The live web behind record mode: one search, one provider's reading of pages, or one page fetch,
as the records the store keeps.

    LiveWeb.search(provider, query, params) -> SearchRecord   the provider's JSON, the key scrubbed out
    LiveWeb.contents(provider, urls, params) -> {url: ContentsRecord | Unread}   the provider's reading
    LiveWeb.fetch(url)              -> PageRecord     status, final URL, content type, body text

Every failure is a :class:`gate.errors.LiveWebError` (refused, too large, past the deadline,
a network error, a provider's error), translated here once from ``requests``, chained, and with
every secret redacted from its message and from the exceptions it chains. A fetch follows
redirects itself, up to ``record.max_redirects``, each hop through the guarded connection (see
``transport``), so a redirect to a private address is refused like a first request would be. A
search never follows a redirect: it would carry the key to another host. Answers with a
transient status (408, 429, 5xx) come back as records; the store refuses to keep them.
"""

from __future__ import annotations

import codecs
import json
import os
import socket
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from email.message import Message
from types import MappingProxyType
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import requests

from gate.config import Config, RecordConfig
from gate.errors import FetchRefused, FetchTimeout, GateError, InputError, LiveWebError, SearchFailed
from gate.files.jsonio import parse_json_bounded
from gate.live.policy import AllowList, parse_allow
from gate.live.providers import Call, SearchProvider, endpoint_problem, provider_for, sibling
from gate.live.target import request_target
from gate.live.transport import AddressRefused, Deadline, Guard, Resolve, guarded_session, read_body
from gate.snapshot.contents import CONTENTS_APIS, Unread, split_answer
from gate.snapshot.records import ContentsRecord, ExchangeRecord, PageRecord, SearchRecord
from gate.snapshot.store import search_failure
from gate.text.redact import is_secret_name, redact, scrub, scrub_exception
from gate.urls.weburl import WebURL, resolve
from gate.version import __version__

USER_AGENT = f"sourcegate/{__version__} (record mode)"
ACCEPT = "text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.8"
CONNECT_TIMEOUT = 10.0
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_CREDENTIALS = frozenset({"authorization", "cookie", "proxy-authorization"})
_NOT_FORWARDED = frozenset({"host", "content-length", "connection", "keep-alive", "proxy-authorization",
                            "proxy-connection", "transfer-encoding", "accept-encoding", "expect", "te", "upgrade"})
"""The agent's headers not sent on: the connection's own, the proxy's password, and the encodings (the
session asks for the ones it decodes)."""


def _utc_now() -> datetime:
    return datetime.now(UTC)


class LiveWeb:
    """Searches and page fetches on the live web, under the ``record:`` settings of ``sourcegate.yaml``."""

    def __init__(self, settings: RecordConfig, *, source: str | None = None,
                 environ: Mapping[str, str] | None = None, resolve: Resolve = socket.getaddrinfo,
                 clock: Callable[[], datetime] = _utc_now) -> None:
        """Check ``settings`` (InputError naming ``source`` and the JSON path); keys are read on use.

        ``environ`` holds the keys (default ``os.environ``), ``resolve`` turns a host into addresses
        (default ``socket.getaddrinfo``), ``clock`` stamps the records.
        """
        self.settings = settings
        self.allow: AllowList = parse_allow(settings.allow, file=source)
        self.providers: Mapping[str, SearchProvider] = MappingProxyType({
            name: provider_for(name, entry, self.allow, source) for name, entry in settings.search.items()})
        self.environ = os.environ if environ is None else environ
        self.resolve = resolve
        self.clock = clock

    @classmethod
    def from_config(cls, config: Config, *, environ: Mapping[str, str] | None = None,
                    resolve: Resolve = socket.getaddrinfo, clock: Callable[[], datetime] = _utc_now) -> LiveWeb:
        """A LiveWeb for the ``record:`` section of ``config`` (errors name its file)."""
        return cls(config.record, source=config.source, environ=environ, resolve=resolve, clock=clock)

    # ------------------------------------------------------------------------------------ search

    def search(self, provider: str, query: str, params: Mapping[str, Any] | None = None) -> SearchRecord:
        """Ask ``provider`` for ``query``; its JSON as a SearchRecord, or SearchFailed / LiveWebError.

        ``params``: the agent's own parameters (the request a provider's route read, but its query and
        key), sent over the configured ones; the record then keeps every parameter sent but the query
        and the key (None without them: sourcegate's own ``GET /search`` names none)."""
        chosen = self._provider(provider)
        endpoint, key = self._endpoint(chosen), self._key(chosen)
        secrets = _secrets(endpoint, key)
        what = f"search {provider!r} for {query!r} ({redact(endpoint, secrets)})"
        data = self._ask(chosen.call(endpoint, query, key, params), what, secrets)
        kept = None if params is None else scrub(chosen.sent(params), secrets)
        return SearchRecord(provider=provider, query=query, response=scrub(data, secrets), recorded_at=self.clock(),
                            params=kept)

    def contents(self, provider: str, urls: Sequence[str],
                 params: Mapping[str, Any] | None = None) -> dict[str, ContentsRecord | Unread]:
        """Ask ``provider`` to read ``urls`` (Tavily's ``/extract``, Exa's ``/contents``) with the agent's own
        ``params``; each URL's part of its answer (:mod:`gate.snapshot.contents`), or why it was not read.

        A URL that would be refused as a page fetch (another scheme, userinfo, a secret in its query)
        is not sent: a snapshot is committed. A failure of the whole request (no key, an error, a
        timeout) is a SearchFailed or a LiveWebError, as for a search."""
        chosen = self._provider(provider)
        api = CONTENTS_APIS.get(provider)
        if api is None or chosen.contents is None:
            raise SearchFailed(f"the search provider {provider!r} reads no pages for sourcegate (only "
                               f"{', '.join(CONTENTS_APIS)} do): read the page through /page or /fetch")
        out: dict[str, ContentsRecord | Unread] = {}
        for url in urls:
            why = _unsendable(url)
            if why is not None:
                out[url] = Unread(url, why)
        sent = [u for u in dict.fromkeys(urls) if u not in out]
        if not sent:
            return out
        endpoint, key = sibling(self._endpoint(chosen), chosen.contents), self._key(chosen)
        secrets = _secrets(endpoint, key)
        what = f"{provider} reading {len(sent)} page(s) ({redact(endpoint, secrets)})"
        data = self._ask(chosen.read_call(endpoint, sent, key, params), what, secrets)
        if not isinstance(data, dict):
            raise SearchFailed(f"{what}: the answer is a JSON array, not the provider's object")
        kept = None if params is None else scrub(chosen.read_sent(params), secrets)
        got = {**split_answer(api, scrub(data, secrets), sent, self.clock(), kept), **out}
        return {url: got[url] for url in dict.fromkeys(urls)}  # in the order asked

    def _provider(self, name: str) -> SearchProvider:
        chosen = self.providers.get(name)
        if chosen is None:
            known = ", ".join(self.providers) or "none"
            raise SearchFailed(f"no search provider {name!r} is configured for recording "
                               f"(record.search in sourcegate.yaml has: {known})")
        return chosen

    def _ask(self, call: Call, what: str, secrets: list[str]) -> Any:
        """The provider's JSON answer to ``call``: an object or an array, never an error (SearchFailed)."""
        with self._session(secrets, what) as (session, deadline):
            response = self._send(session, call, deadline)
            with response:
                if response.status_code in _REDIRECTS or not 200 <= response.status_code < 300:
                    body = read_body(response, self.settings.max_bytes, what)
                    raise SearchFailed(f"{what}: HTTP {response.status_code}"
                                       f"{_redirect_note(response, secrets)}: {_excerpt(body, secrets)}")
                body = read_body(response, self.settings.max_bytes, what)
        try:
            data = parse_json_bounded(body.decode(_charset(response.headers.get("Content-Type"))), "the answer")
        except UnicodeDecodeError as e:
            raise SearchFailed(f"{what}: the answer is not JSON ({_excerpt(body, secrets)})") from e
        except InputError as e:  # not JSON, or JSON the snapshot could not keep (too deep, too many objects)
            if isinstance(e.__cause__, json.JSONDecodeError):
                raise SearchFailed(f"{what}: the answer is not JSON ({_excerpt(body, secrets)})") from e
            raise SearchFailed(f"{what}: not recorded: {redact(str(e), secrets)}") from e
        if not isinstance(data, dict | list):
            raise SearchFailed(f"{what}: the answer is JSON but neither an object nor an array")
        why = search_failure(data)
        if why is not None:
            raise SearchFailed(f"{what}: the provider answered an error ({redact(why, secrets)}); not recorded")
        return data

    def _endpoint(self, provider: SearchProvider) -> str:
        if provider.endpoint_env is not None and self.environ.get(provider.endpoint_env):
            endpoint = self.environ[provider.endpoint_env]
            problem = endpoint_problem(endpoint, self.allow, from_env=True)
            if problem is not None:
                raise SearchFailed(f"{provider.endpoint_env} (record.search.{provider.name}.endpoint_env): {problem}")
            return endpoint
        if provider.endpoint is None:
            raise SearchFailed(f"{provider.endpoint_env} is not set: it holds the endpoint of the search "
                               f"provider {provider.name!r} (record.search.{provider.name}.endpoint_env)")
        return provider.endpoint

    def _key(self, provider: SearchProvider) -> str | None:
        if provider.key_env is None:
            return None
        key = self.environ.get(provider.key_env)
        if not key:
            raise SearchFailed(f"{provider.key_env} is not set: it holds the key of the search provider "
                               f"{provider.name!r} (record.search.{provider.name}.key_env)")
        return key

    # ------------------------------------------------------------------------------------- fetch

    def fetch(self, url: str) -> PageRecord:
        """GET ``url`` on the live web, following redirects; a PageRecord, or a LiveWebError.

        The request goes to the host the checks judge ``url`` by: it is written out again from the
        reading :func:`gate.urls.host` and :func:`gate.urls.canonical` make of it
        (:func:`gate.urls.weburl.parse_web`), and so is every redirect.
        """
        shown = redact(url)
        current = _target(url)
        with self._session([], shown) as (session, deadline):
            for hop in range(self.settings.max_redirects + 1):
                where = f"redirect hop {hop} to {redact(current.request_url())} from {shown}" if hop else shown
                try:
                    response = self._send(session, Call("GET", current.request_url(), MappingProxyType({}), None,
                                                        {"Accept": ACCEPT}), deadline)
                except AddressRefused as e:
                    raise FetchRefused(f"refused: {e.reason} ({where})") from e
                with response:
                    location = response.headers.get("Location")
                    if response.status_code in _REDIRECTS and location:
                        next_url = resolve(current, location.encode("latin-1").decode("utf-8", "replace"))
                        current = request_target(next_url, f"redirect hop {hop + 1} to {redact(next_url)} from {shown}")
                        continue
                    body = read_body(response, self.settings.max_bytes, shown)
                content_type = response.headers.get("Content-Type")
                return PageRecord(url=url, status=response.status_code,
                                  body=body.decode(_charset(content_type), errors="replace"),
                                  final_url=redact(current.request_url()), content_type=content_type,
                                  fetched_at=self.clock())
        raise LiveWebError(f"{shown}: more than {self.settings.max_redirects} redirects "
                           "(record.max_redirects); nothing recorded")

    def exchange(self, method: str, url: str, headers: Mapping[str, str], body: bytes) -> ExchangeRecord:
        """Send the agent's own request (``method`` of ``url`` with ``headers`` and ``body``) to the live
        web once, following no redirect; the response as an ExchangeRecord, or a LiveWebError.

        The agent's credentials (a secret-named header or query parameter, ``Authorization``,
        ``Cookie``) are sent, and redacted from everything kept or printed."""
        shown = redact(url)
        current = request_target(url, shown)
        secrets = [v for k, v in headers.items() if v and (is_secret_name(k) or k.lower() in _CREDENTIALS)]
        secrets += [v for k, v in parse_qsl(current.query or "") if is_secret_name(k) and v]
        sent = {k: v for k, v in headers.items() if k.lower() not in _NOT_FORWARDED}
        what = f"{method} {shown}"
        with self._session(secrets, what) as (session, deadline):
            response = session.request(method, current.request_url(), data=body or None,
                                       headers={"User-Agent": USER_AGENT, **sent}, allow_redirects=False,
                                       stream=True, timeout=(min(CONNECT_TIMEOUT, deadline.remaining()),
                                                             deadline.remaining()))
            with response:
                data = read_body(response, self.settings.max_bytes, what)
        content_type = response.headers.get("Content-Type")
        return ExchangeRecord(method=method, url=url, request_body=redact(body.decode("utf-8", "replace"), secrets),
                              status=response.status_code, content_type=content_type,
                              body=redact(data.decode(_charset(content_type), errors="replace"), secrets),
                              recorded_at=self.clock())

    # ------------------------------------------------------------------------------------ common

    @contextmanager
    def _session(self, secrets: list[str], what: str) -> Iterator[tuple[requests.Session, Deadline]]:
        """A guarded session under one deadline; requests' errors translated once, here, redacted."""
        with Deadline(self.settings.deadline_seconds) as deadline, \
                guarded_session(Guard(self.allow, self.resolve, deadline)) as session:
            try:
                yield session, deadline
            except AddressRefused as e:
                raise FetchRefused(f"refused: {e.reason} ({what})") from e
            except (requests.RequestException, OSError, GateError) as e:
                scrub_exception(e, secrets)
                if deadline.expired:
                    raise FetchTimeout(f"{what}: no complete answer within {self.settings.deadline_seconds:g} s "
                                       "(record.deadline_seconds, the whole request)") from e
                if isinstance(e, GateError):
                    raise
                raise LiveWebError(f"{what}: {redact(_reason(e), secrets)}") from e
            if deadline.expired:  # the watchdog may have cut a body that then looked complete
                raise FetchTimeout(f"{what}: no complete answer within {self.settings.deadline_seconds:g} s "
                                   "(record.deadline_seconds, the whole request)")

    @staticmethod
    def _send(session: requests.Session, call: Call, deadline: Deadline) -> requests.Response:
        # requests never follows a hop: fetch() follows them itself, each one checked; search() never does.
        headers = {"User-Agent": USER_AGENT, **call.headers}
        return session.request(call.method, call.url, params=dict(call.params) or None,
                               json=None if call.json is None else dict(call.json), headers=headers,
                               allow_redirects=False, stream=True,
                               timeout=(min(CONNECT_TIMEOUT, deadline.remaining()), deadline.remaining()))


def _secrets(endpoint: str, key: str | None) -> list[str]:
    """The values never to be shown of a request to a provider: its key, and any secret in its endpoint."""
    return ([key] if key else []) + [v for k, v in parse_qsl(urlsplit(endpoint).query) if is_secret_name(k)]


def _target(url: str, verb: str = "fetched") -> WebURL:
    """``url`` as it is requested; FetchRefused when it may not be (:func:`request_target`), or when its
    query carries a secret: a snapshot is committed, and the URL is its key."""
    shown = redact(url)
    target = request_target(url, shown, verb=verb)
    secret = next((k for k, _ in parse_qsl(target.query or "") if is_secret_name(k)), None)
    if secret is not None:
        raise FetchRefused(f"refused: {shown} carries a secret in its query parameter {secret!r}; "
                           "a snapshot is committed, so it is never recorded")
    return target


def _unsendable(url: str) -> str | None:
    """Why a URL is not sent to a provider to be read (a fetch would refuse it too), or None."""
    try:
        _target(url, "read")
    except FetchRefused as e:
        return str(e)
    return None


def _charset(content_type: str | None) -> str:
    """The charset a Content-Type names when Python knows it, else UTF-8."""
    message = Message()
    message["Content-Type"] = content_type or "text/plain"
    charset = message.get_content_charset() or "utf-8"
    try:
        return codecs.lookup(charset).name
    except LookupError:
        return "utf-8"


def _excerpt(body: bytes, secrets: list[str]) -> str:
    text = " ".join(body[:400].decode("utf-8", "replace").split())
    return redact(text if len(text) <= 200 else text[:197] + "...", secrets) or "(empty body)"


def _redirect_note(response: requests.Response, secrets: list[str]) -> str:
    location = response.headers.get("Location")
    if response.status_code in _REDIRECTS and location:
        return f" (a redirect to {redact(location, secrets)}, not followed: it would carry the key)"
    return ""


def _reason(error: BaseException) -> str:
    """What went wrong, in a line: the innermost cause urllib3 wraps, without the pool's repr."""
    kinds = {requests.ConnectTimeout: "the connection timed out", requests.exceptions.SSLError: "TLS failed",
             requests.ConnectionError: "could not connect", requests.Timeout: "timed out"}
    inner = error.args[0] if error.args and isinstance(error.args[0], BaseException) else error
    inner = getattr(inner, "reason", None) or inner  # urllib3's MaxRetryError holds the real reason
    detail = str(inner)
    head, sep, rest = detail.partition("): ")
    if sep and head.split("(", 1)[0].isidentifier():  # "HTTPConnectionPool(host=..., port=...): ..."
        detail = rest
    for kind, words in kinds.items():
        if isinstance(error, kind):
            return f"{words}: {detail}"
    return f"{type(error).__name__}: {detail}"
