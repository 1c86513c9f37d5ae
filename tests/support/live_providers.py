"""The judge providers the live judge tests run against, each through its real SDK and a loopback API.

``LiveProvider`` knows, for one provider, which fake server speaks its wire format, which environment
variables point its SDK there, how the forced tool looks on the wire, and what its failures say.
``tests/conftest.py`` parametrises the ``provider`` fixture over :data:`LIVE_PROVIDERS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from gate.config import Config, JudgeConfig
from tests.support.anthropic_server import AnthropicServer
from tests.support.llm_wire import FakeAPI, Responder
from tests.support.openai_server import OpenAIServer


@dataclass(frozen=True)
class LiveProvider:
    """One provider as the tests drive it."""

    name: str
    model: str
    server: type[FakeAPI]
    url_env: str
    key_env: str
    overloaded: int
    """the status of a persistent overload"""
    overloaded_reason: str
    """what a claim left unscored by that overload says"""
    bad_request_reason: str
    """how the reason for a 400 starts"""
    request_id: str
    """a request id the 400's reason carries"""
    server_error: str
    """what the reason for a 500 says"""

    @property
    def config(self) -> Config:
        """A configuration judging with this provider."""
        return Config(judge=JudgeConfig(provider=self.name, model=self.model))

    @property
    def yaml(self) -> str:
        """The ``judge:`` section of a ``sourcegate.yaml`` that picks this provider."""
        return f"judge:\n  provider: {self.name}\n  model: {self.model}\n"

    def url_of(self, server: FakeAPI) -> str:
        """The base URL the SDK takes."""
        return server.url + "/v1" if self.name == "openai" else server.url

    def tool_choice(self, name: str) -> dict[str, Any]:
        """The forced tool as the request names it."""
        if self.name == "openai":
            return {"type": "function", "function": {"name": name}}
        return {"type": "tool", "name": name}

    def start(self, responder: Responder, monkeypatch: pytest.MonkeyPatch) -> FakeAPI:
        """Serve ``responder`` and point the SDK at it through the environment."""
        server = self.server(responder).__enter__()
        monkeypatch.setenv(self.url_env, self.url_of(server))
        monkeypatch.setenv(self.key_env, server.api_key)
        monkeypatch.delenv("AZURE_OPENAI_ENDPOINT", raising=False)
        return server

    def configure(self, root: Path) -> Path:
        """Make the golden set at ``root`` judge with this provider; return ``root``."""
        (root / "sourcegate.yaml").write_text(self.yaml, encoding="utf-8")
        return root


LIVE_PROVIDERS = (
    LiveProvider("anthropic", "claude-sonnet-4-6", AnthropicServer, "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY",
                 529, "529 overloaded_error: Overloaded", "API error 400 invalid_request_error: messages.2.content.0",
                 "req_011Cd65WVh8Zrvno3NunpJ73", "500 api_error"),
    LiveProvider("openai", "gpt-4.1-mini", OpenAIServer, "OPENAI_BASE_URL", "OPENAI_API_KEY",
                 503, "503 server_error: That model is currently overloaded",
                 "API error 400 invalid_request_error: Invalid 'messages[1].content'", "req_fake",
                 "500 server_error"),
)
