"""What the example agent does once per process, done once in the interpreter its processes fork from.

Imported by a :class:`tests.support.preloaded.Preloaded` interpreter after the SDK and the recorder
(``Preloaded(["anthropic", "gate.record", "tests.support.agent_warmup"], env)``). A Python agent
loads more than ``import anthropic`` on its first request: the SDK's HTTP stack and trace
propagation, the parsers it builds for a message's content blocks on first use, and, for the
guard, tldextract and its Public Suffix List. A forked process would pay for each of them again
and throw the work away when it ends; this module does it once, in memory (no socket, no file
written), so every fork starts with them ready.
"""

from __future__ import annotations

import json
from typing import Any

import anthropic
import httpcore2  # noqa: F401 (the SDK's default transport imports it when a client is built)
import httpx2

from gate.urls import registered_domain

__all__ = ["MESSAGE"]

MESSAGE: dict[str, Any] = {
    "id": "msg_warmup", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
    "content": [{"type": "text", "text": "Searching."},
                {"type": "tool_use", "id": "toolu_warmup", "name": "web_search", "input": {"query": "warm-up"}}],
    "stop_reason": "tool_use", "stop_sequence": None,
    "usage": {"input_tokens": 1, "output_tokens": 1},
}
"""The one reply of the in-memory round trip: text and a tool call, as the agent's first turn gets."""


def _reply(request: httpx2.Request) -> httpx2.Response:
    return httpx2.Response(200, json=MESSAGE, request=request)


def _round_trip() -> None:
    """One ``messages.create`` through the SDK, answered in memory, and the reply dumped as the agent does."""
    transport = httpx2.MockTransport(_reply)
    with anthropic.Anthropic(api_key="warm-up", base_url="http://warm-up.invalid", max_retries=0,
                             http_client=httpx2.Client(transport=transport)) as client:
        reply = client.messages.create(model="claude-sonnet-4-5", max_tokens=16, system="warm-up",
                                       messages=[{"role": "user", "content": "warm-up"}])
        json.dumps([block.model_dump() for block in reply.content])


_round_trip()
registered_domain("https://docs.python.org/3/")  # builds the offline Public Suffix List once
