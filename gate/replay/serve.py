"""A replay server for the agent under test: its search and fetch tools answered from the snapshot.

    GET /search?provider=serpapi&q=...  200: the provider's recorded JSON, exactly as it came
    GET /fetch?url=...                  200: {url, status, final_url, content_type, body, fetched_at,
                                             truncated}
    GET /extract?url=...                200: {url, text, published, anchors: [{href, text}], truncated}
    GET /page?url=...                   the page itself: its recorded status, content type and body
    POST /search, GET /v7.0/search, ... each search provider's own API (:mod:`gate.replay.routes`)

A recorded HTTP 404 page is a hit (200, with ``"status": 404`` in the body). Anything the snapshot
lacks is a miss: a 404 ``{"error", "layer", "key", "miss": true}`` on sourcegate's own routes, the
provider's own error on a provider's, and a line on stderr: a miss is said out loud, never turned
into a live request. So is a request no route answers, in any method; nothing is answered with an
HTML page. The server never answers from the network (record mode aside, below), reads entries from
disk on each request (a rebuild is picked up without a restart), and binds to 127.0.0.1 unless told
otherwise.

Per-case scopes (``sourcegate run``): ``/case/<token>/search`` (and every other route) answer
exactly as the unscoped routes and also tell the :class:`Scope` registered under ``token`` in
:attr:`ReplayServer.scopes` what was served and missed, so requests made in parallel are
attributed to the right case. An unknown token answers 404; a request the scope does not admit
(it came from another case's process: :mod:`gate.runner.owners`) answers 403 and is not a call.

The server is also the agent's HTTP proxy (:mod:`gate.replay.proxy`): a request in absolute form
for the server itself is served by its path, like any other; one for another host is tunnelled when
:attr:`ReplayServer.reach` allows it (the agent's model API). Otherwise, under the token of a running
case, it is answered as that host, from the frozen web (:func:`gate.replay.routes.answer_at`): a
plain ``GET http://...`` by its path, a ``CONNECT`` inside the tunnel, over TLS with a certificate
for the host from the case's authority (:attr:`ReplayServer.authorities`, :mod:`gate.replay.tls`).
A client that refuses that certificate, and any request under no running case's token, is refused
(403) and told to the case whose token it carries (:meth:`Scope.reached`).

Connections are bounded: a client that sends nothing for :data:`IDLE_TIMEOUT` seconds is dropped;
a request that has not arrived whole :data:`REQUEST_TIMEOUT` seconds after the server began to wait
for it, however its bytes trickle in, is answered 408 and its connection closed; and at most
:data:`MAX_CONNECTIONS` are served at once (one thread each). A connection over the bound waits for
a free slot, up to a little over :data:`REQUEST_TIMEOUT` or twice :data:`IDLE_TIMEOUT`, whichever is
longer (an idle client is dropped within one, a trickling one by the other), and is answered 503
after that; idle or trickling clients cannot make the server start a thread
each, nor hold a slot for long.

Record mode: the server answers from a :class:`ReplaySource`, by default the store itself (replay). A
source that records what the store lacks (:mod:`gate.replay.recording`) may raise
:class:`gate.errors.LiveWebError` (a refused address, a body over the cap, a timeout, a provider's
error): the client gets ``{"error", "layer", "key", "live": true}`` (403 refused, 504 timed out,
502 otherwise) and nothing is stored. Every line the server logs, and every miss or failure it
answers, goes through :func:`gate.text.redact` with the source's secrets first.
"""

from __future__ import annotations

import contextlib
import io
import json
import socket
import ssl
import sys
import threading
import time
import traceback
import typing
from collections.abc import Callable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol, TextIO
from urllib.parse import parse_qs, urlsplit

from gate.deadline import DeadlineExceeded
from gate.errors import InputError
from gate.replay.proxy import (
    Beyond,
    Reach,
    connect,
    forward_head,
    proxy_token,
    read_target,
    relay_reply,
    tunnel,
)
from gate.replay.routes import FrozenWeb, Origin, Reply, Request, Served, answer_at, answer_request
from gate.replay.routes.frozen import ReplaySource
from gate.replay.routes.wire import RouteCase
from gate.replay.tls import CertificateAuthority
from gate.snapshot.store import SnapshotStore
from gate.text.redact import redact

DEFAULT_HOST = "127.0.0.1"
IDLE_TIMEOUT = 5.0
"""Seconds a connection may stay silent (between requests, or inside one) before it is dropped."""
REQUEST_TIMEOUT = 10.0
"""Seconds a request may take to arrive whole (its line and headers, from the moment the server waits
for it), however slowly its bytes trickle in: each read has :data:`IDLE_TIMEOUT`, this bounds them all."""
MAX_CONNECTIONS = 32
"""Connections served at once; more wait for a slot (see the module docstring)."""
MAX_BODY = 1024 * 1024
"""The largest request body read (a search or an extract request is a few hundred bytes)."""
_BUSY = (b"HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: 40\r\n"
         b"Connection: close\r\nRetry-After: 1\r\n\r\n" + b'{"error": "too many connections, retry"}')
_LATE = (b"HTTP/1.1 408 Request Timeout\r\nContent-Type: application/json\r\nContent-Length: 47\r\n"
         b"Connection: close\r\n\r\n" + b'{"error": "the request did not arrive in time"}')


TUNNEL_IDLE = 600.0
"""Seconds a tunnel to a host the agent may reach (its model's API) may stay silent: a model answers slowly."""

SCOPE_PREFIX = "/case/"


class Scope(RouteCase, Protocol):
    """What one case's requests were answered: told of every request under its ``/case/<token>`` prefix
    (and what its routes may ask of the case: :class:`gate.replay.routes.wire.RouteCase`)."""

    def admit(self, client: tuple[str, int], request: str) -> str | None:
        """None to answer ``request`` (its path) from ``client``; otherwise why it is refused (403).

        Asked once per connection and token: a connection keeps the answer it was given."""
        ...

    def saw(self, served: Sequence[Served], began: float | None = None) -> None:
        """The request was answered: every search and page it served or missed (none for a bad request);
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
                 source: ReplaySource | None = None, secrets: tuple[str, ...] = (), afresh: bool = False,
                 clock: Callable[[], float] = time.monotonic) -> None:
        """Bind to ``host:port`` (port 0: any free port; see :attr:`url`).

        ``source`` answers the requests (default: ``store``, replay only); ``secrets`` are values
        never to be logged or answered (the keys a recording source holds); ``afresh``: the source
        records everything again (``record`` mode), so the providers' routes ask it before any
        recording of another provider the store holds. ``clock`` times the request deadline.
        """
        self.store = store
        self.source: ReplaySource = store if source is None else source
        self.afresh = afresh
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
        """the hosts a request through the server as a proxy may reach (:mod:`gate.replay.proxy`): none"""
        self.authorities: dict[str, CertificateAuthority] = {}
        """token -> the certificate authority of the case: its agent's ``CONNECT``s are answered inside the
        tunnel (:mod:`gate.replay.tls`), not refused"""
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

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away mid-request (an agent ended at its deadline, a reset) or broke the TLS of a
        tunnel the server answered (a record no key made) is no error of the server's; anything else goes to
        the log, redacted, with its traceback (not raw to stderr)."""
        if isinstance(sys.exc_info()[1], (ConnectionError, ssl.SSLError)):
            return
        who = ":".join(str(part) for part in client_address[:2]) if isinstance(client_address, tuple) else "?"
        self.log.write(f"sourcegate snapshot: ERROR serving {who}: {traceback.format_exc()}")
        self.log.flush()

    @property
    def url(self) -> str:
        """The base URL the agent under test should use."""
        host, port = self.server_address[:2]
        return f"http://{host!s}:{port}"


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
        self._raw_body = b""
        self._origin: Origin | None = None
        """where the request was sent when it came through the server as a proxy (None: to the server)"""
        self._token: str | None = None
        """the case's token of a request at its real address (its proxy password)"""

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
        self._origin = None  # each request on a kept-alive connection says where it goes
        if beyond is None and self.command == "CONNECT":  # for the server itself: its requests follow, as any other
            self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            self.wfile.flush()
            return False
        if beyond is None:
            self.path = path
            return True
        token = proxy_token(self.headers.get("Proxy-Authorization"))
        scope = self.server.scopes.get(token) if token is not None else None
        allowed = self.server.reach.allows(beyond.host, beyond.port)
        if not allowed and scope is not None and token is not None and (
                not beyond.connect or token in self.server.authorities):
            return self._at_origin(beyond, token, scope)
        self.close_connection = True
        if allowed:
            self._pass(beyond)
            return False
        if scope is not None:
            scope.reached(beyond.authority, beyond.request)
        self.server.log.write(f"sourcegate snapshot: LIVE REQUEST refused: {beyond.request}"
                              f"{'' if scope is not None else ' (from no running case)'}\n")
        self.server.log.flush()
        self._send(Reply(403, {"error": f"{beyond.request}: refused, past the frozen web (only the replay server "
                                        "and replay.allow are reachable)", "live_request": True}))
        return False

    def _at_origin(self, beyond: Beyond, token: str, scope: Scope) -> bool:
        """Answer a request for another host from the frozen web, as that host: a plain request in absolute
        form goes on to be served by its path; a CONNECT is answered inside the tunnel, over TLS with the
        case's authority. False when the request has been answered here (refused, or the tunnel served)."""
        refusal = None if token in self._admitted else scope.admit(self.client_address[:2], beyond.request)
        if refusal is not None:
            self.close_connection = True
            self._send(Reply(403, {"error": refusal}))
            return False
        self._admitted.add(token)
        if not beyond.connect:  # served by its path like any request, on a connection that may be kept alive
            self._origin = Origin("https" if beyond.tls else "http", beyond.host, beyond.port)
            self._token, self.path = token, beyond.path
            return True
        self.close_connection = True  # the tunnel is the rest of the connection
        self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
        self.wfile.flush()
        inside = self._open_tunnel(beyond, self.server.authorities[token])
        if isinstance(inside, str):
            scope.reached(beyond.authority, f"{beyond.request} ({inside})")
            self.server.log.write(f"sourcegate snapshot: TUNNEL NOT OPENED {beyond.request}: {inside}\n")
            self.server.log.flush()
            return False
        connection, scheme = inside
        try:
            _Tunnelled(connection, self.client_address, self.server, Origin(scheme, beyond.host, beyond.port), token)
        finally:
            if connection is not self.connection:  # the TLS socket took the connection's descriptor over
                with contextlib.suppress(OSError):
                    connection.close()
        return False

    def _open_tunnel(self, beyond: Beyond, authority: CertificateAuthority) -> tuple[socket.socket, str] | str:
        """The connection inside an answered CONNECT and its scheme: TLS with a certificate for the host when
        the client's first byte opens a handshake, plain HTTP otherwise; why not, when it failed."""
        self.connection.settimeout(self.server.idle_timeout)
        try:
            # The handshake's small flights, and the session tickets TLS 1.3 sends after it, leave at once: held
            # back (Nagle) until the client's delayed ACK, each tunnel's first request waited some 40 ms.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            first = self.connection.recv(1, socket.MSG_PEEK)
            if first != b"\x16":  # not a TLS handshake record: HTTP (or nothing) inside the tunnel
                return (self.connection, "http") if first else "the client closed the tunnel"
            return authority.context(beyond.host).wrap_socket(self.connection, server_side=True), "https"
        except ssl.SSLError as e:
            return (f"TLS refused: {e.reason or e} (a client that does not trust the case's certificate "
                    "authority: docs/snapshots.md lists the variables that give it)")
        except OSError as e:
            return f"the tunnel failed: {e.strerror or e}"
        except ValueError as e:  # a host no certificate can name (a name not in its A-label form, xn--...)
            return f"no certificate can name the host: {e}"

    def _pass(self, beyond: Beyond) -> None:
        """Tunnel (CONNECT) or forward a request to a host the agent may reach; 502 when it cannot be reached."""
        try:
            upstream = connect(beyond, self.server.idle_timeout * 2)
        except OSError as e:
            self._send(Reply(502, {"error": f"{beyond.request}: cannot connect ({e.strerror or e})"}))
            return
        with upstream:
            if beyond.connect:
                self.wfile.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            else:
                length = self.headers.get("Content-Length")
                if self.headers.get("Transfer-Encoding") or (length is not None and not length.isdigit()):
                    self._send(Reply(411, {"error": "a request forwarded by the proxy needs a Content-Length"}))
                    return
                head = forward_head(self.command, beyond.path, self.headers.items())
                upstream.sendall(head + self.rfile.read(int(length or 0)))
            self.wfile.flush()
            if beyond.connect:
                tunnel(self.connection, upstream, TUNNEL_IDLE)
            else:
                relay_reply(upstream, self.connection, TUNNEL_IDLE)

    def _serve(self) -> None:
        """Answer one request, in any method: a route's reply, a miss, a bad request (400) or a damaged
        entry (500), always as JSON (or the bytes of a recorded page)."""
        try:
            parts = urlsplit(self.path)
        except ValueError:  # "http://[/fetch": what urlsplit reads as an unclosed IPv6 host
            self._send(Reply(400, {"error": "the request target is not a path: use /search, /fetch or /extract"}))
            return
        body, problem = self._body()
        if problem is not None:
            self._send(problem)
            return
        params = parse_qs(parts.query, keep_blank_values=True)
        path, scope = parts.path, None
        if self._origin is not None:
            scope = self.server.scopes.get(self._token or "")
            if scope is None:  # the case has ended
                self._send(Reply(404, {"error": "no such case scope"}))
                return
        elif path.startswith(SCOPE_PREFIX):
            token, _, rest = path[len(SCOPE_PREFIX):].partition("/")
            scope = self.server.scopes.get(token)
            if scope is None:
                self._send(Reply(404, {"error": "no such case scope"}))
                return
            if token not in self._admitted:
                asked = "/" + rest + (f"?{parts.query}" if parts.query else "")  # without the token
                refusal = scope.admit(self.client_address[:2], asked)
                if refusal is not None:
                    self._send(Reply(403, {"error": refusal}))
                    return
                self._admitted.add(token)
            path = "/" + rest
        headers = {k.lower(): v for k, v in self.headers.items()}
        request = Request("GET" if self.command == "HEAD" else self.command, path, params, body, headers,
                          self._raw_body, case=scope)
        web = FrozenWeb(self.server.source, self.server.store, self.server.secrets, afresh=self.server.afresh)
        began = self.server.clock()
        try:
            reply = answer_request(request, web) if self._origin is None else answer_at(self._origin, request, web,
                                                                                          parts.query)
        except InputError as e:  # a damaged entry: the snapshot needs fixing, say which file
            reply = Reply(500, {"error": str(e)}, notes=(f"sourcegate snapshot: ERROR {e}",))
        for line in (*reply.notes, *(_miss_line(s) for s in reply.served if not s.hit)):
            self.server.log.write(line + "\n")
        if reply.notes or not all(s.hit for s in reply.served):
            self.server.log.flush()
        if scope is not None:
            scope.saw(reply.served, began)
        self._send(reply)

    do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _serve  # every method http.server dispatches

    def do_HEAD(self) -> None:  # noqa: N802 (the name http.server dispatches to)
        """A HEAD is answered as a GET would be, without the body."""
        self._head_only = True
        self._serve()

    def _body(self) -> tuple[Any, Reply | None]:
        """The request's JSON body (None without one), or the reply that refuses it."""
        if self.headers.get("Transfer-Encoding", "").lower() not in ("", "identity"):
            self.close_connection = True
            return None, Reply(411, {"error": "send the request body with a Content-Length"})
        try:
            length = int(self.headers.get("Content-Length") or 0)
        except ValueError:
            length = -1
        if length < 0 or length > MAX_BODY:
            self.close_connection = True
            return None, Reply(413, {"error": f"a request body of at most {MAX_BODY} bytes, with its Content-Length"})
        self._raw_body = b""
        if length == 0:
            return None, None
        raw = self._raw_body = self.rfile.read(length)
        try:
            return json.loads(raw), None
        except (ValueError, RecursionError):  # RecursionError: a megabyte of "[" nests deeper than json reads
            return raw, None  # not JSON: a route that needs JSON says so in its provider's words

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own errors (a malformed request line, headers too long) as JSON, not HTML."""
        self.close_connection = True
        self._send(Reply(code, {"error": message or explain or "bad request"}))

    def _send(self, reply: Reply) -> None:
        data = reply.payload()
        self.connection.settimeout(self.server.idle_timeout)  # the last read may have left less
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in reply.headers:
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if not getattr(self, "_head_only", False):
            self.wfile.write(data)
        self._head_only = False

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the signature of the base class)
        """Quiet: hits are not logged; misses, live failures and damaged entries are (see ``_serve``)."""


class _Tunnelled(_Handler):
    """The requests inside a tunnel the server answered: each for the tunnel's host, as that host."""

    def __init__(self, request: socket.socket, client_address: Any, server: ReplayServer, origin: Origin,
                 token: str) -> None:
        self._inside = (origin, token)
        super().__init__(request, client_address, server)

    def setup(self) -> None:
        """As any connection's, for the tunnel's host and the case that opened it (admitted already)."""
        super().setup()
        self._origin, self._token = self._inside
        self._admitted.add(self._token)

    def parse_request(self) -> bool:
        """The request line and headers; a target is the host's path (an absolute one is read for its path)."""
        if not BaseHTTPRequestHandler.parse_request(self):
            return False
        if not self.path.startswith("/"):
            try:
                parts = urlsplit(self.path)
            except ValueError:
                parts = urlsplit("/")
            self.path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        return True


def _miss_line(served: Served) -> str:
    who = served.provider or "no known API"
    return f"sourcegate snapshot: MISS {who} {served.request} {served.key!r}: {served.reason}"


def serve(store: SnapshotStore, host: str = DEFAULT_HOST, port: int = 0, log: TextIO | None = None) -> None:
    """Serve ``store`` until interrupted (Ctrl-C); prints where it listens to ``log`` (stderr)."""
    with ReplayServer(store, host, port, log) as server:
        server.log.write(f"sourcegate snapshot: replaying {store.root} on {server.url} "
                         "(/search, /fetch, /extract, /page and the providers' APIs); misses are said, never "
                         "live calls\n")
        server.log.flush()
        server.serve_forever()
