"""The one way out of each confined case's network namespace: the sockets its keeper listens on there,
served by the gate (Linux, ``--network``).

A keeper that made its case's namespace (:mod:`gate.runner.netns`) hands the gate a TCP listener on
127.0.0.1 at the replay server's own port, and a UDP socket at each loopback DNS resolver. A
:class:`Doors` (one thread for the run) accepts on the listeners and hands each connection to the
replay server (``process_request``, as its own loop does) under a client address that names the case
(:func:`gate.runner.owners.door_address`): only that case's processes are in the namespace, so the
socket it came in on says whose it is, and a request there under another case's token is refused
like any crossing (:class:`gate.runner.owners.CrossCase`). A DNS query is read, the name it asks for
told to the case as a request past the frozen web (:mod:`gate.runner.dns`), and answered ``REFUSED``.
The sockets are closed when the case ends; nothing else is ever reachable from the namespace.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
from collections.abc import Sequence
from types import TracebackType
from typing import Any, Protocol

from gate.runner.dns import question, refused
from gate.runner.network import NetworkPlan
from gate.runner.owners import door_address

__all__ = ["OPEN_TIMEOUT", "CaseDoor", "Doors"]

OPEN_TIMEOUT = 30.0
"""Seconds a keeper has to make its namespace and hand over its sockets (a loaded machine starts
Python slowly)."""
_POLL = 0.5
_DATAGRAM = 4096
_MAX_SOCKETS = 16


class Serves(Protocol):
    """The replay server, as the doors hand it connections (:class:`gate.replay.serve.ReplayServer`)."""

    def process_request(self, request: Any, client_address: Any) -> None:
        """Serve ``request`` (an accepted connection) from ``client_address``."""
        ...


class Reached(Protocol):
    """Where a case's look-ups are told (its :class:`gate.runner.scope.CaseScope`)."""

    def reached(self, host: str, request: str) -> None:
        """The case asked for ``host``, past the frozen web: refused."""
        ...


class CaseDoor:
    """One case's namespace as the gate sees it: what its keeper is told, and the sockets it hands
    over, served until :meth:`close` (a context manager: closed when the case ends)."""

    def __init__(self, doors: Doors, case: str, scope: Reached) -> None:
        """The door of ``case``, whose look-ups are told to ``scope``."""
        self._doors, self.case, self.scope = doors, case, scope

    def keeper_args(self, channel: int) -> list[str]:
        """``--net FD METHOD PORT RESOLVERS`` (:mod:`gate.runner.keeper`)."""
        plan = self._doors.plan
        return ["--net", str(channel), plan.method or "", str(self._doors.port), ",".join(plan.resolvers)]

    def opened(self, channel: socket.socket) -> str | None:
        """Take the sockets the keeper sends on ``channel`` and serve them; None, or why the namespace
        could not be made (the keeper's reason, or that it said nothing in :data:`OPEN_TIMEOUT` seconds)."""
        channel.settimeout(OPEN_TIMEOUT)
        try:
            message, fds, _flags, _address = socket.recv_fds(channel, _DATAGRAM, _MAX_SOCKETS)
        except OSError as e:
            return f"its network namespace was not made: the keeper said nothing ({e})"
        sockets = [socket.socket(fileno=fd) for fd in fds]
        if message != b"ok" or not sockets:
            for s in sockets:
                s.close()
            why = message.decode("utf-8", "replace").removeprefix("error: ") or "the keeper ended first"
            return f"its network namespace could not be made: {why}"
        self._doors.add(self, sockets)
        return None

    def close(self) -> None:
        """The case has ended: its sockets are closed (by the doors' thread)."""
        self._doors.remove(self)

    def __enter__(self) -> CaseDoor:
        """The door, closed on leaving."""
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        """Close it."""
        self.close()


class Doors:
    """The confined cases' sockets of one run, served by one thread (a context manager)."""

    def __init__(self, server: Serves, port: int, plan: NetworkPlan, own_names: Sequence[str] = ()) -> None:
        """Hand connections to ``server`` (listening on 127.0.0.1:``port``, the port each namespace
        listens on too); ``own_names``: the machine's own names, whose look-ups are answered but not told
        (a library asks for its host's name without going anywhere)."""
        self._server, self.port, self.plan = server, port, plan
        self._own = tuple(n.lower().rstrip(".") for n in (*own_names, "localhost") if n)
        self._selector: selectors.BaseSelector | None = None
        self._wake_r: socket.socket | None = None
        self._wake_w: socket.socket | None = None
        self._lock = threading.Lock()
        self._pending: list[tuple[CaseDoor, list[socket.socket] | None]] = []
        self._open: dict[CaseDoor, list[socket.socket]] = {}
        self._stopping = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="sourcegate-doors", daemon=True)

    def case(self, case: str, scope: Reached) -> CaseDoor:
        """The door of ``case``, its look-ups told to ``scope``."""
        return CaseDoor(self, case, scope)

    def add(self, door: CaseDoor, sockets: list[socket.socket]) -> None:
        """Serve ``door``'s sockets (from the doors' thread)."""
        self._change(door, sockets)

    def remove(self, door: CaseDoor) -> None:
        """Stop serving ``door``'s sockets and close them."""
        self._change(door, None)

    def __enter__(self) -> Doors:
        """Start serving."""
        self._selector = selectors.DefaultSelector()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._selector.register(self._wake_r, selectors.EVENT_READ)
        self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        """Stop serving; every socket left is closed."""
        self._stopping.set()
        self._wake()
        self._thread.join()
        for sockets in [*self._open.values(), *(s for _, s in self._pending if s is not None)]:
            for s in sockets:
                s.close()
        self._open.clear()
        self._pending.clear()
        for thing in (self._selector, self._wake_r, self._wake_w):
            if thing is not None:
                thing.close()

    def _change(self, door: CaseDoor, sockets: list[socket.socket] | None) -> None:
        with self._lock:
            self._pending.append((door, sockets))
        self._wake()

    def _wake(self) -> None:
        if self._wake_w is not None:
            with contextlib.suppress(OSError):
                self._wake_w.send(b"w")

    def _apply(self) -> None:
        """Register and unregister what the cases asked for, in the thread that selects."""
        with self._lock:
            pending, self._pending = self._pending, []
        assert self._selector is not None
        for door, sockets in pending:
            if sockets is not None:
                self._open[door] = sockets
                for s in sockets:
                    s.setblocking(False)
                    self._selector.register(s, selectors.EVENT_READ, door)
                continue
            for s in self._open.pop(door, ()):
                self._selector.unregister(s)
                s.close()

    def _loop(self) -> None:
        assert self._selector is not None
        while not self._stopping.is_set():
            for key, _ in self._selector.select(_POLL):
                sock = key.fileobj
                assert isinstance(sock, socket.socket)
                if sock is self._wake_r:
                    with contextlib.suppress(OSError):
                        sock.recv(_DATAGRAM)
                elif sock.type == socket.SOCK_STREAM:
                    self._accept(key.data, sock)
                else:
                    self._answer(key.data, sock)
            self._apply()

    def _accept(self, door: CaseDoor, listener: socket.socket) -> None:
        """A connection from inside ``door``'s namespace, handed to the server as that case's."""
        try:
            conn, peer = listener.accept()
        except OSError:  # gone meanwhile (the client reset it), or nothing after all
            return
        conn.setblocking(True)
        try:
            self._server.process_request(conn, door_address(door.case, int(peer[1])))
        except Exception:  # the server could not take it: the client sees it closed, the others go on
            conn.close()

    def _answer(self, door: CaseDoor, dns: socket.socket) -> None:
        """A DNS query from inside ``door``'s namespace: the name told to its case, the query refused."""
        try:
            packet, client = dns.recvfrom(_DATAGRAM)
        except OSError:
            return
        asked = question(packet)
        if asked is None:
            return
        own = any(asked.name == n or asked.name.startswith(n + ".") for n in self._own)
        if asked.kind != "PTR" and not own:
            door.scope.reached(asked.name, f"DNS {asked.kind} {asked.name}: looked up by a client that ignores "
                                           "the proxy variables")
        with contextlib.suppress(OSError):
            dns.sendto(refused(packet), client)
