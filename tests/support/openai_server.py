"""A fake OpenAI Chat Completions API for tests: a real HTTP server on 127.0.0.1, never the internet.

It speaks the wire format the official ``openai`` SDK expects on ``POST /v1/chat/completions``: a
``chat.completion`` object shaped as the real one copied in ``tests/fixtures/openai/`` (``id``,
``object``, ``created``, ``model``, ``choices[0].message`` with ``tool_calls`` of type ``function``
whose ``arguments`` is a JSON string, ``finish_reason``, ``system_fingerprint``) plus ``usage``; and,
for failures, the documented error body ``{"error": {"message", "type", "param", "code"}}`` (the 429
is the real ``insufficient_quota`` body from the fixtures). 429 and 503 carry ``retry-after`` and
``retry-after-ms`` (which the SDK reads first, so tests wait milliseconds).

As the real API does, a call forced with ``tool_choice`` finishes with ``finish_reason: "stop"``; a
refusal is ``message.refusal``. Azure OpenAI's route (``/openai/deployments/NAME/chat/completions``,
key in ``api-key``) is answered the same way. Responders are scripted with :mod:`tests.support.llm_wire`.

``usage``: ``prompt_tokens`` are the characters / 4 of the messages and tools; OpenAI caches a prompt
prefix by itself once it is 1024 tokens or more, so the second request with the same system message
and tools reports that prefix (in 128-token steps) as ``prompt_tokens_details.cached_tokens``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tests.support.llm_wire import FakeAPI, Reply, Request, Responder, error_reply, text_reply, tool_reply

__all__ = ["OpenAIServer", "Reply", "Request", "Responder", "error_reply", "text_reply", "tool_reply"]

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "openai"
MIN_CACHED = 1024
AZURE_PATH = re.compile(r"/openai/deployments/[^/]+/chat/completions")
_ids = itertools.count(1)


def _error(message: str, kind: str, code: str | None = None, param: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": param, "code": code}}


def error_body(status: int) -> dict[str, Any]:
    """The API's error body for ``status``: the real 429 from the fixtures, the others in its documented shape."""
    if status == 429:
        body: dict[str, Any] = json.loads((FIXTURES / "vercel-ai.openai-error.1.json").read_text(encoding="utf-8"))
        return body
    if status == 400:
        return _error("Invalid 'messages[1].content': string too long.", "invalid_request_error",
                      "string_above_max_length", "messages[1].content")
    if status == 401:
        return _error("Incorrect API key provided. You can find your API key at "
                      "https://platform.openai.com/account/api-keys.", "invalid_request_error", "invalid_api_key")
    if status == 503:
        return _error("That model is currently overloaded with other requests. You can retry your request, or "
                      "contact us through our help center at help.openai.com if the error persists.",
                      "server_error")
    return _error("The server had an error while processing your request. Sorry about that!", "server_error")


def completion(request: Request, message: dict[str, Any], finish_reason: str) -> dict[str, Any]:
    """A ``chat.completion`` body in the fixture's shape (``usage`` is added by the server)."""
    shape = json.loads((FIXTURES / "langsmith-sdk.chat-completion.json").read_text(encoding="utf-8"))
    choice = {**shape["choices"][0], "message": {"role": "assistant", "content": None, "refusal": None, **message},
              "finish_reason": finish_reason}
    return {**shape, "id": f"chatcmpl-fake{next(_ids):08d}", "model": request.body.get("model", "gpt"),
            "choices": [choice]}


class _Accounting:
    """Token counts as the API reports them, with its automatic prefix cache."""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def usage(self, body: Mapping[str, Any], reply: Mapping[str, Any]) -> dict[str, Any]:
        messages = body.get("messages", [])
        prefix = json.dumps(body.get("tools", [])) + "".join(
            str(m.get("content")) for m in messages if m.get("role") == "system")
        total = (len(prefix) + sum(len(str(m.get("content"))) for m in messages if m.get("role") != "system")) // 4
        cached = 0
        tokens = len(prefix) // 4
        if tokens >= MIN_CACHED:
            key = hashlib.sha256((str(body.get("model")) + "\x00" + prefix).encode()).hexdigest()
            if key in self.seen:
                cached = tokens - (tokens - MIN_CACHED) % 128
            self.seen.add(key)
        out = max(1, len(json.dumps(reply.get("choices", []))) // 4)
        return {"prompt_tokens": total, "completion_tokens": out, "total_tokens": total + out,
                "prompt_tokens_details": {"cached_tokens": cached, "audio_tokens": 0},
                "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0,
                                              "accepted_prediction_tokens": 0, "rejected_prediction_tokens": 0}}


class OpenAIServer(FakeAPI):
    """The fake Chat Completions API: ``with OpenAIServer(responder) as api: api.url + "/v1"``."""

    path = "/v1/chat/completions"
    name = "fake-openai"
    default_key = "sk-proj-test"

    def __init__(self, responder: Responder, *, api_key: str | None = None, tls: bool = False) -> None:
        """Serve ``responder`` on a free loopback port once entered (over HTTPS with ``tls``)."""
        super().__init__(responder, api_key=api_key, tls=tls)
        self._accounting = _Accounting()

    @property
    def base_url(self) -> str:
        """What ``OPENAI_BASE_URL`` takes: the root with ``/v1``."""
        return self.url + "/v1"

    def serves(self, path: str) -> bool:
        """``/v1/chat/completions``, and Azure OpenAI's ``/openai/deployments/NAME/chat/completions``."""
        return path == self.path or AZURE_PATH.fullmatch(path) is not None

    def key_of(self, headers: Mapping[str, str]) -> str:
        """A bearer token, or Azure's ``api-key`` header."""
        return headers.get("api-key") or super().key_of(headers)

    def unauthorised(self) -> Reply:
        """The API's 401."""
        return Reply(401, error_body(401))

    def not_found(self, path: str) -> Reply:
        """The API's 404."""
        return Reply(404, _error(f"Invalid URL (POST {path})", "invalid_request_error"))

    def render(self, request: Request, reply: Reply) -> Reply:
        """A completion for a success, the error body for a failure; ``usage`` filled in."""
        headers = {"x-request-id": f"req_fake{next(_ids):08d}", **reply.headers}
        if reply.status != 200:
            return Reply(reply.status, reply.body if reply.body is not None else error_body(reply.status), headers)
        body = reply.body
        if body is None:
            if reply.tool_input is not None:
                call = {"id": f"call_fake{next(_ids):08d}", "type": "function",
                        "function": {"name": reply.tool_name or request.tool_name,
                                     "arguments": json.dumps(reply.tool_input)}}
                body = completion(request, {"tool_calls": [call]}, "stop")
            elif reply.stop_reason == "refusal":
                body = completion(request, {"refusal": reply.text or ""}, "stop")
            else:
                finish = {"max_tokens": "length", "end_turn": "stop"}.get(reply.stop_reason, reply.stop_reason)
                body = completion(request, {"content": reply.text or ""}, finish)
        if isinstance(body, dict) and "usage" not in body:
            body = {**body, "usage": self._accounting.usage(request.body, body)}
        return Reply(200, body, headers, trickle=reply.trickle)
