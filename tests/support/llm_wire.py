"""What the fake model APIs share: the recorded request, the scripted reply, and the loopback server.

A test scripts a fake API with a *responder*: it gets the parsed :class:`Request` and returns a
:class:`Reply`, provider-neutral (:func:`tool_reply`, :func:`text_reply`, :func:`error_reply`). Each
server (``anthropic_server.AnthropicServer``, ``openai_server.OpenAIServer``) renders that reply in
its API's real wire format, so one responder drives both SDKs. Every request is recorded.

A server started with ``tls=True`` speaks HTTPS with the self-signed certificate
:data:`LOOPBACK_CERT`, which no system trusts (``tests/fixtures/tls/README.md``).
"""

from __future__ import annotations

import json
import socket
import ssl
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from tests.support.loopback import ServerThread, trickle

TLS = Path(__file__).resolve().parent.parent / "fixtures" / "tls"
LOOPBACK_CERT = TLS / "loopback.crt"
"""The self-signed certificate (for 127.0.0.1) a ``tls=True`` server presents."""


@dataclass(frozen=True)
class Request:
    """One recorded request: the JSON body and the headers (lower-cased names)."""

    body: dict[str, Any]
    headers: dict[str, str]

    @property
    def tool_name(self) -> str | None:
        """The tool the request forces, if any (Messages or Chat Completions ``tool_choice``)."""
        choice = self.body.get("tool_choice") or {}
        if not isinstance(choice, dict):
            return None
        name = choice.get("name") or (choice.get("function") or {}).get("name")
        return name if isinstance(name, str) else None

    @property
    def turn(self) -> int:
        """How many replies the model gave before this request in its conversation (0: the first call)."""
        return sum(1 for m in self.body.get("messages", []) if m.get("role") == "assistant")

    @property
    def user_text(self) -> str:
        """All text of the user messages, joined."""
        messages = self.body.get("messages", [])
        return "\n".join(_texts(m.get("content")) for m in messages if m.get("role") == "user")


@dataclass(frozen=True)
class Reply:
    """What a fake API answers, before the server renders it in its wire format.

    A success calls the forced tool with ``tool_input`` (a dict a test may still change) or answers
    ``text`` with a neutral ``stop_reason`` (``end_turn``, ``refusal``, ``max_tokens``). A failure
    has its ``status`` and, unless ``body`` is given, gets the server's real error body for it.
    ``body`` set on a 200 is sent as it is. ``trickle`` > 0 sends the body one byte every ``trickle``
    seconds (a server that never trips a read timeout), until the body is out or the server stops.
    """

    status: int = 200
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    tool_input: dict[str, Any] | None = None
    tool_name: str | None = None
    text: str | None = None
    stop_reason: str = "tool_use"
    trickle: float = 0.0
    raw: bytes | None = None
    """sent as it is instead of ``body`` as JSON (JSON Lines, say), with ``content_type``"""
    content_type: str = "application/json"


Responder = Callable[[Request], Reply]


def _texts(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""


def tool_reply(request: Request, tool_input: Any, *, name: str | None = None) -> Reply:
    """A reply calling the forced tool (or ``name``) with ``tool_input``."""
    return Reply(200, tool_input=tool_input, tool_name=name or request.tool_name)


def text_reply(request: Request, text: str, stop_reason: str = "end_turn") -> Reply:
    """A reply with text only (no tool call), e.g. a refusal with ``stop_reason="refusal"``."""
    return Reply(200, text=text, stop_reason=stop_reason)


def error_reply(status: int, *, retry_after_ms: int = 1) -> Reply:
    """A failure with ``status``; the server sends its API's real body. 429, 503 and 529 carry retry headers."""
    headers: dict[str, str] = {}
    if status in (429, 503, 529):
        headers = {"retry-after": str(max(0, retry_after_ms // 1000)), "retry-after-ms": str(retry_after_ms)}
    return Reply(status, None, headers)


class FakeAPI:
    """A fake model API on 127.0.0.1, as a context manager: ``with Server(responder) as api: api.url``.

    Subclasses give the route, the key check and how a :class:`Reply` becomes a wire body.
    """

    path = "/"
    name = "fake-api"
    default_key = "test-key"

    def __init__(self, responder: Responder, *, api_key: str | None = None, tls: bool = False) -> None:
        """Serve ``responder`` on a free loopback port once entered (over HTTPS with ``tls``)."""
        self.responder = responder
        self.tls = tls
        self.api_key = api_key or self.default_key
        self.requests: list[Request] = []
        self.replies: list[Reply] = []
        self._lock = threading.Lock()
        self._running: ServerThread | None = None
        self.stopping = threading.Event()
        """Set when the server stops: a trickling reply stops with it."""

    @property
    def url(self) -> str:
        """The base URL to give the SDK."""
        assert self._running is not None
        url = self._running.url
        return "https" + url.removeprefix("http") if self.tls else url

    @property
    def calls(self) -> int:
        """How many requests reached the server."""
        return len(self.requests)

    def serves(self, path: str) -> bool:
        """True for the route(s) this API answers on."""
        return path == self.path

    def key_of(self, headers: Mapping[str, str]) -> str:
        """The API key a request carries."""
        return headers.get("authorization", "").removeprefix("Bearer ")

    def unauthorised(self) -> Reply:
        """The reply to a wrong key."""
        raise NotImplementedError

    def render(self, request: Request, reply: Reply) -> Reply:
        """``reply`` with its wire body."""
        raise NotImplementedError

    def not_found(self, path: str) -> Reply:
        """The reply to an unknown route."""
        return Reply(404, {"error": {"message": f"no route {path}"}})

    def route(self, method: str, path: str, body: dict[str, Any] | None, headers: dict[str, str]) -> Reply | None:
        """The reply to a route other than :attr:`path` (``GET``s included), or None: not one of them."""
        return None

    def handle(self, body: dict[str, Any], headers: dict[str, str]) -> Reply:
        """Record a request and answer it (under a lock, so scripted responders stay simple)."""
        with self._lock:
            request = Request(body, headers)
            self.requests.append(request)
            if self.key_of(headers) != self.api_key:
                return self.unauthorised()
            answer = self.responder(request)
            reply = answer if answer.raw is not None else self.render(request, answer)  # raw: sent as it is
            self.replies.append(reply)
            return reply

    def __enter__(self) -> Self:
        server = (_TLSServer if self.tls else ThreadingHTTPServer)(("127.0.0.1", 0), _handler(self))
        server.daemon_threads = True
        self._running = ServerThread(server, self.name).start()
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        assert self._running is not None
        self.stopping.set()
        self._running.stop()


class _TLSServer(ThreadingHTTPServer):
    """HTTPS with :data:`LOOPBACK_CERT`; the handshake happens on the connection's own thread."""

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.context.load_cert_chain(LOOPBACK_CERT, TLS / "loopback.key")

    def get_request(self) -> tuple[socket.socket, Any]:
        sock, address = super().get_request()
        return self.context.wrap_socket(sock, server_side=True, do_handshake_on_connect=False), address

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], (ssl.SSLError, ConnectionError)):  # a client refusing the certificate
            super().handle_error(request, client_address)


def _handler(api: FakeAPI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        wbufsize = -1  # one write per response: headers and body split over two packets stall on Nagle

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
            pass

        def _send(self, reply: Reply) -> None:
            data = reply.raw if reply.raw is not None else json.dumps(reply.body).encode("utf-8")
            self.send_response(reply.status)
            self.send_header("content-type", reply.content_type)
            self.send_header("content-length", str(len(data)))
            for k, v in reply.headers.items():
                self.send_header(k, v)
            self.end_headers()
            if not reply.trickle:
                self.wfile.write(data)
                return
            self.close_connection = True
            trickle(self.wfile, data, reply.trickle, api.stopping)

        def _headers(self) -> dict[str, str]:
            return {k.lower(): v for k, v in self.headers.items()}

        def do_GET(self) -> None:  # noqa: N802 - the http.server convention
            path = self.path.split("?")[0]
            self._send(api.route("GET", path, None, self._headers()) or api.not_found(self.path))

        def do_POST(self) -> None:  # noqa: N802 - the http.server convention
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            path = self.path.split("?")[0]
            if not api.serves(path):
                try:
                    routed = api.route("POST", path, json.loads(raw or b"{}"), self._headers())
                except ValueError:
                    routed = None
                self._send(routed or api.not_found(self.path))
                return
            try:
                body = json.loads(raw)
            except ValueError:
                self._send(api.render(Request({}, {}), Reply(400)))
                return
            self._send(api.handle(body, self._headers()))

    return Handler
