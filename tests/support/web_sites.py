"""Stand-in web sites on loopback for the live checks: pages by path, answered to HEAD and GET.

    with Site("127.0.0.1", {"/a": page("hello"), "/b": status(404)}) as site:
        site.url("/a")        # http://127.0.0.1:PORT/a
        site.seen             # [("HEAD", "/a"), ...]

A route is a function of the request (method, path, how many times it was asked) to an
:class:`Reply`; :func:`page`, :func:`status`, :func:`redirect` and :func:`flaky` make the usual
ones. A HEAD gets the reply's status and headers without its body, as HTTP says. Given a server
``tls`` context, a site speaks HTTPS (a real host's stand-in with a certificate of its own);
:attr:`Site.connections` counts every connection it accepted, a request in it or not. :class:`Silent`
accepts connections and never answers a byte: the server that only a deadline stops.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from tests.support.loopback import ServerThread, StandIn


@dataclass(frozen=True)
class Reply:
    """What a route answers."""

    status: int = 200
    body: bytes = b""
    content_type: str = "text/plain; charset=utf-8"
    headers: dict[str, str] = field(default_factory=dict)


Route = Callable[[str, int], Reply]
"""(method, how many times this path was asked before) -> the reply."""


def page(text: str, content_type: str = "text/plain; charset=utf-8") -> Route:
    """A page that answers 200 with ``text``."""
    return lambda method, n: Reply(200, text.encode("utf-8"), content_type)


def status(code: int, headers: dict[str, str] | None = None) -> Route:
    """A page that answers ``code`` with a short body."""
    return lambda method, n: Reply(code, f"HTTP {code}".encode(), headers=dict(headers or {}))


def redirect(location: str, code: int = 301) -> Route:
    """A redirect to ``location``."""
    return lambda method, n: Reply(code, b"", headers={"Location": location})


def flaky(first: Reply, then: Route) -> Route:
    """``first`` the first time it is asked, ``then`` afterwards (a 503 that recovers)."""
    return lambda method, n: first if n == 0 else then(method, n)


def no_head(then: Route) -> Route:
    """A page whose server refuses HEAD (405) and answers GET with ``then``."""
    return lambda method, n: Reply(405, b"no HEAD here") if method == "HEAD" else then(method, n)


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, host: str, routes: dict[str, Route], tls: ssl.SSLContext | None = None) -> None:
        self.routes = routes
        self.tls = tls
        self.seen: list[tuple[str, str]] = []
        self.connections = 0
        self.lock = threading.Lock()
        super().__init__((host, 0), _Handler)

    def verify_request(self, request: Any, client_address: Any) -> bool:
        with self.lock:
            self.connections += 1
        return True

    def finish_request(self, request: Any, client_address: Any) -> None:
        if self.tls is None:
            super().finish_request(request, client_address)
            return
        try:  # on the connection's own thread: a client that never finishes its handshake holds no other
            wrapped = self.tls.wrap_socket(request, server_side=True)
        except OSError:  # the handshake failed (a client that did not trust the site)
            return
        with wrapped:
            super().finish_request(wrapped, client_address)

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hangs up between requests (a checker closing its connection) is no error


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go in two writes: each reply would wait on a delayed ACK

    def do_GET(self) -> None:  # noqa: N802
        self._answer("GET")

    def do_HEAD(self) -> None:  # noqa: N802
        self._answer("HEAD")

    def _answer(self, method: str) -> None:
        path = urlsplit(self.path).path
        with self.server.lock:
            asked = sum(1 for _, p in self.server.seen if p == path)
            self.server.seen.append((method, path))
        route = self.server.routes.get(path)
        reply = route(method, asked) if route is not None else Reply(404, b"not here")
        self.send_response(reply.status)
        self.send_header("Content-Type", reply.content_type)
        self.send_header("Content-Length", str(len(reply.body)))
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        if method != "HEAD":
            self.wfile.write(reply.body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


class Site(StandIn):
    """A web server on one loopback address, answering by path, until the ``with`` block ends."""

    def __init__(self, host: str, routes: dict[str, Route], tls: ssl.SSLContext | None = None) -> None:
        """Bind ``host`` on a free port, speaking HTTPS with ``tls``; nothing is served before ``with``."""
        self._server = _Server(host, routes, tls)
        self._running = ServerThread(self._server, f"site-{host}")

    @property
    def seen(self) -> list[tuple[str, str]]:
        """Every (method, path) asked, in order."""
        with self._server.lock:
            return list(self._server.seen)

    @property
    def connections(self) -> int:
        """How many connections the site accepted (the ``with`` block's end opens one of its own)."""
        with self._server.lock:
            return self._server.connections


class Silent:
    """Accepts every connection on a loopback address and never sends a byte."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        """Listen on ``host`` on a free port."""
        self._sock = socket.socket()
        self._sock.bind((host, 0))
        self._sock.listen(64)
        self._held: list[socket.socket] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, name="silent", daemon=True)

    def url(self, path: str) -> str:
        """``http://host:port/path``."""
        host, port = self._sock.getsockname()[:2]
        return f"http://{host}:{port}{path}"

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except OSError:
                return
            self._held.append(conn)  # kept open, never answered

    def __enter__(self) -> Silent:
        self._thread.start()
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self._stop.set()
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)  # wakes the accept() under way
        self._sock.close()
        for conn in self._held:
            conn.close()
        self._thread.join(timeout=5)
