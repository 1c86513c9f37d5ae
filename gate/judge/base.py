"""The judge's seams and the values that cross them.

- ``Judge.judge(request) -> RunJudgement``: one run in, everything the judge says of it out.
- ``Provider.call(call, timeout) -> ToolReply``: one rendered tool call in, the raw reply out. Providers
  are picked by name from :data:`gate.judge.providers.PROVIDERS` (``anthropic``, ``openai``,
  ``scripted``); each turns the neutral :class:`ToolCall` into its API's request, and raises any
  failure left after its SDK's retries as :class:`gate.errors.JudgeUnavailable`.

A :class:`ToolCall` is the fully rendered, provider-neutral request: a system prompt, the user
message, one forced tool with its JSON Schema, a token limit and a cache hint. Its ``key`` hashes
exactly what changes the answer (provider, model, prompt version, tool schema, system prompt,
rendered user message) and nothing else: not ``max_tokens`` (a truncated reply is never cached) and
not the cache hint. The default provider, ``anthropic``, adds nothing to the key, so the judge
caches recorded before there were other providers keep their keys.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol, runtime_checkable

from gate.checks.base import Subject
from gate.config import Config
from gate.errors import JudgeUnavailable
from gate.judge.tools import Tool
from gate.judgement import RunJudgement, Usage
from gate.model import Case, Run

KEY_VERSION = 1
UNNAMED_PROVIDER = "anthropic"
"""The provider a cache key does not name: keys recorded before there were providers are anthropic's,
and stay valid."""

# Minimum cacheable prompt length in tokens (Anthropic prompt caching); shorter prefixes are never
# cached, so marking them would only cost the 25% write premium for nothing.
MIN_CACHEABLE_TOKENS = {"haiku": 2048}
DEFAULT_MIN_CACHEABLE_TOKENS = 1024
CHARS_PER_TOKEN = 4


@dataclass(frozen=True)
class JudgeRequest:
    """One run to judge, with its case from the golden set, and the run as the checks will read it."""

    run: Run
    case: Case
    subject: Subject | None = field(default=None, compare=False, repr=False)
    """the run prepared once for the judge and the checks (:meth:`Subject.build` of this run and case):
    the pages the judge normalises to verify its quotes are the ones the checks then search (None:
    the judge prepares the run itself)"""

    def prepared(self, config: Config) -> Subject:
        """The run prepared for reading: the request's subject, else one built now under ``config``."""
        return self.subject if self.subject is not None else Subject.build(self.run, self.case, config)


class Judge(Protocol):
    """Judges one run; keeps no state between runs that changes a result."""

    def judge(self, request: JudgeRequest) -> RunJudgement:
        """Everything the judge says of this run; failures become unscored claims, never exceptions."""
        ...


@dataclass(frozen=True)
class ToolCall:
    """One forced tool call, fully rendered and provider-neutral."""

    tool: Tool
    model: str
    user: str
    max_tokens: int = 4096
    cache_prefix: bool = False
    """the static prefix (tool definition + system prompt) is reused: mark it for prompt caching"""
    provider: str = UNNAMED_PROVIDER

    @property
    def system(self) -> str:
        """The system prompt."""
        return self.tool.system

    @property
    def messages(self) -> tuple[Mapping[str, str], ...]:
        """The conversation: one user message."""
        return ({"role": "user", "content": self.user},)

    @cached_property
    def key(self) -> str:
        """SHA-256 of exactly what changes the answer (worked out once a call: the cache asks twice)."""
        material: dict[str, Any] = {
            "key_version": KEY_VERSION,
            "model": self.model,
            "prompt": self.tool.prompt,
            "tool": self.tool.definition(),
            "system": self.tool.system,
            "user": self.user,
        }
        if self.provider != UNNAMED_PROVIDER:
            material["provider"] = self.provider
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
    """The raw reply to one tool call: the tool input (None if there was no tool call) and usage.

    ``stop_reason`` uses one vocabulary whatever the provider: ``tool_use``, ``end_turn``,
    ``max_tokens`` (cut off) and ``refusal``; a provider maps its own reasons onto these.
    """

    tool_input: Mapping[str, Any] | None
    stop_reason: str | None
    usage: Usage = field(default_factory=Usage)
    text: str = ""
    batched: bool = False
    """the reply came from a message batch, billed at the batch price"""


class Settled(JudgeUnavailable):
    """No reply for this one request, already decided elsewhere (a batch's errored or expired result).

    It says nothing of the API's health now, so it does not count towards the judge's breaker.
    """


class Provider(Protocol):
    """Sends one tool call to a model; raises ``JudgeUnavailable`` when no reply came after retries."""

    def call(self, call: ToolCall, timeout: float) -> ToolReply:
        """The reply to ``call``, within ``timeout`` seconds in all (retries and a slow reply included)."""
        ...


@runtime_checkable
class Closing(Protocol):
    """A provider holding connections (an SDK's HTTP client): whoever built it closes it when done."""

    def close(self) -> None:
        """Close the provider's connections."""
        ...


Caller = Provider
"""The seam's earlier name."""
