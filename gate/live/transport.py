"""The guarded connection under every live request: resolve once, check, connect to what was checked.

``requests`` resolves a host name when it opens a socket. Checking a name first and letting the
library resolve it again would let a name answer a public address to the check and 127.0.0.1 to
the connection (DNS rebinding). So the connection classes here replace urllib3's socket opening:
:meth:`Guard.connect` resolves the host once (through an injectable resolver, ``socket.getaddrinfo``
by default), refuses the connection when any address it resolves to is refused by
:func:`~gate.live.policy.address_allowed`, and connects to one of exactly those
addresses. TLS still verifies the certificate against the host name (urllib3 wraps the socket
afterwards, with the name for SNI). Proxies from the environment are ignored: a proxy would
resolve the name itself.

:class:`Deadline` bounds a whole request, redirects included, not each read: a watchdog shuts the
sockets down when the time is up, which also stops a server that trickles a byte at a time.
:func:`read_body` streams a body and stops at the cap.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from types import TracebackType
from typing import Any

import requests
from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, NameResolutionError, NewConnectionError
from urllib3.poolmanager import PoolManager

from gate.errors import BodyTooLarge
from gate.live.policy import AllowList, address_kind, host_refused

Resolve = Callable[[str, int], Iterable[Sequence[Any]]]
"""``socket.getaddrinfo``'s shape: ``(host, port)`` -> ``(family, type, proto, canonname, sockaddr)`` rows."""

BODY_CHUNK = 64 * 1024


class AddressRefused(Exception):
    """A connection the policy refused; the caller turns it into a FetchRefused naming the hop."""

    def __init__(self, reason: str) -> None:
        """``reason`` says which address and why (e.g. ``evil.test resolves to 127.0.0.1, ...``)."""
        super().__init__(reason)
        self.reason = reason


class Deadline:
    """A time limit for one whole request: a watchdog shuts its sockets down when it passes."""

    def __init__(self, seconds: float) -> None:
        """Start counting now."""
        self.seconds = seconds
        self._end = time.monotonic() + seconds
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self.expired = False
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def remaining(self) -> float:
        """Seconds left (never below a millisecond, so a timeout of 0 never means "no timeout")."""
        return max(self._end - time.monotonic(), 0.001)

    def watch(self, sock: socket.socket) -> None:
        """Shut ``sock`` down when the deadline passes (a duplicate descriptor survives a TLS wrap)."""
        copy = sock.dup()
        with self._lock:
            self._sockets.append(copy)
            if self.expired:
                _shutdown(copy)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            for sock in self._sockets:
                _shutdown(sock)

    def __enter__(self) -> Deadline:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 tb: TracebackType | None) -> None:
        self._timer.cancel()
        with self._lock:
            for sock in self._sockets:
                sock.close()
            self._sockets.clear()


def _shutdown(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):  # already closed by its connection: nothing left to stop
        sock.shutdown(socket.SHUT_RDWR)


class Guard:
    """Opens every connection of one request: resolved once, each address checked, the checked one used."""

    def __init__(self, allow: AllowList, resolve: Resolve, deadline: Deadline) -> None:
        """Check against ``allow``, resolve with ``resolve``, bound every socket by ``deadline``."""
        self.allow = allow
        self.resolve = resolve
        self.deadline = deadline

    def addresses(self, host: str, port: int) -> list[tuple[int, tuple[Any, ...]]]:
        """The (family, sockaddr) pairs to try; AddressRefused when the name or any address is refused."""
        why = host_refused(host)
        if why is not None:
            raise AddressRefused(why)
        found: list[tuple[int, tuple[Any, ...]]] = []
        for family, _type, _proto, _name, sockaddr in self.resolve(host, port):
            if family not in (socket.AF_INET, socket.AF_INET6) or (family, tuple(sockaddr)) in found:
                continue
            ip = str(sockaddr[0])
            kind = address_kind(ip, self.allow, host=host, port=port)
            if kind is not None:
                literal = host.strip("[]").lower() == ip.lower()
                raise AddressRefused(f"{ip} is {kind}" if literal else f"{host} resolves to {ip}, {kind}")
            found.append((family, tuple(sockaddr)))
        if not found:
            raise socket.gaierror(f"{host} resolves to no IPv4 or IPv6 address")
        return found

    def connect(self, host: str, port: int, timeout: float | None,
                source_address: tuple[str, int] | None, options: Sequence[tuple[int, int, Any]] | None
                ) -> socket.socket:
        """A connected socket to one of the checked addresses of ``host``."""
        error: OSError | None = None
        for family, sockaddr in self.addresses(host, port):
            sock = socket.socket(family, socket.SOCK_STREAM)
            try:
                for option in options or ():
                    sock.setsockopt(*option)
                limit = self.deadline.remaining()
                sock.settimeout(limit if timeout is None else min(timeout, limit))
                if source_address:
                    sock.bind(source_address)
                sock.connect(sockaddr)
            except OSError as e:
                sock.close()
                error = e
                continue
            self.deadline.watch(sock)
            return sock
        assert error is not None  # addresses() never returns an empty list
        raise error


class _GuardedHTTPConnection(HTTPConnection):
    """urllib3's connection, opening its socket through a Guard."""

    def __init__(self, *args: Any, guard: Guard, **kwargs: Any) -> None:
        self._guard = guard
        super().__init__(*args, **kwargs)

    def _new_conn(self) -> socket.socket:
        # The same translations as urllib3's own _new_conn, so requests reports the usual errors.
        timeout = self.timeout if isinstance(self.timeout, int | float) else None
        try:
            return self._guard.connect(self._dns_host, self.port, timeout, self.source_address,
                                       self.socket_options)
        except socket.gaierror as e:
            raise NameResolutionError(self.host, self, e) from e
        except TimeoutError as e:
            raise ConnectTimeoutError(self, f"Connection to {self.host} timed out") from e
        except OSError as e:
            raise NewConnectionError(self, f"Failed to establish a new connection: {e}") from e


class _GuardedHTTPSConnection(_GuardedHTTPConnection, HTTPSConnection):
    """The TLS connection: guarded socket first, then urllib3's TLS with the host name for SNI."""


class _GuardedPoolManager(PoolManager):
    def __init__(self, guard: Guard, **kwargs: Any) -> None:
        self._guard = guard
        super().__init__(**kwargs)

    def _new_pool(self, scheme: str, host: str, port: int,
                  request_context: dict[str, Any] | None = None) -> HTTPConnectionPool:
        pool = super()._new_pool(scheme, host, port, request_context)
        pool.ConnectionCls = (_GuardedHTTPSConnection if isinstance(pool, HTTPSConnectionPool)
                              else _GuardedHTTPConnection)
        pool.conn_kw["guard"] = self._guard
        return pool


class _GuardedAdapter(HTTPAdapter):
    def __init__(self, guard: Guard) -> None:
        self._guard = guard
        super().__init__(max_retries=0)

    def init_poolmanager(self, connections: int, maxsize: int, block: bool = False, **pool_kwargs: Any) -> None:
        self.poolmanager = _GuardedPoolManager(self._guard, num_pools=connections, maxsize=maxsize,
                                               block=block, **pool_kwargs)


def guarded_session(guard: Guard) -> requests.Session:
    """A session whose every connection goes through ``guard``, ignoring proxy and netrc settings."""
    session = requests.Session()
    session.trust_env = False
    adapter = _GuardedAdapter(guard)
    session.mount("http://", adapter)
    session.mount("https://", adapter)
    return session


def read_body(response: requests.Response, max_bytes: int, what: str) -> bytes:
    """The body, streamed; BodyTooLarge as soon as it is over ``max_bytes`` (``what`` names it)."""
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        raise BodyTooLarge(f"{what}: the answer declares {int(declared)} bytes, over the cap of "
                           f"{max_bytes} (record.max_bytes); not read")
    body = bytearray()
    for chunk in response.iter_content(BODY_CHUNK):
        body += chunk
        if len(body) > max_bytes:
            raise BodyTooLarge(f"{what}: the answer is over the cap of {max_bytes} bytes "
                               "(record.max_bytes); reading stopped there")
    return bytes(body)
