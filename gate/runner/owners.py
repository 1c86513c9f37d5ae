"""Which case a connection to the replay server comes from, and the refusal of one that crosses cases
(Linux).

Every case's ``$SOURCEGATE_REPLAY_URL`` holds a token that attributes its requests to that case, and
with ``--jobs N`` the agents of other cases can read it (``/proc/<pid>/environ``, as the same user).
So a token alone does not decide: the server asks :meth:`CrossCase.admit` for the first request of
each connection under each token, which looks up the process that holds the client's end of the
connection (its local address in ``/proc/net/tcp`` and ``tcp6`` gives the socket's inode; the
``/proc/<pid>/fd`` links of the running cases' processes give its holder) and which case that
process belongs to (:meth:`gate.runner.process.Processes.members`: the keeper's descendants). A
request from another case's process is refused (403) and said in the trace of the case whose URL
was used and in that of the case that sent it (``cross_case_request``, a hard failure). A
connection that no running case's process holds (a service started before the run that the agent
hands its work to, a container's port proxy) is served, and counted in the case's trace
(``outside_connections``, a warning): attributed by its URL alone.

A confined case's connections come in on the sockets its network namespace hands the gate
(:mod:`gate.runner.doors`), which serves each under a client address naming the case
(:func:`door_address`): only that case's processes are in its namespace, so such a connection is
the case's, and is decided by the socket it came in on alone, with no lookup.
"""

from __future__ import annotations

import errno
import os
import socket
import struct
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from gate.runner.keeper import Proc, process_table, read_stat

__all__ = ["CrossCase", "Holder", "Noted", "diag_inode", "door_address", "door_case", "holder", "proc_net_address",
           "socket_inode", "table_inode"]

_REQUEST_CHARS = 200
_DOOR = "netns:"


@dataclass(frozen=True)
class Holder:
    """The process holding a connection's client end, and its case (None: no running case's)."""

    pid: int | None
    case: str | None


class Noted(Protocol):
    """Where a case's refused requests are kept (its :class:`gate.runner.scope.CaseScope`)."""

    def refused(self, message: str) -> None:
        """One more request of or for this case was refused, as ``message`` says."""

    def outside(self) -> None:
        """One more connection with this case's URL came from a process of no running case, and was served."""


class Members(Protocol):
    """The running cases' processes (:class:`gate.runner.process.Processes`)."""

    def members(self, table: Mapping[int, Proc]) -> dict[int, str]:
        """pid -> the case it belongs to, for every process of a running case in ``table``."""


def door_address(case: str, port: int) -> tuple[str, int]:
    """The client address a connection from inside ``case``'s network namespace is served under (its
    port in the namespace kept, for the logs)."""
    return f"{_DOOR}{case}", port


def door_case(client: tuple[str, int]) -> str | None:
    """The case whose namespace a connection came from (:func:`door_address`); None: not a namespace's."""
    host = client[0]
    return host[len(_DOOR):] if isinstance(host, str) and host.startswith(_DOOR) else None


def proc_net_address(address: tuple[str, int], table: str) -> str | None:
    """``address`` as ``/proc/net/tcp`` (``table="tcp"``) or ``tcp6`` writes it: ``("127.0.0.1", 8080)``
    -> ``0100007F:1F90``, each 32-bit word in the host's byte order (None: not in that table's family)."""
    host, port = address
    try:
        if table == "tcp":
            raw = socket.inet_pton(socket.AF_INET, host.removeprefix("::ffff:"))
        elif ":" in host:
            raw = socket.inet_pton(socket.AF_INET6, host)
        else:  # an IPv4 address reached from an IPv6 socket: ::ffff:a.b.c.d
            raw = b"\0" * 10 + b"\xff\xff" + socket.inet_pton(socket.AF_INET, host)
    except OSError:
        return None
    words = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4)) if sys.byteorder == "little" else raw
    return f"{words.hex().upper()}:{port:04X}"


def socket_inode(client: tuple[str, int], server: tuple[str, int], net: str = "/proc/net") -> int | None:
    """The inode of the socket whose local address is ``client``, connected to ``server`` (None: none).

    Asked of the kernel by the connection's addresses (sock_diag, one lookup); where that is not
    available, read from ``/proc/net/tcp`` and ``tcp6``, which list every socket of the network
    namespace and take the kernel milliseconds to write on a busy machine."""
    try:
        return diag_inode(client, server)
    except OSError:
        return table_inode(client, server, net)


_NETLINK_SOCK_DIAG = 4
_SOCK_DIAG_BY_FAMILY = 20
_NLM_F_REQUEST = 1
_NLMSG_ERROR = 2
_HEADER = struct.Struct("=IHHII")  # nlmsghdr: length, type, flags, sequence, port id
_REQUEST = struct.Struct("=BBBBI")  # inet_diag_req_v2: family, protocol, extensions, pad, states
_SOCKID = struct.Struct("!HH16s16s")  # inet_diag_sockid: ports and addresses, in network order
_TAIL = struct.Struct("=III")  # inet_diag_sockid: interface, cookie (none: all ones)
_MESSAGE = struct.Struct("=BBBB48sIIIII")  # inet_diag_msg: ..., the sockid, expires, queues, uid, inode


def diag_inode(client: tuple[str, int], server: tuple[str, int]) -> int | None:
    """The inode of the TCP socket from ``client`` to ``server``, by one sock_diag lookup (Linux).

    An IPv4 address is looked up as such (a socket of the IPv6 family on ``::ffff:a.b.c.d`` is found
    by it too). Raises OSError where sock_diag cannot be asked."""
    ours, theirs = client[0].removeprefix("::ffff:"), server[0].removeprefix("::ffff:")
    family = socket.AF_INET6 if ":" in ours else socket.AF_INET
    local, remote = socket.inet_pton(family, ours), socket.inet_pton(family, theirs)
    body = (_REQUEST.pack(family, socket.IPPROTO_TCP, 0, 0, 0xFFFFFFFF)
            + _SOCKID.pack(client[1], server[1], local.ljust(16, b"\0"), remote.ljust(16, b"\0"))
            + _TAIL.pack(0, 0xFFFFFFFF, 0xFFFFFFFF))
    with socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, _NETLINK_SOCK_DIAG) as diag:
        diag.settimeout(1.0)
        diag.sendto(_HEADER.pack(_HEADER.size + len(body), _SOCK_DIAG_BY_FAMILY, _NLM_F_REQUEST, 1, 0) + body,
                    (0, 0))
        reply = diag.recv(65536)
    length, kind = _HEADER.unpack_from(reply)[:2]
    if kind == _NLMSG_ERROR:
        error = -struct.unpack_from("=i", reply, _HEADER.size)[0]
        if error in (errno.ENOENT, errno.ESRCH):
            return None
        raise OSError(error, f"sock_diag: {os.strerror(error)}")
    if kind != _SOCK_DIAG_BY_FAMILY or length < _HEADER.size + _MESSAGE.size:
        raise OSError(errno.EPROTO, "sock_diag: an unexpected reply")
    inode = _MESSAGE.unpack_from(reply, _HEADER.size)[-1]
    return int(inode) or None


def table_inode(client: tuple[str, int], server: tuple[str, int], net: str = "/proc/net") -> int | None:
    """:func:`socket_inode` read from the tables of ``/proc/net``: the socket whose row holds both addresses."""
    for table in ("tcp", "tcp6"):
        local, remote = proc_net_address(client, table), proc_net_address(server, table)
        if local is None or remote is None:
            continue
        try:
            with open(os.path.join(net, table), encoding="ascii") as f:
                text = f.read()
        except OSError:
            continue
        key = f" {local} {remote} "
        at = text.find(key)
        while at >= 0:
            # local, remote, state, queues, timer, retransmits, uid, timeout, inode
            fields = text[at:text.find("\n", at)].split()
            if len(fields) > 8 and fields[8].isdigit() and fields[8] != "0":  # 0: no socket (TIME_WAIT)
                return int(fields[8])
            at = text.find(key, at + 1)
    return None


def _holds(pid: int, link: str, proc: str = "/proc") -> bool:
    folder = f"{proc}/{pid}/fd"
    try:
        names = os.listdir(folder)
    except OSError:
        return False
    for name in names:
        try:
            if os.readlink(f"{folder}/{name}") == link:
                return True
        except OSError:
            continue
    return False


def holder(client: tuple[str, int], server: tuple[str, int], members: Members) -> Holder:
    """Who holds the client end of the connection from ``client`` to ``server``, among the cases' processes."""
    inode = socket_inode(client, server)
    return Holder(None, None) if inode is None else _find(f"socket:[{inode}]", members.members(process_table()))


def _find(link: str, owned: Mapping[int, str]) -> Holder:
    for pid, case in owned.items():
        if _holds(pid, link):
            return Holder(pid, case)
    return Holder(None, None)


def _request(text: str) -> str:
    line = "".join(c if c.isprintable() else "?" for c in text)
    return line if len(line) <= _REQUEST_CHARS else line[:_REQUEST_CHARS] + "..."


class CrossCase:
    """Admits a request under a case's token only from that case's processes; notes every refusal."""

    def __init__(self, members: Members, server: tuple[str, int]) -> None:
        """``members``: the running cases' processes; ``server``: the replay server's address."""
        self._members = members
        self._server = server
        self._lock = threading.Lock()
        self._noted: dict[str, Noted] = {}
        self._seen: dict[int, tuple[int, str]] = {}
        """pid -> (its start time, its case), from the last reading of the whole table"""

    def register(self, case: str, noted: Noted) -> None:
        """``case`` runs from now; its refusals go to ``noted``."""
        with self._lock:
            self._noted[case] = noted

    def unregister(self, case: str) -> None:
        """``case`` has ended."""
        with self._lock:
            self._noted.pop(case, None)

    def admit(self, case: str, client: tuple[str, int], request: str) -> str | None:
        """None when the connection from ``client`` may use ``case``'s URL; else why it is refused.

        Refused: a process of another running case holds it. Served, and counted for ``case``: no
        running case's process holds it (a service started before the run, a container's proxy).
        A connection from a case's network namespace is that case's (:func:`door_case`).
        """
        origin = door_case(client)
        found = Holder(None, origin) if origin is not None else self._holder(client, case)
        if found.case == case:
            return None
        with self._lock:
            victim, sender = self._noted.get(case), self._noted.get(found.case or "")
        if found.case is None:
            if victim is not None:
                victim.outside()
            return None
        what = f"GET {_request(request)}"
        by = f"a process of case {found.case!r} " + (f"(pid {found.pid})" if found.pid is not None
                                                       else "(from inside its network namespace)")
        if victim is not None:
            victim.refused(f"a request with this case's replay URL came from {by} and was refused: {what}")
        if sender is not None:
            sender.refused(f"the agent sent a request with the replay URL of case {case!r}, refused: {what}")
        return f"refused: this replay URL belongs to another case ({what} came from {by})"

    def _holder(self, client: tuple[str, int], case: str) -> Holder:
        """:func:`holder`, trying first the processes of ``case`` seen last time, so that an agent's own
        connection costs no reading of the whole process table (a pid is taken for the process seen
        only while its start time is the same)."""
        inode = socket_inode(client, self._server)
        if inode is None:
            return Holder(None, None)
        link = f"socket:[{inode}]"
        with self._lock:
            seen = [(pid, start) for pid, (start, of) in self._seen.items() if of == case]
        for pid, start in seen:
            if _holds(pid, link):
                now = read_stat(pid)
                if now is not None and now.start == start:
                    return Holder(pid, case)
        table = process_table()
        owned = self._members.members(table)
        with self._lock:
            self._seen = {pid: (table[pid].start, of) for pid, of in owned.items() if pid in table}
        return _find(link, owned)
