"""The ``openai`` provider: OpenAI-compatible Chat Completions with forced function calling.

Through the official ``openai`` SDK (``pip install 'sourcegate[openai]'``), imported when a provider is
built, so only a live judge with this provider loads it. It speaks to OpenAI and to anything that
serves the same API: Azure OpenAI, vLLM, Ollama, llama.cpp's server, LiteLLM.

Where it sends: ``judge.base_url``, else ``OPENAI_BASE_URL``, else OpenAI. The key is
``OPENAI_API_KEY``. With ``AZURE_OPENAI_ENDPOINT`` set (and no ``judge.base_url``), the SDK's
``AzureOpenAI`` client is used instead: it reads ``AZURE_OPENAI_API_KEY`` and ``OPENAI_API_VERSION``,
and ``judge.model`` names the deployment.

The request: the system prompt as a ``system`` message, the tool as ``tools=[{"type": "function",
"function": {name, description, parameters}}]``, forced with ``tool_choice={"type": "function",
"function": {"name": ...}}``. The SDK retries 408, 409, 429 and 5xx itself, honouring ``retry-after``;
what still fails becomes :class:`gate.errors.JudgeUnavailable` here, once, chained. OpenAI caches long
prompt prefixes by itself, so the call's cache hint needs no marking; usage maps ``prompt_tokens``
(less the cached ones), ``completion_tokens`` and ``prompt_tokens_details.cached_tokens``.

The SDK's timeout bounds each connect and each read, so a server that trickles its reply would
never trip it: every call, with the SDK's retries, also runs against a wall-clock deadline
(:func:`gate.deadline.call_by`) of the ``timeout`` it is given, the time left to the judge. The SDK
sends through :func:`gate.judge.providers.transport.http_client`, on the process's one TLS context.
"""

from __future__ import annotations

import json
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
    import openai

STOP_REASONS = {"tool_calls": "tool_use", "function_call": "tool_use", "stop": "end_turn",
                "length": "max_tokens", "content_filter": "refusal"}
"""Chat Completions ``finish_reason`` -> the judge's stop reasons (a forced call finishes with ``stop``)."""


def chat_body(call: ToolCall) -> dict[str, Any]:
    """The Chat Completions request chat_body for ``call``."""
    function = {"name": call.tool.name, "description": call.tool.description, "parameters": call.tool.input_schema}
    return {
        "model": call.model,
        "max_completion_tokens": call.max_tokens,
        "messages": [{"role": "system", "content": call.system}, *(dict(m) for m in call.messages)],
        "tools": [{"type": "function", "function": function}],
        "tool_choice": {"type": "function", "function": {"name": call.tool.name}},
    }


def _usage(usage: Any) -> Usage:
    def n(obj: Any, name: str) -> int:
        value = getattr(obj, name, None)
        return int(value) if isinstance(value, int) else 0

    cached = n(getattr(usage, "prompt_tokens_details", None), "cached_tokens")
    return Usage(calls=1, input_tokens=max(0, n(usage, "prompt_tokens") - cached),
                 output_tokens=n(usage, "completion_tokens"), cache_read_tokens=cached)


def _status_error(e: openai.APIStatusError, key: str, variable: str) -> JudgeUnavailable:
    """What the judge says of an API error to a call made with ``key`` (never shown), which ``variable`` holds."""
    chat_body = e.body if isinstance(e.body, dict) else {}
    error = chat_body.get("error", chat_body) if isinstance(chat_body.get("error", chat_body), dict) else {}
    kind = error.get("type") or error.get("code") or "error"
    detail = without_key(str(error.get("message") or e.message), key)
    request = f" (request {e.request_id})" if e.request_id else ""
    if e.status_code in AUTH_STATUSES:
        return JudgeAuthError(f"the OpenAI-compatible API refused the key ({e.status_code} {kind}: {detail})"
                              f"{request}; check {variable}; no further judge call is made")
    return JudgeUnavailable(f"API error {e.status_code} {kind}: {detail}{request}")


def _tool_input(message: Any, name: str) -> tuple[dict[str, Any] | None, str]:
    """The forced function's arguments, or None with why not."""
    for tool_call in getattr(message, "tool_calls", None) or []:
        function = getattr(tool_call, "function", None)
        if function is None or function.name != name:
            continue
        try:
            arguments = json.loads(function.arguments or "")
        except ValueError:
            return None, f"the {name} arguments are not JSON"
        except RecursionError:
            return None, f"the {name} arguments are nested too deeply to read"
        if not isinstance(arguments, dict):
            return None, f"the {name} arguments are not a JSON object"
        return arguments, ""
    return None, ""


class OpenAIProvider:
    """Sends tool calls through the official ``openai`` SDK (sync client, thread-safe)."""

    def __init__(self, config: JudgeConfig, *, base_url: str | None = None,
                 api_key: str | None = None) -> None:
        """Build the client (see the module docstring for where the URL and the key come from)."""
        try:
            import openai
        except ImportError as e:
            raise InputError("judge.provider openai needs the openai SDK: pip install 'sourcegate[openai]'") from e
        url = base_url or config.base_url
        http = http_client(openai.DefaultHttpxClient)
        azure = url is None and bool(os.environ.get("AZURE_OPENAI_ENDPOINT"))
        self._variable = "AZURE_OPENAI_API_KEY" if azure else "OPENAI_API_KEY"
        """where a key that the API refuses came from (when it was not given as a value)"""
        try:
            if azure:
                self._client: openai.OpenAI = openai.AzureOpenAI(api_key=api_key, max_retries=config.max_retries,
                                                                 http_client=http)
            else:
                self._client = openai.OpenAI(api_key=api_key, base_url=url, max_retries=config.max_retries,
                                             http_client=http)
        except openai.OpenAIError as e:
            http.close()
            raise InputError(f"cannot set up the openai provider: {e} (live judging needs OPENAI_API_KEY, or for "
                             "Azure AZURE_OPENAI_API_KEY and OPENAI_API_VERSION; or use --judge replay)") from e

    def close(self) -> None:
        """Close the SDK's connections (a call still in flight past its deadline ends with them)."""
        self._client.close()

    def call(self, call: ToolCall, timeout: float) -> ToolReply:
        """Send ``call``; the SDK retries what is retryable, the rest becomes ``JudgeUnavailable``.

        The whole call, retries included, ends within ``timeout`` seconds however the server answers.
        """
        import openai

        client, request = self._client.with_options(timeout=timeout), chat_body(call)

        def create() -> Any:
            # Called from this module: the SDK's warnings name the frame that called it (see anthropic.py).
            return client.chat.completions.create(**request)

        try:
            completion = call_by(time.monotonic() + timeout, create)
        except DeadlineExceeded as e:
            raise JudgeUnavailable(f"the API did not finish its reply within {timeout:.1f} s") from e
        except openai.APIStatusError as e:
            raise _status_error(e, self._client.api_key, self._variable) from e
        except openai.APITimeoutError as e:
            raise JudgeUnavailable(f"the API did not answer within {timeout:.0f} s") from e
        except openai.APIConnectionError as e:
            raise JudgeUnavailable(f"cannot reach the API: {e.message}") from e
        except openai.OpenAIError as e:
            raise JudgeUnavailable(f"the SDK failed: {e}") from e
        except RecursionError as e:  # the SDK reads the reply's JSON with json, unbounded in depth
            raise JudgeUnavailable("the API's reply is nested too deeply to read") from e
        usage = _usage(completion.usage)
        if not completion.choices:
            return ToolReply(None, "no_choices", usage)
        choice = completion.choices[0]
        message = choice.message
        stop = STOP_REASONS.get(choice.finish_reason, choice.finish_reason)
        refusal = getattr(message, "refusal", None)
        if refusal:
            return ToolReply(None, "refusal", usage, refusal)
        tool_input, why = _tool_input(message, call.tool.name)
        return ToolReply(tool_input, why or stop, usage, message.content or "")
