"""A case's network namespace, made by its keeper before the agent starts (Linux): the agent's only way
out is the replay server.

    python -I -S netns.py probe     # "user", "net", or "none: why" (the namespaces this machine allows)

Loaded by the keeper (:mod:`gate.runner.keeper`, ``--net``) from its file, with the standard library
alone, like the keeper itself (the C modules ``_socket`` and ``fcntl``, not ``socket.py``, whose enums
would slow down every case's start). :func:`confine` moves the keeper into a network namespace of its
own, inside a user namespace of its own (``user``) where the kernel allows an unprivileged user one,
else a network namespace alone (``net``: root only). It brings the namespace's loopback up and listens
there on the replay server's own address (127.0.0.1 and the server's port, so the agent's
``SOURCEGATE_REPLAY_URL`` and proxy variables stay as they are) and on each loopback DNS resolver it
is given (``/etc/resolv.conf``'s, port 53). It hands those sockets to the gate over a Unix socket
(``SCM_RIGHTS``) and keeps none: the gate accepts on them, and a connection that comes in on one
comes from inside this case's namespace (:mod:`gate.runner.doors`).

The namespace has no other interface and no route, so a connection to any other address fails at
once (``ENETUNREACH``), another loopback port is refused (``ECONNREFUSED``), and nothing leaves it.
In a user namespace the agent keeps its user id but no capability, so it cannot undo any of this,
join another namespace, or gain privileges (a set-user-ID ``sudo`` does not raise it to root).
"""

from __future__ import annotations

import _socket
import ctypes
import fcntl
import os
import struct
import sys

__all__ = ["METHODS", "confine", "enter", "first_method", "listen"]

CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1
METHODS = {"user": CLONE_NEWUSER | CLONE_NEWNET, "net": CLONE_NEWNET}
"""How the namespace is made, the first that works preferred: a user and a network namespace (any user,
where the kernel allows it), or a network namespace alone (root, or CAP_SYS_ADMIN)."""
DNS_PORT = 53
BACKLOG = 128
OK = b"ok"


def _unshare(flags: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(flags) != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"unshare: {os.strerror(error)}")


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode("ascii"))
    finally:
        os.close(fd)


def enter(method: str) -> None:
    """Move this process (single-threaded: the keeper) into a new network namespace, made as ``method``
    says (:data:`METHODS`), and bring its loopback up. Raises OSError saying which step failed."""
    uid, gid = os.geteuid(), os.getegid()
    _unshare(METHODS[method])
    if method == "user":
        # the same ids inside as outside: files keep their owners, and the agent is no root in there
        try:
            _write("/proc/self/setgroups", "deny")
            _write("/proc/self/uid_map", f"{uid} {uid} 1")
            _write("/proc/self/gid_map", f"{gid} {gid} 1")
        except OSError as e:
            raise OSError(e.errno, f"mapping the user namespace's ids: {e.strerror}") from e
    probe = _socket.socket(_socket.AF_INET, _socket.SOCK_DGRAM)
    try:
        request = struct.pack("16sH22x", b"lo", 0)
        flags = struct.unpack_from("16sH", fcntl.ioctl(probe.fileno(), SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(probe.fileno(), SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", flags | IFF_UP))
    except OSError as e:
        raise OSError(e.errno, f"bringing the namespace's loopback up: {e.strerror}") from e
    finally:
        probe.close()


def listen(port: int, resolvers: list[str] | tuple[str, ...] = ()) -> list[_socket.socket]:
    """The sockets the gate serves the namespace on: a TCP listener on 127.0.0.1:``port``, then a UDP
    socket on port 53 of each resolver address that can be bound (one that cannot is left out: its
    look-ups then fail unseen)."""
    listener = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    try:
        listener.bind(("127.0.0.1", port))
        listener.listen(BACKLOG)
    except OSError as e:
        listener.close()
        raise OSError(e.errno, f"listening on 127.0.0.1:{port} in the namespace: {e.strerror}") from e
    found = [listener]
    for address in resolvers:
        dns = _socket.socket(_socket.AF_INET6 if ":" in address else _socket.AF_INET, _socket.SOCK_DGRAM)
        try:
            dns.bind((address, DNS_PORT))
        except OSError:
            dns.close()
            continue
        found.append(dns)
    return found


def confine(channel: int, method: str, port: int, resolvers: list[str]) -> bool:
    """The keeper's part: :func:`enter`, :func:`listen`, and the sockets sent on ``channel`` (a Unix
    socket the gate holds the other end of) with ``ok``; or, when a step failed, ``error: WHY`` and no
    socket. The keeper keeps no socket and closes ``channel``. Whether the namespace was made."""
    link = _socket.socket(fileno=channel)
    try:
        try:
            enter(method)
            sockets = listen(port, resolvers)
        except (OSError, KeyError) as e:
            link.sendall(f"error: {e.strerror if isinstance(e, OSError) else f'no method {e}'}".encode()[:4000])
            return False
        try:
            fds = b"".join(s.fileno().to_bytes(4, sys.byteorder) for s in sockets)
            link.sendmsg([OK], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
        finally:
            for s in sockets:
                s.close()
        return True
    finally:
        link.close()


def first_method(methods: tuple[str, ...] = tuple(METHODS)) -> tuple[str | None, str]:
    """The first of ``methods`` that makes a whole namespace here (each tried in a child process, which
    then exits, so this process stays where it is), and why each failed before it; (None, why) when
    none does."""
    failed: list[str] = []
    for method in methods:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child tries, and says why it could not
            os.close(read)
            try:
                enter(method)
                for s in listen(0):
                    s.close()
                os._exit(0)
            except OSError as e:
                os.write(write, (e.strerror or str(e)).encode("utf-8", "replace")[:4000])
            os._exit(1)
        os.close(write)
        with os.fdopen(read, "rb") as f:
            why = f.read().decode("utf-8", "replace")
        if os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0:
            return method, "; ".join(failed)
        failed.append(f"{method}: {why or 'failed'}")
    return None, "; ".join(failed)


def main(argv: list[str]) -> int:
    """``probe``: print the method that works (``user``, ``net``) or ``none: WHY`` on one line."""
    if list(argv[1:]) != ["probe"]:
        os.write(2, b"usage: python -I -S netns.py probe\n")
        return 2
    method, why = first_method()
    os.write(1, (f"{method}\n" if method is not None else f"none: {why}\n").encode("utf-8", "replace"))
    return 0


if __name__ == "__main__":  # pragma: no cover - run by the gate as a script
    sys.exit(main(sys.argv))
