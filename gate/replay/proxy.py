"""The replay server as the agent's HTTP proxy: a request past the frozen web is refused, and seen.

``sourcegate run`` points every proxy variable of the agent at the replay server (:func:`proxy_env`:
``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY`` and their lower-case spellings, ``NODE_USE_ENV_PROXY=1``
for Node's ``fetch``, and for a Node that predates it ``gate/data/node_fetch_proxy.cjs`` in
``NODE_OPTIONS``), with the case's token as the proxy's password, and leaves no ``NO_PROXY``: an
entry for 127.0.0.1 would let every loopback port through. A client that honours them sends

- its requests for the replay server itself in absolute form (``GET http://127.0.0.1:PORT/case/...``):
  served as usual (:func:`read_target` gives back the path);
- a request for any other host as ``CONNECT host:443`` (HTTPS) or ``GET http://host/...``: a
  :class:`Beyond`. A host the agent may reach (:class:`Reach`: ``replay.allow``, its model's API) is
  tunnelled (:func:`tunnel`) or forwarded (over TLS for an ``https://`` target in absolute form, as
  Node's shimmed fetch sends), never recorded. Any other is answered by the server as that host,
  from the frozen web, under the case's token (:mod:`gate.replay.serve`); without a running case's
  token it is refused (403).

A forwarded request is the only one on its connection: its reply goes back saying ``Connection: close``
(:func:`closing_head`) and only the upstream's bytes are relayed (:func:`relay_reply`). A client
that took the reply for a kept-alive one would send its next request on a connection the proxy is
closing, and lose it ("other side closed") whenever the proxy's close came after that request.

Pure but for :func:`tunnel`, :func:`relay_reply` and :func:`connect`, which move bytes between sockets.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import select
import socket
import ssl
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from urllib.parse import urlsplit

__all__ = ["BASE_URL_VARIABLES", "PROXY_USER", "PROXY_VARIABLES", "Beyond", "Reach", "closing_head", "connect",
           "forward_head", "proxy_env", "proxy_token", "read_target", "relay_reply", "tunnel"]

PROXY_USER = "sourcegate"
"""The user name of the proxy URL; the password is the case's token."""
PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")
NO_PROXY_VARIABLES = ("NO_PROXY", "no_proxy")
NODE_PROXY_VARIABLE = "NODE_USE_ENV_PROXY"
"""Node's ``fetch`` (and, from Node 24.5, ``http``) reads the proxy variables only when this is 1."""
BASE_URL_VARIABLES = ("ANTHROPIC_BASE_URL", "OPENAI_BASE_URL")
"""The model SDKs' own base-URL variables: the host each names is reachable, as ``replay.allow`` is."""
_REQUEST_CHARS = 200
_FORWARD_DROPPED = frozenset({"connection", "keep-alive", "proxy-authorization", "proxy-connection", "expect"})
"""Headers of a request in absolute form not forwarded (:func:`forward_head`): the connection's own, the
proxy's password, and ``Expect`` (the proxy has answered it and read the body before it forwards)."""
_HOP = frozenset({b"connection", b"keep-alive", b"proxy-connection"})
MAX_REPLY_HEAD = 64 * 1024
"""The most bytes of a forwarded reply read for its head (status line and headers); past that, or a
reply with none, the bytes are passed on as they came."""
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class Beyond:
    """A request for another host than the replay server: where it goes, and the request as read."""

    host: str
    port: int
    request: str
    """the request line's method and target, printable and cut at 200 characters"""
    path: str
    """the origin-form target to forward (``/v1/messages?...``); empty for CONNECT"""
    tls: bool = False
    """an ``https://`` target in absolute form: forwarded over TLS"""

    @property
    def connect(self) -> bool:
        """An HTTPS tunnel (CONNECT), rather than a plain HTTP request in absolute form."""
        return not self.path

    @property
    def authority(self) -> str:
        """``host:port``, as a report names it (an IPv6 address in brackets)."""
        return f"[{self.host}]:{self.port}" if ":" in self.host else f"{self.host}:{self.port}"


def _printable(text: str) -> str:
    line = "".join(c if c.isprintable() else "?" for c in text)
    return line if len(line) <= _REQUEST_CHARS else line[:_REQUEST_CHARS] + "..."


def _own(host: str, port: int, server: tuple[str, int]) -> bool:
    bound, bound_port = server
    if port != bound_port:
        return False
    loopback = {"127.0.0.1", "localhost", "::1"}
    return host == bound.lower() or (host in loopback and bound in loopback)


def read_target(command: str, target: str, server: tuple[str, int]) -> tuple[str, Beyond | None]:
    """The path to serve, or the other host a proxied request is for.

    ``target`` is the request line's; ``server`` the replay server's own address. An absolute-form
    target for the server itself is its path (and query); one for another host, and every CONNECT
    for another host, is a :class:`Beyond`. A CONNECT for the server itself (a client that tunnels
    every origin through its proxy, as undici's ``ProxyAgent`` does) is an empty path and no
    :class:`Beyond`. A target that names no host is returned as it is."""
    shown = _printable(f"{command} {target}")
    if command == "CONNECT":
        name, _, digits = target.rpartition(":")
        host, port = name.strip("[]").lower() or target.lower(), int(digits) if digits.isdigit() else 443
        return "", None if _own(host, port, server) else Beyond(host, port, shown, "")
    if target.startswith("/"):
        return target, None
    try:
        parts = urlsplit(target)
        given = parts.port
    except ValueError:
        return target, None
    if parts.scheme.lower() not in _DEFAULT_PORTS or not parts.hostname:
        return target, None
    port = given or _DEFAULT_PORTS[parts.scheme.lower()]
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    if _own(parts.hostname, port, server):
        return path, None
    return path, Beyond(parts.hostname, port, shown, path, parts.scheme.lower() == "https")


def proxy_token(header: str | None) -> str | None:
    """The token a ``Proxy-Authorization: Basic ...`` header carries (its password), or None."""
    if not header:
        return None
    scheme, _, value = header.strip().partition(" ")
    if scheme.lower() != "basic":
        return None
    try:
        user, _, password = base64.b64decode(value.strip(), validate=True).decode("utf-8").partition(":")
    except (binascii.Error, UnicodeDecodeError):
        return None
    return password if user == PROXY_USER and password else None


def proxy_env(environ: Mapping[str, str], server_url: str, token: str) -> dict[str, str]:
    """``environ`` with every proxy variable at the replay server (the case's ``token`` its password),
    ``NODE_USE_ENV_PROXY=1``, and no ``NO_PROXY``."""
    parts = urlsplit(server_url)
    proxy = f"http://{PROXY_USER}:{token}@{parts.netloc}"
    env = {k: v for k, v in environ.items() if k not in NO_PROXY_VARIABLES}
    env.update(dict.fromkeys(PROXY_VARIABLES, proxy))
    env[NODE_PROXY_VARIABLE] = "1"
    shim = str(resources.files("gate").joinpath("data", "node_fetch_proxy.cjs"))
    env["NODE_OPTIONS"] = " ".join(filter(None, [f'--require "{shim}"', environ.get("NODE_OPTIONS")]))
    return env


class Reach:
    """The hosts an agent may reach past the frozen web (``name`` or ``name:port``, any case)."""

    def __init__(self, entries: Iterable[str] = ()) -> None:
        """Allow each entry: a name (any port) or ``name:port``; an IPv6 address in brackets."""
        self._any: set[str] = set()
        self._exact: set[tuple[str, int]] = set()
        for entry in entries:
            host, sep, port = entry.lower().rpartition(":")
            if sep and port.isdigit() and not host.endswith(":"):
                self._exact.add((host.strip("[]"), int(port)))
            else:
                self._any.add(entry.lower().strip("[]"))

    @classmethod
    def of(cls, entries: Iterable[str], environ: Mapping[str, str]) -> Reach:
        """``entries``, and the host of each model SDK's base URL the environment sets
        (:data:`BASE_URL_VARIABLES`)."""
        found = list(entries)
        for name in BASE_URL_VARIABLES:
            with contextlib.suppress(ValueError):
                parts = urlsplit(environ.get(name) or "")
                if parts.hostname and parts.scheme in _DEFAULT_PORTS:
                    found.append(f"[{parts.hostname}]:{parts.port or _DEFAULT_PORTS[parts.scheme]}"
                                 if ":" in parts.hostname else
                                 f"{parts.hostname}:{parts.port or _DEFAULT_PORTS[parts.scheme]}")
        return cls(found)

    def allows(self, host: str, port: int) -> bool:
        """Whether ``host:port`` may be reached."""
        host = host.lower()
        return host in self._any or (host, port) in self._exact


def connect(beyond: Beyond, timeout: float) -> socket.socket:
    """A connection to the host ``beyond`` asks for, over TLS for an ``https://`` target (OSError when
    there is none, or its certificate does not verify)."""
    raw = socket.create_connection((beyond.host, beyond.port), timeout=timeout)
    if not beyond.tls:
        return raw
    try:
        return ssl.create_default_context().wrap_socket(raw, server_hostname=beyond.host)
    except OSError:
        raw.close()
        raise


def tunnel(client: socket.socket, upstream: socket.socket, idle: float) -> None:
    """Move bytes both ways (a CONNECT tunnel) until both sides have closed, an error, or ``idle`` seconds
    without a byte either way."""
    peer = {client: upstream, upstream: client}
    reading = {client, upstream}
    for s in peer:
        s.settimeout(idle)
    while reading:
        # bytes a TLS socket has decrypted already are not seen by select
        ready: list[socket.socket] = [s for s in reading if isinstance(s, ssl.SSLSocket) and s.pending()]
        if not ready:
            ready, _, _ = select.select(list(reading), [], [], idle)
        if not ready:
            return
        for s in ready:
            try:
                data = s.recv(65536)
                if data:
                    peer[s].sendall(data)
                    continue
            except OSError:
                return
            reading.discard(s)
            with contextlib.suppress(OSError):
                peer[s].shutdown(socket.SHUT_WR)


def forward_head(command: str, path: str, headers: Iterable[tuple[str, str]]) -> bytes:
    """The head of a request in absolute form as it is forwarded: in origin form (``path``), saying
    ``Connection: close``, without the connection's own headers, the proxy's password or ``Expect``."""
    kept = [f"{k}: {v}" for k, v in headers if k.lower() not in _FORWARD_DROPPED]
    return "\r\n".join([f"{command} {path} HTTP/1.1", *kept, "Connection: close", "", ""]).encode("latin-1", "replace")


def closing_head(head: bytes) -> bytes:
    """A reply's head (its status line and headers, ending in the blank line) saying ``Connection: close``
    in place of every connection header the upstream sent (``Connection``, ``Keep-Alive``,
    ``Proxy-Connection``)."""
    lines = head.split(b"\r\n")
    kept = [line for line in lines[1:] if line and line.split(b":", 1)[0].strip().lower() not in _HOP]
    return b"\r\n".join([lines[0], *kept, b"Connection: close", b"", b""])


def relay_reply(upstream: socket.socket, client: socket.socket, idle: float) -> None:
    """Pass the upstream's reply to ``client``, its head through :func:`closing_head`, until the upstream
    ends, an error, or ``idle`` seconds without a byte. Nothing the client sends is read: a forwarded
    request is the only one on its connection."""
    upstream.settimeout(idle)
    came = b""
    try:
        while True:
            data = upstream.recv(65536)
            if not data:
                client.sendall(came)  # ended before its head did: what came, as it came
                return
            came += data
            end = came.find(b"\r\n\r\n")
            if end != -1:
                client.sendall(closing_head(came[:end + 4]) + came[end + 4:])
                break
            if len(came) > MAX_REPLY_HEAD:
                client.sendall(came)
                break
        while data := upstream.recv(65536):
            client.sendall(data)
    except OSError:
        return
