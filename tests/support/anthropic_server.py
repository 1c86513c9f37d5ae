"""A fake Anthropic Messages API for tests: a real HTTP server on 127.0.0.1, never the internet.

It speaks the wire format the official SDK expects on ``POST /v1/messages``: a ``message`` object
(``id``, ``type``, ``role``, ``model``, ``content`` with ``tool_use`` blocks, ``stop_reason``,
``usage``) and, for failures, the documented error body ``{"type": "error", "error": {"type",
"message"}, "request_id"}``; the 400, 429, 500 and 529 bodies are the real ones copied in
``tests/fixtures/anthropic/``. 429 and 529 carry ``retry-after`` (and ``retry-after-ms``, which the
SDK reads first, so tests wait milliseconds).

A *responder* function scripts each test: it gets the parsed :class:`Request` and returns a
:class:`Reply` (see :func:`tool_reply`, :func:`error_reply`). Every request is recorded.

``usage`` is filled in as the API would: input tokens estimated as characters / 4 of the tools,
system prompt and messages; a block marked ``cache_control`` ends a cacheable prefix, which (at or
above the model's minimum: 1024 tokens, 2048 for Haiku) is billed as ``cache_creation_input_tokens``
the first time and ``cache_read_input_tokens`` after that, and is then not in ``input_tokens``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any

from tests.support.loopback import ServerThread

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "anthropic"
_ids = itertools.count(1)


@dataclass(frozen=True)
class Request:
    """One recorded request: the JSON body and the headers (lower-cased names)."""

    body: dict[str, Any]
    headers: dict[str, str]

    @property
    def tool_name(self) -> str | None:
        """The tool the request forces, if any."""
        choice = self.body.get("tool_choice") or {}
        name = choice.get("name")
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
    """What the server answers: a status, a JSON body and headers.

    ``trickle`` > 0 sends the body one byte every ``trickle`` seconds (a server that never trips a
    read timeout), until the body is out or the server stops.
    """

    status: int = 200
    body: Any = None
    headers: Mapping[str, str] = field(default_factory=dict)
    trickle: float = 0.0


Responder = Callable[[Request], Reply]


def _texts(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if isinstance(b, dict))
    return ""


def message(request: Request, content: list[dict[str, Any]], stop_reason: str) -> dict[str, Any]:
    """A Messages API ``message`` body (``usage`` is added by the server)."""
    return {"id": f"msg_fake{next(_ids):08d}", "type": "message", "role": "assistant",
            "model": request.body.get("model", "claude"), "content": content, "stop_reason": stop_reason,
            "stop_sequence": None}


def tool_reply(request: Request, tool_input: Any, *, name: str | None = None) -> Reply:
    """A reply calling the forced tool (or ``name``) with ``tool_input``."""
    block = {"type": "tool_use", "id": f"toolu_fake{next(_ids):08d}", "name": name or request.tool_name,
             "input": tool_input}
    return Reply(200, message(request, [block], "tool_use"))


def text_reply(request: Request, text: str, stop_reason: str = "end_turn") -> Reply:
    """A reply with text only (no tool call), e.g. a refusal with ``stop_reason="refusal"``."""
    return Reply(200, message(request, [{"type": "text", "text": text}], stop_reason))


def _observed() -> list[dict[str, Any]]:
    data = json.loads((FIXTURES / "anthropic-error-responses.observed.json").read_text(encoding="utf-8"))
    return list(data["examples"])


def error_reply(status: int, *, retry_after_ms: int = 1) -> Reply:
    """A real error body for ``status`` (400, 429, 500 or 529) from the fixtures, with retry headers."""
    if status == 400:
        file = FIXTURES / "vercel-ai.anthropic-issue-17366-error.json"
        body = json.loads(file.read_text(encoding="utf-8"))
    else:
        body = next(e["body"] for e in _observed() if e["status"] == status and e.get("body"))
    headers = {"request-id": body.get("request_id") or "req_fake"}
    if status in (429, 529):
        headers |= {"retry-after": str(max(0, retry_after_ms // 1000)), "retry-after-ms": str(retry_after_ms)}
    return Reply(status, body, headers)


def min_cacheable(model: str) -> int:
    """The API's minimum cacheable prefix in tokens for ``model``."""
    return 2048 if "haiku" in model else 1024


class _Accounting:
    """Token counts as the API reports them, with a prompt cache keyed by prefix."""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def usage(self, body: Mapping[str, Any], reply: Mapping[str, Any]) -> dict[str, int]:
        segments: list[tuple[str, bool]] = []
        for tool in body.get("tools", []):
            segments.append((json.dumps({k: v for k, v in tool.items() if k != "cache_control"}),
                             "cache_control" in tool))
        system = body.get("system", "")
        for block in [{"text": system}] if isinstance(system, str) else system:
            segments.append((block.get("text", ""), "cache_control" in block))
        for m in body.get("messages", []):
            content = m.get("content")
            for block in [{"text": content}] if isinstance(content, str) else content:
                text = block["text"] if "text" in block else json.dumps(block)
                segments.append((text, "cache_control" in block))
        total = sum(len(s) for s, _ in segments) // 4
        marked = [i for i, (_, mark) in enumerate(segments) if mark]
        read = write = 0
        if marked:
            prefix = "\x00".join(s for s, _ in segments[: marked[-1] + 1])
            tokens = len(prefix) // 4
            if tokens >= min_cacheable(str(body.get("model", ""))):
                key = hashlib.sha256((str(body.get("model")) + "\x00" + prefix).encode()).hexdigest()
                if key in self.seen:
                    read = tokens
                else:
                    write = tokens
                    self.seen.add(key)
        out = len(json.dumps(reply.get("content", []))) // 4
        return {"input_tokens": max(0, total - read - write), "output_tokens": max(1, out),
                "cache_creation_input_tokens": write, "cache_read_input_tokens": read}


class AnthropicServer:
    """The fake API, as a context manager: ``with AnthropicServer(responder) as api: api.url``."""

    def __init__(self, responder: Responder, *, api_key: str = "sk-ant-test") -> None:
        """Serve ``responder`` on a free loopback port once entered."""
        self.responder = responder
        self.api_key = api_key
        self.requests: list[Request] = []
        self.replies: list[Reply] = []
        self._lock = threading.Lock()
        self._accounting = _Accounting()
        self._running: ServerThread | None = None
        self.stopping = threading.Event()
        """Set when the server stops: a trickling reply stops with it."""

    @property
    def url(self) -> str:
        """The base URL to give the SDK (``ANTHROPIC_BASE_URL``)."""
        assert self._running is not None
        return self._running.url

    @property
    def calls(self) -> int:
        """How many requests reached the server."""
        return len(self.requests)

    def handle(self, body: dict[str, Any], headers: dict[str, str]) -> Reply:
        """Record a request and answer it (under a lock, so scripted responders stay simple)."""
        with self._lock:
            request = Request(body, headers)
            self.requests.append(request)
            key = headers.get("x-api-key") or headers.get("authorization", "").removeprefix("Bearer ")
            if key != self.api_key:
                return Reply(401, {"type": "error", "error": {"type": "authentication_error",
                                                              "message": "invalid x-api-key"}})
            reply = self.responder(request)
            if reply.status == 200 and isinstance(reply.body, dict) and "usage" not in reply.body:
                usage = self._accounting.usage(body, reply.body)
                reply = Reply(200, {**reply.body, "usage": usage}, reply.headers, reply.trickle)
            self.replies.append(reply)
            return reply

    def __enter__(self) -> AnthropicServer:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        server.daemon_threads = True
        self._running = ServerThread(server, "fake-anthropic").start()
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        assert self._running is not None
        self.stopping.set()
        self._running.stop()


def _handler(api: AnthropicServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        wbufsize = -1  # one write per response: headers and body split over two packets stall on Nagle

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
            pass

        def _send(self, reply: Reply) -> None:
            data = json.dumps(reply.body).encode("utf-8")
            self.send_response(reply.status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            for k, v in reply.headers.items():
                self.send_header(k, v)
            self.end_headers()
            if not reply.trickle:
                self.wfile.write(data)
                return
            self.close_connection = True
            try:
                self.wfile.flush()
                for i in range(len(data)):
                    if api.stopping.wait(reply.trickle):
                        return
                    self.wfile.write(data[i:i + 1])
                    self.wfile.flush()
            except OSError:
                return  # the client gave up

        def do_POST(self) -> None:  # noqa: N802 - the http.server convention
            raw = self.rfile.read(int(self.headers.get("content-length") or 0))
            if self.path.split("?")[0] != "/v1/messages":
                self._send(Reply(404, {"type": "error", "error": {"type": "not_found_error",
                                                                  "message": f"no route {self.path}"}}))
                return
            try:
                body = json.loads(raw)
            except ValueError:
                self._send(Reply(400, {"type": "error", "error": {"type": "invalid_request_error",
                                                                  "message": "body is not JSON"}}))
                return
            self._send(api.handle(body, {k.lower(): v for k, v in self.headers.items()}))

    return Handler
