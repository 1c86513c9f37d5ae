"""The judge's seams and the values that cross them.

- ``Judge.judge(request) -> RunJudgement``: one run in, everything the judge says of it out.
- ``Caller.call(call, timeout) -> ToolReply``: one rendered tool call in, the raw reply out. The Anthropic
  SDK implements it in ``gate.judge.anthropic`` (the only module that imports the SDK); any failure
  after the SDK's retries is raised as :class:`gate.errors.JudgeUnavailable`.

A :class:`ToolCall` is the fully rendered request; its ``key`` hashes exactly what changes the
answer (model, prompt version, tool schema, system prompt, rendered user message) and
nothing else: not ``max_tokens`` (a truncated reply is never cached) and not ``cache_control``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from gate.judge.model import RunJudgement, Usage
from gate.judge.tools import Tool
from gate.model import Case, Run

KEY_VERSION = 1

# Minimum cacheable prompt length in tokens (Anthropic prompt caching); shorter prefixes are never
# cached, so marking them would only cost the 25% write premium for nothing.
MIN_CACHEABLE_TOKENS = {"haiku": 2048}
DEFAULT_MIN_CACHEABLE_TOKENS = 1024
CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class JudgeRequest:
    """One run to judge, with its case from the golden set."""

    run: Run
    case: Case


class Judge(Protocol):
    """Judges one run; keeps no state between runs that changes a result."""

    def judge(self, request: JudgeRequest) -> RunJudgement:
        """Everything the judge says of this run; failures become unscored claims, never exceptions."""
        ...


@dataclass(frozen=True)
class ToolCall:
    """One forced tool call, fully rendered."""

    tool: Tool
    model: str
    user: str
    max_tokens: int = 4096
    cache_prefix: bool = False
    """mark the static prefix (tool definition + system prompt) with ``cache_control``"""

    def body(self) -> dict[str, Any]:
        """The Messages API request body."""
        system: dict[str, Any] = {"type": "text", "text": self.tool.system}
        if self.cache_prefix:
            system["cache_control"] = {"type": "ephemeral"}
        return {
            "model": self.model,
            "max_tokens": self.max_tokens,
            "system": [system],
            "tools": [self.tool.definition()],
            "tool_choice": {"type": "tool", "name": self.tool.name},
            "messages": [{"role": "user", "content": self.user}],
        }

    @property
    def key(self) -> str:
        """SHA-256 of exactly what changes the answer."""
        material = {
            "key_version": KEY_VERSION,
            "model": self.model,
            "prompt": self.tool.prompt,
            "tool": self.tool.definition(),
            "system": self.tool.system,
            "user": self.user,
        }
        text = json.dumps(material, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    @property
    def prefix_chars(self) -> int:
        """Length of the static prefix (tool definition and system prompt) in characters."""
        return len(json.dumps(self.tool.definition())) + len(self.tool.system)


def min_cacheable_tokens(model: str) -> int:
    """The smallest prefix the API caches for this model."""
    for family, tokens in MIN_CACHEABLE_TOKENS.items():
        if family in model:
            return tokens
    return DEFAULT_MIN_CACHEABLE_TOKENS


def worth_caching(prefix_chars: int, model: str, expected_uses: int) -> bool:
    """Cache a prefix only if it is reused and long enough to be cached at all (tokens ~ chars / 4)."""
    return expected_uses >= 2 and prefix_chars // CHARS_PER_TOKEN >= min_cacheable_tokens(model)


@dataclass(frozen=True)
class ToolReply:
    """The raw reply to one tool call: the tool input (None if there was no tool call) and usage."""

    tool_input: Mapping[str, Any] | None
    stop_reason: str | None
    usage: Usage = field(default_factory=Usage)
    text: str = ""


class Caller(Protocol):
    """Sends one tool call; raises ``JudgeUnavailable`` when no reply came after retries."""

    def call(self, call: ToolCall, timeout: float) -> ToolReply:
        """The reply to ``call``, within ``timeout`` seconds in all (retries and a slow reply included)."""
        ...
