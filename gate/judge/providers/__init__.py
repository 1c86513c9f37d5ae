"""Judge providers by name: each one module implementing ``Provider.call(call, timeout) -> ToolReply``.

``judge.provider`` in ``sourcegate.yaml`` picks one of :data:`PROVIDERS`; a provider is built from the
judge configuration (plus an optional ``base_url`` and ``api_key`` that override it and the
environment: the action passes its key input as a value, never through the environment). SDKs are
imported when a provider is built, never when this registry is.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Protocol

from gate.config import JudgeConfig
from gate.errors import InputError
from gate.judge.base import Provider
from gate.judge.providers.anthropic import AnthropicProvider
from gate.judge.providers.openai import OpenAIProvider
from gate.judge.providers.scripted import ScriptedProvider

__all__ = ["PROVIDERS", "ProviderFactory", "build_provider"]


class ProviderFactory(Protocol):
    """Builds a provider from the judge configuration."""

    def __call__(self, config: JudgeConfig, *, base_url: str | None = None,
                 api_key: str | None = None) -> Provider:
        """A ready provider; ``InputError`` when it cannot be set up (no key, no SDK)."""
        ...


PROVIDERS: Mapping[str, ProviderFactory] = MappingProxyType({
    "anthropic": AnthropicProvider,
    "openai": OpenAIProvider,
    "scripted": ScriptedProvider,
})


def build_provider(config: JudgeConfig, *, api_key: str | None = None) -> Provider:
    """The provider ``config.provider`` names, with ``api_key`` when given.

    None leaves the key to the provider (its SDK reads the environment); an empty key means the
    caller holds none for this provider and the environment must not be read: an input error.
    """
    factory = PROVIDERS.get(config.provider)
    if factory is None:
        raise InputError(f"judge.provider: {config.provider!r} is not one of {', '.join(PROVIDERS)}")
    if api_key == "":
        raise InputError(f"live judging with the {config.provider} provider needs its API key, and none was "
                         "given for it (or judge in replay mode)")
    return factory(config) if api_key is None else factory(config, api_key=api_key)
