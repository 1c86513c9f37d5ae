"""A fake Anthropic Messages API for tests: a real HTTP server on 127.0.0.1, never the internet.

It speaks the wire format the official SDK expects on ``POST /v1/messages``: a ``message`` object
(``id``, ``type``, ``role``, ``model``, ``content`` with ``tool_use`` blocks, ``stop_reason``,
``usage``) and, for failures, the documented error body ``{"type": "error", "error": {"type",
"message"}, "request_id"}``; the 400, 429, 500 and 529 bodies are the real ones copied in
``tests/fixtures/anthropic/``. 429 and 529 carry ``retry-after`` (and ``retry-after-ms``, which the
SDK reads first, so tests wait milliseconds).

Responders are scripted with :mod:`tests.support.llm_wire` (re-exported here).

The Message Batches API is served too, as the SDK's ``client.messages.batches`` calls it:
``POST /v1/messages/batches`` (a ``message_batch`` object, ``in_progress``), ``GET
/v1/messages/batches/{id}`` (its ``processing_status``, ``ended`` on the ``polls_to_end``-th poll,
with ``request_counts`` and a ``results_url``), ``GET .../results`` (JSON Lines of ``succeeded``,
``errored``, ``canceled`` and ``expired`` results, in reverse order: the API does not keep it) and
``POST .../cancel`` (``canceling``; every request still processing ends ``canceled``). Each request of
a batch is answered by the same responder as ``/v1/messages``; ``batch_outcome`` may make a request
end ``errored``, ``canceled`` or ``expired`` instead.

``usage`` is filled in as the API would: input tokens estimated as characters / 4 of the tools,
system prompt and messages; a block marked ``cache_control`` ends a cacheable prefix, which (at or
above the model's minimum: 1024 tokens, 2048 for Haiku) is billed as ``cache_creation_input_tokens``
the first time and ``cache_read_input_tokens`` after that, and is then not in ``input_tokens``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tests.support.llm_wire import FakeAPI, Reply, Request, Responder, error_reply, text_reply, tool_reply

__all__ = ["AnthropicServer", "Reply", "Request", "Responder", "error_reply", "message", "min_cacheable",
           "text_reply", "tool_reply"]

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "anthropic"
_ids = itertools.count(1)


def message(request: Request, content: list[dict[str, Any]], stop_reason: str) -> dict[str, Any]:
    """A Messages API ``message`` body (``usage`` is added by the server)."""
    return {"id": f"msg_fake{next(_ids):08d}", "type": "message", "role": "assistant",
            "model": request.body.get("model", "claude"), "content": content, "stop_reason": stop_reason,
            "stop_sequence": None}


def _observed() -> list[dict[str, Any]]:
    data = json.loads((FIXTURES / "anthropic-error-responses.observed.json").read_text(encoding="utf-8"))
    return list(data["examples"])


def error_body(status: int) -> dict[str, Any]:
    """The real error body for ``status`` (400, 429, 500 or 529) from the fixtures."""
    if status == 400:
        file = FIXTURES / "vercel-ai.anthropic-issue-17366-error.json"
        body: dict[str, Any] = json.loads(file.read_text(encoding="utf-8"))
        return body
    return dict(next(e["body"] for e in _observed() if e["status"] == status and e.get("body")))


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


BATCHES = "/v1/messages/batches"
OUTCOMES = ("succeeded", "errored", "canceled", "expired")


@dataclass
class FakeBatch:
    """One message batch the fake API holds: its requests, status and, once ended, results."""

    id: str
    requests: list[dict[str, Any]]
    headers: dict[str, str]
    created: datetime
    polls: int = 0
    status: str = "in_progress"
    cancel_initiated: datetime | None = None
    ended: datetime | None = None
    results: list[dict[str, Any]] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        """``request_counts`` as the API reports them: all processing until the batch ends."""
        counts = dict.fromkeys(("processing", *OUTCOMES), 0)
        if self.ended is None:
            counts["processing"] = len(self.requests)
        for r in self.results:
            counts[r["result"]["type"]] += 1
        return counts


def _time(t: datetime | None) -> str | None:
    return t.isoformat().replace("+00:00", "Z") if t is not None else None


class AnthropicServer(FakeAPI):
    """The fake Messages API: ``with AnthropicServer(responder) as api: api.url``."""

    path = "/v1/messages"
    name = "fake-anthropic"
    default_key = "sk-ant-test"

    def __init__(self, responder: Responder, *, api_key: str | None = None, tls: bool = False, polls_to_end: int = 1,
                 batch_outcome: Callable[[Request], str] | None = None) -> None:
        """Serve ``responder`` on a free loopback port once entered (over HTTPS with ``tls``).

        ``polls_to_end``: a batch ends on this poll (``GET`` of the batch). ``batch_outcome``: how
        each batched request ends (one of :data:`OUTCOMES`; default: ``succeeded``, or ``errored``
        when the responder answers an error status).
        """
        super().__init__(responder, api_key=api_key, tls=tls)
        self._accounting = _Accounting()
        self.polls_to_end = polls_to_end
        self.batch_outcome = batch_outcome
        self.batches: dict[str, FakeBatch] = {}
        self.trickle_polls = 0.0
        """> 0: a poll of a batch is answered one byte every this many seconds"""
        self.batch_calls: list[tuple[str, str]] = []
        """every request to the batch routes, as (method, path)"""

    @property
    def batches_created(self) -> int:
        """How many batches were created."""
        return len(self.batches)

    def route(self, method: str, path: str, body: dict[str, Any] | None, headers: dict[str, str]) -> Reply | None:
        """The Message Batches API routes."""
        if not path.startswith(BATCHES):
            return None
        with self._lock:
            self.batch_calls.append((method, path))
            if self.key_of(headers) != self.api_key:
                return self.unauthorised()
            parts = path[len(BATCHES):].strip("/").split("/")
            if method == "POST" and parts == [""]:
                return self._create(body or {}, headers)
            batch = self.batches.get(parts[0])
            if batch is None:
                return self.not_found(path)
            if method == "GET" and len(parts) == 1:
                batch.polls += 1
                if batch.ended is None and (batch.polls >= self.polls_to_end or batch.status == "canceling"):
                    self._end(batch)
                return Reply(200, self._batch(batch), trickle=self.trickle_polls)
            if method == "GET" and parts[1:] == ["results"] and batch.ended is not None:
                lines = "".join(json.dumps(r) + "\n" for r in reversed(batch.results))
                return Reply(200, raw=lines.encode("utf-8"), content_type="application/binary")
            if method == "POST" and parts[1:] == ["cancel"]:
                if batch.ended is None:
                    batch.status, batch.cancel_initiated = "canceling", datetime.now(UTC)
                return Reply(200, self._batch(batch))
            return self.not_found(path)

    def _create(self, body: Mapping[str, Any], headers: dict[str, str]) -> Reply:
        requests = body.get("requests")
        if not isinstance(requests, list) or not requests:
            return Reply(400, {"type": "error", "error": {"type": "invalid_request_error",
                                                          "message": "requests: at least one request is required"}})
        ids = [r.get("custom_id") for r in requests]
        if len(set(ids)) != len(ids):
            return Reply(400, {"type": "error", "error": {"type": "invalid_request_error",
                                                          "message": "custom_id values must be unique"}})
        batch = FakeBatch(f"msgbatch_fake{next(_ids):08d}", list(requests), headers, datetime.now(UTC))
        self.batches[batch.id] = batch
        return Reply(200, self._batch(batch))

    def _end(self, batch: FakeBatch) -> None:
        """Answer every request of ``batch`` (cancelled ones not at all) and mark it ended."""
        for item in batch.requests:
            request = Request(item["params"], batch.headers)
            outcome = "canceled" if batch.status == "canceling" else \
                self.batch_outcome(request) if self.batch_outcome else "succeeded"
            result: dict[str, Any] = {"type": outcome}
            if outcome == "succeeded":
                reply = self.render(request, self.responder(request))
                if reply.status == 200:
                    result["message"] = reply.body
                else:
                    result = {"type": "errored", "error": reply.body}
            elif outcome == "errored":
                result["error"] = {"type": "error", "error": {"type": "api_error", "message": "Internal server error"},
                                   "request_id": "req_fakebatch"}
            batch.results.append({"custom_id": item["custom_id"], "result": result})
        batch.status, batch.ended = "ended", datetime.now(UTC)

    def _batch(self, batch: FakeBatch) -> dict[str, Any]:
        """The ``message_batch`` object."""
        return {"id": batch.id, "type": "message_batch", "processing_status": batch.status,
                "request_counts": batch.counts(), "created_at": _time(batch.created),
                "expires_at": _time(batch.created + timedelta(hours=24)), "ended_at": _time(batch.ended),
                "cancel_initiated_at": _time(batch.cancel_initiated), "archived_at": None,
                "results_url": f"{self.url}{BATCHES}/{batch.id}/results" if batch.ended else None}

    def key_of(self, headers: Mapping[str, str]) -> str:
        """``x-api-key``, or a bearer token."""
        return headers.get("x-api-key") or super().key_of(headers)

    def unauthorised(self) -> Reply:
        """The API's 401."""
        return Reply(401, {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}})

    def not_found(self, path: str) -> Reply:
        """The API's 404."""
        return Reply(404, {"type": "error", "error": {"type": "not_found_error", "message": f"no route {path}"}})

    def render(self, request: Request, reply: Reply) -> Reply:
        """A message for a success, the real error body for a failure; ``usage`` filled in."""
        if reply.status != 200:
            body = reply.body if reply.body is not None else error_body(reply.status)
            headers = dict(reply.headers)
            request_id = body.get("request_id") if isinstance(body, dict) else None
            headers.setdefault("request-id", str(request_id or "req_fake"))
            return Reply(reply.status, body, headers)
        body = reply.body
        if body is None:
            if reply.tool_input is not None:
                block = {"type": "tool_use", "id": f"toolu_fake{next(_ids):08d}",
                         "name": reply.tool_name or request.tool_name, "input": reply.tool_input}
                body = message(request, [block], "tool_use")
            else:
                body = message(request, [{"type": "text", "text": reply.text or ""}], reply.stop_reason)
        if isinstance(body, dict) and "usage" not in body:
            body = {**body, "usage": self._accounting.usage(request.body, body)}
        return Reply(200, body, reply.headers, trickle=reply.trickle)
