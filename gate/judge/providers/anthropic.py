"""The ``anthropic`` provider: the Messages API through the official SDK, the only module that imports it.

The SDK is imported when a provider is built, so only a live judge loads it (``import gate.cli``,
replay and off runs never do; it takes seconds). The SDK retries 429, 5xx and 529 itself, honouring
``retry-after``; ``max_retries`` comes from ``judge.max_retries``. Whatever still fails is translated
here, once, into :class:`gate.errors.JudgeUnavailable` (chained), which leaves the claims unscored;
a refused key (401, 403) is :class:`gate.errors.JudgeAuthError`, which stops the judge at once.

The SDK's timeout bounds each connect and each read, so a server that trickles its reply would
never trip it: every call, with the SDK's retries, also runs against a wall-clock deadline
(:func:`gate.deadline.call_by`) of the ``timeout`` it is given, the time left to the judge.

The SDK sends through :func:`gate.judge.providers.transport.http_client`: its own kind of HTTP
client, on the TLS context every client of the process shares.

The request: the system prompt as one text block (marked ``cache_control`` when the call's cache hint
says the prefix is reused), the forced tool as ``tool_choice: {"type": "tool", "name": ...}``.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

from gate.config import JudgeConfig
from gate.deadline import DeadlineExceeded, call_by
from gate.errors import InputError, JudgeAuthError, JudgeUnavailable
from gate.judge.base import ToolCall, ToolReply
from gate.judge.providers.transport import AUTH_STATUSES, http_client, without_key
from gate.judgement import Usage

if TYPE_CHECKING:
    import anthropic

ENVIRONMENT_KEYS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
"""Where the SDK finds a key when none is given (an empty value counts as none)."""


def messages_body(call: ToolCall) -> dict[str, Any]:
    """The Messages API request messages_body for ``call``."""
    system: dict[str, Any] = {"type": "text", "text": call.system}
    if call.cache_prefix:
        system["cache_control"] = {"type": "ephemeral"}
    return {
        "model": call.model,
        "max_tokens": call.max_tokens,
        "system": [system],
        "tools": [call.tool.definition()],
        "tool_choice": {"type": "tool", "name": call.tool.name},
        "messages": [dict(m) for m in call.messages],
    }


def usage_of(usage: Any) -> Usage:
    def n(name: str) -> int:
        value = getattr(usage, name, None)
        return int(value) if isinstance(value, int) else 0

    return Usage(calls=1, input_tokens=n("input_tokens"), output_tokens=n("output_tokens"),
                 cache_read_tokens=n("cache_read_input_tokens"),
                 cache_write_tokens=n("cache_creation_input_tokens"))


def client(config: JudgeConfig, base_url: str | None, api_key: str | None, work: str) -> anthropic.Anthropic:
    """The SDK's client for ``work`` (what the error says needs a key), on the process's one TLS context
    (:mod:`gate.judge.providers.transport`); a missing key is an input error.

    A key that is neither given nor in the environment (where the SDK looks first) is refused before
    the SDK is imported: that takes seconds, and the error does not need it."""
    missing = InputError(f"{work} needs an API key: set ANTHROPIC_API_KEY (or use --judge replay)")
    if api_key is None and not any(os.environ.get(name) for name in ENVIRONMENT_KEYS):
        raise missing
    import anthropic

    made = anthropic.Anthropic(api_key=api_key, base_url=base_url or config.base_url, max_retries=config.max_retries,
                               http_client=http_client(anthropic.DefaultHttpxClient))
    if made.api_key is None and getattr(made, "auth_token", None) is None:
        made.close()
        raise missing
    return made


def status_error(e: anthropic.APIStatusError, made: anthropic.Anthropic) -> JudgeUnavailable:
    """What the judge says of an API error to a call by the client ``made`` (its key never shown)."""
    kind = e.type or "error"
    detail = without_key(e.api_message or e.message, made.api_key, getattr(made, "auth_token", None))
    request = f" (request {e.request_id})" if e.request_id else ""
    if e.status_code in AUTH_STATUSES:
        return JudgeAuthError(f"the Anthropic API refused the key ({e.status_code} {kind}: {detail}){request}; "
                              "check ANTHROPIC_API_KEY; no further judge call is made")
    return JudgeUnavailable(f"API error {e.status_code} {kind}: {detail}{request}")


class AnthropicProvider:
    """Sends tool calls through the official ``anthropic`` SDK (sync client, thread-safe)."""

    def __init__(self, config: JudgeConfig, *, base_url: str | None = None,
                 api_key: str | None = None) -> None:
        """Build the client; ``base_url`` and ``api_key`` default to ``judge.base_url``, then the environment
        (``ANTHROPIC_BASE_URL``, ``ANTHROPIC_API_KEY``)."""
        self._client = client(config, base_url, api_key, "live judging with the anthropic provider")

    def close(self) -> None:
        """Close the SDK's connections (a call still in flight past its deadline ends with them)."""
        self._client.close()

    def call(self, call: ToolCall, timeout: float) -> ToolReply:
        """Send ``call``; the SDK retries what is retryable, the rest becomes ``JudgeUnavailable``.

        The whole call, retries included, ends within ``timeout`` seconds however the server answers.
        """
        import anthropic

        client, request = self._client.with_options(timeout=timeout), messages_body(call)

        def create() -> Any:
            # Called from this module (not through functools.partial): the SDK's warnings name the
            # frame that called it, and the session keeps those from the provider modules for the report.
            return client.messages.create(**request)

        try:
            message = call_by(time.monotonic() + timeout, create)
        except DeadlineExceeded as e:
            raise JudgeUnavailable(f"the API did not finish its reply within {timeout:.1f} s") from e
        except anthropic.APIStatusError as e:
            raise status_error(e, self._client) from e
        except anthropic.APITimeoutError as e:
            raise JudgeUnavailable(f"the API did not answer within {timeout:.0f} s") from e
        except anthropic.APIConnectionError as e:
            raise JudgeUnavailable(f"cannot reach the API: {e.message}") from e
        except anthropic.AnthropicError as e:
            raise JudgeUnavailable(f"the SDK failed: {e}") from e
        except RecursionError as e:  # the SDK reads the reply's JSON with json, unbounded in depth
            raise JudgeUnavailable("the API's reply is nested too deeply to read") from e
        return reply_of(message, call)


def reply_of(message: Any, call: ToolCall, *, batched: bool = False) -> ToolReply:
    """The :class:`ToolReply` in a Messages API ``message`` (an SDK object) answering ``call``."""
    tool_input = None
    text = []
    for block in message.content:
        if block.type == "tool_use" and block.name == call.tool.name and isinstance(block.input, dict):
            tool_input = block.input
        elif block.type == "text":
            text.append(block.text)
    return ToolReply(tool_input, message.stop_reason, usage_of(message.usage), "\n".join(text), batched)
