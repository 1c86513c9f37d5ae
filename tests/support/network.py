"""The tests' network guard: loopback and Unix sockets only, anything else fails the test.

:class:`NetworkGuard` wraps the few calls every client goes through (``socket.socket.connect``,
``connect_ex`` and ``sendto``, which ``socket.create_connection``, ``requests``, ``httpx`` and the
SDKs all reach, and the name lookups ``getaddrinfo``, ``gethostbyname(_ex)`` and
``gethostbyaddr``) and checks the destination *before* the real call: a blocked connection sends
no packet, and a blocked lookup sends no DNS query. Allowed are Unix and netlink sockets (the
machine's own kernel: ``sourcegate run`` asks it who holds a connection), 127.0.0.0/8, ::1
(and ::ffff:127.x) and the name ``localhost``; a lookup of an address literal is allowed too (it
needs no query; the connection to it is checked). Anything else raises :class:`NetworkBlocked`
and is recorded, so that a test whose code swallows the error still fails at teardown.

The guard covers this process; subprocesses started by a test (git, ``python -c ...``) are not
patched, but inherit the scrubbed environment.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from collections.abc import Callable
from typing import Any

LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})


class NetworkBlocked(BaseException):
    """A test tried to reach beyond loopback.

    A ``BaseException``, like ``pytest.fail``'s: no ``except Exception`` in the code under test
    (an SDK's retry loop, the gate's own error translation) can turn it into a handled failure.
    """


def _host_of(address: Any) -> str | None:
    if isinstance(address, tuple) and address and isinstance(address[0], (str, bytes)):
        host = address[0]
        return host.decode("ascii", "replace") if isinstance(host, bytes) else host
    return None


def is_loopback(host: str) -> bool:
    """Whether ``host`` (an address literal or a name) is this machine's loopback."""
    if host.lower().rstrip(".") in LOCAL_NAMES:
        return True
    try:
        ip = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped.is_loopback
    return ip.is_loopback


def _is_literal(host: str) -> bool:
    try:
        ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return False
    return True


class NetworkGuard:
    """Installs the checks on :mod:`socket`; :attr:`allow_all` lifts them (tests marked ``real_api``)."""

    def __init__(self) -> None:
        """A guard not installed yet."""
        self.allow_all = False
        self._attempts: list[str] = []
        self._lock = threading.Lock()
        self._saved: list[tuple[Any, str, Any]] = []

    # ---- what tests see ------------------------------------------------------------------

    def take_attempts(self) -> list[str]:
        """The blocked attempts since the last call (and forget them)."""
        with self._lock:
            attempts, self._attempts = self._attempts, []
        return attempts

    def block(self, what: str) -> NetworkBlocked:
        """Record a blocked attempt; the error to raise for it."""
        with self._lock:
            self._attempts.append(what)
        return NetworkBlocked(f"tests never reach the network: {what} was blocked (only loopback and "
                              "Unix sockets are allowed; point the client at a fake server on 127.0.0.1)")

    # ---- the checks -----------------------------------------------------------------------

    def check_address(self, family: int, address: Any, call: str) -> None:
        """Raise unless ``address`` (of a socket of ``family``) is loopback, a Unix path or netlink's."""
        if self.allow_all or family in (getattr(socket, "AF_UNIX", object()), getattr(socket, "AF_NETLINK", object())):
            return
        host = _host_of(address)
        if family in (socket.AF_INET, socket.AF_INET6) and host is not None and is_loopback(host):
            return
        raise self.block(f"{call}({address!r})")

    def check_name(self, host: Any, call: str, *, reverse: bool = False) -> None:
        """Raise unless looking up ``host`` needs no DNS query (None, a loopback name or address, and
        for a forward lookup any address literal); ``reverse`` for an address-to-name lookup."""
        if self.allow_all or host is None:
            return
        name = host.decode("ascii", "replace") if isinstance(host, bytes) else str(host)
        if is_loopback(name) or (not reverse and (name == "" or _is_literal(name))):
            return
        raise self.block(f"{call}({name!r})")

    # ---- installing ---------------------------------------------------------------------------

    def install(self) -> None:
        """Wrap the socket calls (once)."""
        if self._saved:
            return
        guard = self
        cls = socket.socket
        connect, connect_ex, sendto = cls.connect, cls.connect_ex, cls.sendto

        def checked(sock: socket.socket, address: Any, call: str) -> None:
            try:
                guard.check_address(sock.family, address, call)
            except NetworkBlocked:
                sock.close()  # the caller's cleanup is skipped by a BaseException: no socket leaks
                raise

        def guarded_connect(sock: socket.socket, address: Any) -> None:
            checked(sock, address, "connect")
            connect(sock, address)

        def guarded_connect_ex(sock: socket.socket, address: Any) -> int:
            checked(sock, address, "connect_ex")
            return connect_ex(sock, address)

        def guarded_sendto(sock: socket.socket, data: Any, *rest: Any) -> int:
            checked(sock, rest[-1] if rest else None, "sendto")
            return sendto(sock, data, *rest)  # type: ignore[arg-type]

        def lookup(original: Callable[..., Any], call: str) -> Callable[..., Any]:
            def guarded(host: Any, *args: Any, **kwargs: Any) -> Any:
                guard.check_name(host, call, reverse=call.endswith("byaddr"))
                return original(host, *args, **kwargs)
            guarded.__name__ = guarded.__qualname__ = original.__name__
            guarded.__doc__ = original.__doc__
            return guarded

        patches: list[tuple[Any, str, Any]] = [
            (cls, "connect", guarded_connect),
            (cls, "connect_ex", guarded_connect_ex),
            (cls, "sendto", guarded_sendto),
        ]
        for name in ("getaddrinfo", "gethostbyname", "gethostbyname_ex", "gethostbyaddr"):
            patches.append((socket, name, lookup(getattr(socket, name), f"socket.{name}")))
        for owner, name, replacement in patches:
            self._saved.append((owner, name, owner.__dict__.get(name)))
            setattr(owner, name, replacement)

    def uninstall(self) -> None:
        """Put the socket calls back as they were."""
        for owner, name, original in reversed(self._saved):
            if original is None:
                delattr(owner, name)
            else:
                setattr(owner, name, original)
        self._saved.clear()


#: The one guard of a test run (installed by ``tests/conftest.py``).
GUARD = NetworkGuard()
