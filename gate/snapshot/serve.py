"""A replay server for the agent under test: its search and fetch tools answered from the snapshot.

    GET /search?provider=serpapi&q=...  200: the provider's recorded JSON, exactly as it came
    GET /fetch?url=...                  200: {url, status, final_url, content_type, body, fetched_at,
                                             truncated}
    GET /extract?url=...                200: {url, text, published, anchors: [{href, text}], truncated}

A recorded HTTP 404 page is a hit (200, with ``"status": 404`` in the body). Anything the snapshot
lacks answers 404 with ``{"error", "layer", "key", "miss": true}`` and a line on stderr: a miss is
said out loud, never turned into a live request. The server never proxies to the network, reads
entries from disk on each request (a rebuild is picked up without a restart), and binds to
127.0.0.1 unless told otherwise.

Per-case scopes (``sourcegate run``): ``/case/<token>/search`` (and ``/fetch``, ``/extract``) answer
exactly as the unscoped endpoints and also tell the :class:`Scope` registered under ``token`` in
:attr:`ReplayServer.scopes` what was asked and answered, so requests made in parallel are
attributed to the right case. An unknown token answers 404; a request the scope does not admit
(it came from another case's process: :mod:`gate.runner.owners`) answers 403 and is not a call.

Connections are bounded: a client that sends nothing for :data:`IDLE_TIMEOUT` seconds is dropped;
a request that has not arrived whole :data:`REQUEST_TIMEOUT` seconds after the server began to wait
for it, however its bytes trickle in, is answered 408 and its connection closed; and at most
:data:`MAX_CONNECTIONS` are served at once (one thread each). A connection over the bound waits for
a free slot, up to a little over :data:`REQUEST_TIMEOUT` or twice :data:`IDLE_TIMEOUT`, whichever is
longer (an idle client is dropped within one, a trickling one by the other), and is answered 503
after that; idle or trickling clients cannot make the server start a thread
each, nor hold a slot for long.

Record mode: the server answers from a :class:`ReplaySource`, by default the store itself (replay). A
source that records what the store lacks (:mod:`gate.snapshot.recording`) may raise
:class:`gate.errors.LiveWebError` (a refused address, a body over the cap, a timeout, a provider's
error): the client gets ``{"error", "layer", "key", "live": true}`` (403 refused, 504 timed out,
502 otherwise) and nothing is stored. Every line the server logs, and every miss or failure it
answers, goes through :func:`gate.snapshot.live.redact` with the source's secrets first.
"""

from __future__ import annotations

import contextlib
import io
import json
import socket
import sys
import threading
import time
import typing
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol, TextIO
from urllib.parse import parse_qs, urlsplit

from gate.deadline import DeadlineExceeded
from gate.errors import FetchRefused, FetchTimeout, InputError, LiveWebError, SnapshotMiss
from gate.snapshot.live.redact import redact
from gate.snapshot.proxy import Beyond, Reach, connect, proxy_token, read_target, tunnel
from gate.snapshot.records import (
    EXTRACTIONS,
    PAGES,
    SEARCH,
    ExtractionRecord,
    PageRecord,
    SearchRecord,
    extraction_entry,
    page_entry,
    search_key,
    url_key,
)
from gate.snapshot.store import SnapshotStore

DEFAULT_HOST = "127.0.0.1"
IDLE_TIMEOUT = 5.0
"""Seconds a connection may stay silent (between requests, or inside one) before it is dropped."""
REQUEST_TIMEOUT = 10.0
"""Seconds a request may take to arrive whole (its line and headers, from the moment the server waits
for it), however slowly its bytes trickle in: each read has :data:`IDLE_TIMEOUT`, this bounds them all."""
MAX_CONNECTIONS = 32
"""Connections served at once; more wait for a slot (see the module docstring)."""
_BUSY = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: 40\r\n"
         b"Connection: close\r\nRetry-After: 1\r\n\r\n" + b'{"error": "too many connections, retry"}')
_LATE = (b"HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\nContent-Length: 47\r\n"
         b"Connection: close\r\n\r\n" + b'{"error": "the request did not arrive in time"}')


TUNNEL_IDLE = 600.0
"""Seconds a tunnel to a host the agent may reach (its model's API) may stay silent: a model answers slowly."""

SCOPE_PREFIX = "/case/"


class Scope(Protocol):
    """What one case's requests were answered: told of every request under its ``/case/<token>`` prefix."""

    def admit(self, client: tuple[str, int], request: str) -> str | None:
        """None to answer ``request`` (its path) from ``client``; otherwise why it is refused (403).

        Asked once per connection and token: a connection keeps the answer it was given."""
        ...

    def saw(self, endpoint: str, params: Mapping[str, list[str]], status: int, body: Any,
            began: float | None = None) -> None:
        """``endpoint`` (``/search``, ...) was asked with ``params`` and answered ``status`` with ``body``;
        the server began to answer at ``began`` on its clock (:attr:`ReplayServer.clock`)."""
        ...

    def reached(self, host: str, request: str) -> None:
        """The case asked the server, as its proxy, for ``host`` (``name:port``): refused."""
        ...


class ReplayServer(ThreadingHTTPServer):
    """An HTTP server bound to one snapshot store."""

    daemon_threads = True
    request_queue_size = 128
    """The listen backlog: ``sourcegate run --jobs N`` agents connect at once, and with socketserver's 5
    each connection beyond it waits for its client to send its SYN again (1 s, then 2 s, ...)."""

    def __init__(self, store: SnapshotStore, host: str = DEFAULT_HOST, port: int = 0,
                 log: TextIO | None = None, *, idle_timeout: float = IDLE_TIMEOUT,
                 request_timeout: float = REQUEST_TIMEOUT, max_connections: int = MAX_CONNECTIONS,
                 source: ReplaySource | None = None, secrets: tuple[str, ...] = (),
                 clock: Callable[[], float] = time.monotonic) -> None:
        """Bind to ``host:port`` (port 0: any free port; see :attr:`url`).

        ``source`` answers the requests (default: ``store``, replay only); ``secrets`` are values
        never to be logged or answered (the keys a recording source holds). ``clock`` times the
        request deadline.
        """
        self.store = store
        self.source: ReplaySource = store if source is None else source
        self.secrets = secrets
        # A text stream like any other to its users (an io.TextIOBase), redacting what it passes on.
        self.log = typing.cast(TextIO, _RedactedLog(log if log is not None else sys.stderr, secrets))
        self.idle_timeout = idle_timeout
        self.request_timeout = request_timeout
        self.clock = clock
        self._slots = threading.BoundedSemaphore(max_connections)
        self.scopes: dict[str, Scope] = {}
        """token -> the scope its ``/case/<token>/...`` requests are reported to"""
        self.reach = Reach()
        """the hosts a request through the server as a proxy may reach (:mod:`gate.snapshot.proxy`): none"""
        super().__init__((host, port), _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        """Serve the connection on a thread of its own once a slot is free; 503 when none frees up."""
        if not self._slots.acquire(timeout=max(2 * self.idle_timeout, self.request_timeout) + 1):
            with contextlib.suppress(OSError):
                request.settimeout(1.0)
                request.sendall(_BUSY)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        """One connection, then its slot is free again."""
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    @property
    def url(self) -> str:
        """The base URL the agent under test should use."""
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"


class ReplaySource(Protocol):
    """Where the server's answers come from; :class:`SnapshotStore` is the replaying one."""

    def search(self, provider: str, query: str) -> SearchRecord:
        """The answer of ``provider`` to ``query``; SnapshotMiss or LiveWebError when there is none."""

    def page(self, url: str) -> PageRecord:
        """The fetch of ``url``; SnapshotMiss or LiveWebError when there is none."""

    def extraction(self, url: str) -> ExtractionRecord:
        """The extraction of ``url``; SnapshotMiss or LiveWebError when there is none."""


class _RedactedLog(io.TextIOBase):
    """The server's log: each write redacted (every line is written whole), then passed on."""

    def __init__(self, log: TextIO, secrets: tuple[str, ...]) -> None:
        super().__init__()
        self._log, self._secrets = log, secrets

    def write(self, text: str) -> int:
        return self._log.write(redact(text, self._secrets))

    def flush(self) -> None:
        self._log.flush()

    def writable(self) -> bool:
        return True


class _BadRequest(Exception):
    """A request the server cannot answer: a missing or repeated parameter."""


def _one(params: Mapping[str, list[str]], name: str) -> str:
    values = params.get(name, [])
    if len(values) != 1:
        raise _BadRequest(f"expected exactly one {name!r} parameter, got {len(values)}")
    return values[0]


def _public(entry: Mapping[str, Any]) -> dict[str, Any]:
    """An entry as the agent sees it: the recording, without the snapshot's bookkeeping."""
    return {k: v for k, v in entry.items() if k not in ("format", "key")}


class _RequestReader(socket.SocketIO):
    """The connection's reads: each within the idle timeout, and all of one request by its deadline."""

    def __init__(self, sock: socket.socket, server: ReplayServer) -> None:
        super().__init__(sock, "rb")
        self.server = server
        self.deadline = float("inf")

    def readinto(self, b: Any) -> int | None:
        left = self.deadline - self.server.clock()
        if left <= 0:
            raise DeadlineExceeded
        self._sock.settimeout(min(self.server.idle_timeout, left))  # type: ignore[attr-defined]
        try:
            return super().readinto(b)
        except TimeoutError:
            if self.deadline - self.server.clock() <= 0:
                raise DeadlineExceeded from None
            raise


class _Handler(BaseHTTPRequestHandler):
    server: ReplayServer
    server_version = "sourcegate-snapshot"
    protocol_version = "HTTP/1.1"
    # Buffered: headers and body leave in one write. Unbuffered, the body waited on the client's
    # delayed ACK of the headers (Nagle), some 40 ms per request on a keep-alive connection.
    wbufsize = -1

    def setup(self) -> None:
        """Every read and write on the connection times out after the server's idle timeout, and every
        request must arrive whole by its deadline (:attr:`ReplayServer.request_timeout`)."""
        super().setup()
        self.connection.settimeout(self.server.idle_timeout)
        self.rfile.close()  # the plain reader setup() made: the connection stays open for this one
        self._reader = _RequestReader(self.connection, self.server)
        self.rfile = io.BufferedReader(self._reader)
        self._admitted: set[str] = set()

    def handle_one_request(self) -> None:
        """One request, read by its deadline; a late one is answered 408 and its connection closed."""
        self._reader.deadline = self.server.clock() + self.server.request_timeout
        try:
            super().handle_one_request()
        except DeadlineExceeded:
            self.close_connection = True
            with contextlib.suppress(OSError):
                self.connection.settimeout(1.0)
                self.connection.sendall(_LATE)

    def parse_request(self) -> bool:
        """The request line and headers; a request for another host (the server is the agent's proxy) is
        answered here, and one in absolute form for the server itself is served by its path."""
        if not super().parse_request():
            return False
        host, port = self.server.server_address[:2]
        path, beyond = read_target(self.command, self.path, (str(host), int(port)))
        if beyond is None:
            self.path = path
            return True
        self.close_connection = True
        if self.server.reach.allows(beyond.host, beyond.port):
            self._pass(beyond)
            return False
        token = proxy_token(self.headers.get("Proxy-Authorization"))
        scope = self.server.scopes.get(token) if token is not None else None
        if scope is not None:
            scope.reached(beyond.authority, beyond.request)
        self.server.log.write(f"sourcegate snapshot: LIVE REQUEST refused: {beyond.request}"
                              f"{'' if scope is not None else ' (from no running case)'}\n")
        self.server.log.flush()
        self._send(403, {"error": f"{beyond.request}: refused, past the frozen web (only the replay server and "
                                  "replay.allow are reachable)", "live_request": True})
        return False

    def _pass(self, beyond: Beyond) -> None:
        """Tunnel (CONNECT) or forward a request to a host the agent may reach; 502 when it cannot be reached."""
        try:
            upstream = connect(beyond, self.server.idle_timeout * 2)
        except OSError as e:
            self._send(502, {"error": f"{beyond.request}: cannot connect ({e.strerror or e})"})
            return
        with upstream:
            if beyond.connect:
                self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            else:
                length = self.headers.get("Content-Length")
                if self.headers.get("Transfer-Encoding") or (length is not None and not length.isdigit()):
                    self._send(411, {"error": "a request forwarded by the proxy needs a Content-Length"})
                    return
                kept = [f"{k}: {v}" for k, v in self.headers.items()
                        if k.lower() not in ("proxy-authorization", "proxy-connection", "connection", "keep-alive")]
                head = "\r\n".join([f"{self.command} {beyond.path} HTTP/1.1", *kept, "Connection: close", "", ""])
                upstream.sendall(head.encode("latin-1", "replace") + self.rfile.read(int(length or 0)))
            self.wfile.flush()
            tunnel(self.connection, upstream, TUNNEL_IDLE, until_upstream_ends=not beyond.connect)

    def do_GET(self) -> None:  # noqa: N802 (the name http.server dispatches to)
        """Answer one request: a hit, a miss (404), a bad request (400) or a damaged entry (500)."""
        try:
            parts = urlsplit(self.path)
        except ValueError:  # "http://[/fetch": what urlsplit reads as an unclosed IPv6 host
            self._send(400, {"error": "the request target is not a path: use /search, /fetch or /extract"})
            return
        params = parse_qs(parts.query, keep_blank_values=True)
        path, scope = parts.path, None
        if path.startswith(SCOPE_PREFIX):
            token, _, rest = path[len(SCOPE_PREFIX):].partition("/")
            scope = self.server.scopes.get(token)
            if scope is None:
                self._send(404, {"error": "no such case scope"})
                return
            if token not in self._admitted:
                asked = "/" + rest + (f"?{parts.query}" if parts.query else "")  # without the token
                refusal = scope.admit(self.client_address[:2], asked)
                if refusal is not None:
                    self._send(403, {"error": refusal})
                    return
                self._admitted.add(token)
            path = "/" + rest
        began = self.server.clock()
        try:
            status, body = self._answer(path, params)
        except _BadRequest as e:
            status, body = 400, {"error": str(e)}
        except InputError as e:  # a damaged entry: the snapshot needs fixing, say which file
            self.server.log.write(f"sourcegate snapshot: ERROR {e}\n")
            status, body = 500, {"error": str(e)}
        if scope is not None:
            scope.saw(path, params, status, body, began)
        self._send(status, body)

    def _answer(self, path: str, params: Mapping[str, list[str]]) -> tuple[int, Any]:
        source = self.server.source
        if path == "/search":
            provider, query = _one(params, "provider"), _one(params, "q")
            try:
                return 200, source.search(provider, query).response
            except SnapshotMiss as e:
                return self._miss(SEARCH.name, search_key(provider, query), e)
            except LiveWebError as e:
                return self._failed(SEARCH.name, search_key(provider, query), e)
        if path in ("/fetch", "/extract"):
            url = _one(params, "url")
            try:
                if path == "/fetch":
                    return 200, _public(page_entry(source.page(url)))
                return 200, {**_public(extraction_entry(source.extraction(url))), "truncated": self._cut(url)}
            except SnapshotMiss as e:
                layer = PAGES if path == "/fetch" else EXTRACTIONS
                return self._miss(layer.name, url_key(url), e)
            except LiveWebError as e:
                layer = PAGES if path == "/fetch" else EXTRACTIONS
                return self._failed(layer.name, url_key(url), e)
        return 404, {"error": f"no such endpoint {path!r}: use /search, /fetch or /extract"}

    def _cut(self, url: str) -> bool:
        """Whether the page an extraction was made from was cut (its flag survives into a served trace)."""
        try:
            return self.server.store.page(url).truncated
        except SnapshotMiss:
            return False

    def _miss(self, layer: str, key: str, error: SnapshotMiss) -> tuple[int, Any]:
        self.server.log.write(f"sourcegate snapshot: MISS {error}\n")
        self.server.log.flush()
        return 404, {"error": redact(str(error), self.server.secrets), "layer": layer, "key": key, "miss": True}

    def _failed(self, layer: str, key: str, error: LiveWebError) -> tuple[int, Any]:
        """The live web gave nothing to record: the client is told why, nothing is stored."""
        self.server.log.write(f"sourcegate snapshot: NOT RECORDED {error}\n")
        self.server.log.flush()
        status = 403 if isinstance(error, FetchRefused) else 504 if isinstance(error, FetchTimeout) else 502
        return status, {"error": redact(str(error), self.server.secrets), "layer": layer, "key": key, "live": True}

    def _send(self, status: int, body: Any) -> None:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        self.connection.settimeout(self.server.idle_timeout)  # the last read may have left less
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the signature of the base class)
        """Quiet: hits are not logged; misses, live failures and damaged entries are (see ``_miss``)."""


def serve(store: SnapshotStore, host: str = DEFAULT_HOST, port: int = 0, log: TextIO | None = None) -> None:
    """Serve ``store`` until interrupted (Ctrl-C); prints where it listens to ``log`` (stderr)."""
    with ReplayServer(store, host, port, log) as server:
        server.log.write(f"sourcegate snapshot: replaying {store.root} on {server.url} "
                         "(/search, /fetch, /extract); misses are 404, never live calls\n")
        server.log.flush()
        server.serve_forever()
