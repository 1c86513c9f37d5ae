"""A loopback server serving from a background thread, stopped at once rather than at its next poll.

``socketserver.BaseServer.serve_forever`` looks for a ``shutdown()`` request only between waits of
``poll_interval`` (half a second by default), so every stop of a test's server waited for the next
wake-up: most of the suite's time, spent sleeping. :class:`ServerThread` serves with
``handle_request()`` instead, which blocks until a connection arrives and never wakes up on its own;
:meth:`ServerThread.stop` sets a flag and opens one empty connection of its own, which ends the wait
at once. The handlers see that connection close before a request line and answer nothing.

    with ServerThread(ThreadingHTTPServer(("127.0.0.1", 0), Handler), "fake-api") as running:
        url = running.url
"""

from __future__ import annotations

import http.client
import json
import socket
import socketserver
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Any, BinaryIO, Self
from urllib.parse import urlencode

#: Where a wake-up connection goes for a server listening on every interface.
_ANY_TO_LOOPBACK = {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}


class ServerThread:
    """Serve ``server`` from a daemon thread until :meth:`stop` (or the end of a ``with`` block)."""

    def __init__(self, server: socketserver.BaseServer, name: str) -> None:
        """Wrap a bound ``server``; nothing runs before :meth:`start`."""
        self.server = server
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._serve, name=name, daemon=True)

    @property
    def address(self) -> tuple[str, int]:
        """The host and port the server listens on."""
        host, port = self.server.server_address[:2]
        return str(host), int(port)

    @property
    def url(self) -> str:
        """``http://HOST:PORT`` (an IPv6 host in brackets)."""
        host, port = self.address
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"

    def start(self) -> ServerThread:
        """Start serving in the background."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving (a request being handled finishes on its own thread) and close the socket."""
        if self._thread.is_alive():
            self._stopping.set()
            host, port = self.address
            try:
                with socket.create_connection((_ANY_TO_LOOPBACK.get(host, host), port), timeout=5):
                    pass
            except OSError:  # the loop is gone already (its socket failed): nothing to wake
                pass
            self._thread.join(timeout=10)
        self.server.server_close()

    def _serve(self) -> None:
        self.server.timeout = None  # wait for a connection as long as it takes: stop() sends one
        while not self._stopping.is_set():
            try:
                self.server.handle_request()
            except OSError:  # the listening socket was closed under the loop
                return

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()


class StandIn:
    """A stand-in served by a :class:`ServerThread` (``self._running``) until the ``with`` block ends,
    at ``host:port``: what the loopback stand-ins (sites, APIs) share."""

    _running: ServerThread

    @property
    def authority(self) -> str:
        """``host:port`` (for ``record.allow``)."""
        host, port = self._running.address
        return f"{host}:{port}"

    def url(self, path: str) -> str:
        """``http://host:port/path``."""
        return f"http://{self.authority}{path}"

    def __enter__(self) -> Self:
        self._running.start()
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self._running.stop()


def get_json(server: socketserver.BaseServer, path: str, **params: str) -> tuple[int, Any]:
    """``GET path?params`` from ``server`` (a loopback HTTP server): the status and the JSON body."""
    host, port = server.server_address[:2]
    conn = http.client.HTTPConnection(str(host), int(port), timeout=10)
    try:
        conn.request("GET", path + "?" + urlencode(params))
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def trickle(wfile: BinaryIO, data: bytes, every: float, stopping: threading.Event,
            sent: Callable[[], None] = lambda: None) -> None:
    """Write ``data`` one byte every ``every`` seconds (a server that never trips a read timeout),
    until it is out, ``stopping`` is set or the client hangs up; ``sent`` is told of each byte."""
    try:
        wfile.flush()
        for i in range(len(data)):
            if stopping.wait(every):
                return
            wfile.write(data[i:i + 1])
            wfile.flush()
            sent()
    except OSError:
        return  # the client gave up
