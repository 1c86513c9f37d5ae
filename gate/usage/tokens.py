"""What a model call used, read from the response shapes that say it, and priced. Pure.

    Anthropic Messages   usage.input_tokens (uncached), output_tokens, cache_read_input_tokens,
                         cache_creation_input_tokens
    OpenAI Chat          usage.prompt_tokens (cached included), completion_tokens,
                         prompt_tokens_details.cached_tokens
    OpenAI Responses     usage.input_tokens (cached included), output_tokens, input_tokens_details.cached_tokens
                         (and cache_write_tokens)
    LangChain            usage_metadata.input_tokens (cached included), output_tokens,
                         input_token_details.cache_read / cache_creation

Every shape is counted as the judge counts its own usage (:class:`gate.judgement.Usage`): input tokens
read neither from nor into the prompt cache, and the cache reads and writes apart. The cost is the
gate's price table's (``judge.prices``, :data:`gate.config.DEFAULT_PRICES`); a model it does not price
has no cost, never a guessed one. A dated model id (``claude-sonnet-4-5-20250929``,
``gpt-4.1-2025-04-14``) is priced as its undated name when only that is in the table. A search API that
says what a call cost (Exa's ``costDollars.total``) gives that cost.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gate.config import DEFAULT_PRICES
from gate.judgement import Usage
from gate.usage.cost import priced

__all__ = ["Tokens", "model_of", "price_tokens", "search_cost", "tokens_of"]

_DATED = re.compile(r"-(\d{8}|\d{4}-\d{2}-\d{2})$")


@dataclass(frozen=True)
class Tokens:
    """A call's tokens, split as the judge's usage splits them."""

    input_tokens: int
    output_tokens: int
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


def _n(data: Mapping[str, Any] | None, key: str) -> int:
    value = None if data is None else data.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def _inner(data: Mapping[str, Any], key: str) -> Mapping[str, Any] | None:
    value = data.get(key)
    return value if isinstance(value, Mapping) else None


def tokens_of(usage: Any) -> Tokens | None:
    """The tokens of a ``usage`` object of any of the shapes above; None when it is not one."""
    if not isinstance(usage, Mapping):
        return None
    if "prompt_tokens" in usage or "completion_tokens" in usage:  # OpenAI Chat Completions
        cached = _n(_inner(usage, "prompt_tokens_details"), "cached_tokens")
        return Tokens(max(0, _n(usage, "prompt_tokens") - cached), _n(usage, "completion_tokens"), cached)
    if "input_tokens" not in usage and "output_tokens" not in usage:
        return None
    if "input_tokens_details" in usage:  # OpenAI Responses
        details = _inner(usage, "input_tokens_details")
        read, write = _n(details, "cached_tokens"), _n(details, "cache_write_tokens")
        return Tokens(max(0, _n(usage, "input_tokens") - read - write), _n(usage, "output_tokens"), read, write)
    if "input_token_details" in usage:  # LangChain's usage_metadata
        details = _inner(usage, "input_token_details")
        read, write = _n(details, "cache_read"), _n(details, "cache_creation")
        return Tokens(max(0, _n(usage, "input_tokens") - read - write), _n(usage, "output_tokens"), read, write)
    # Anthropic Messages (input_tokens is the uncached part; the cache counts come apart)
    return Tokens(_n(usage, "input_tokens"), _n(usage, "output_tokens"), _n(usage, "cache_read_input_tokens"),
                  _n(usage, "cache_creation_input_tokens"))


def model_of(response: Any) -> str | None:
    """The model a response names (``model``), if it names one."""
    model = response.get("model") if isinstance(response, Mapping) else None
    return model if isinstance(model, str) and model else None


def price_tokens(model: str | None, tokens: Tokens,
                 prices: Mapping[str, Mapping[str, float]] = DEFAULT_PRICES) -> float | None:
    """What ``tokens`` of ``model`` cost at the table's prices; None for a model it does not price."""
    if model is None:
        return None
    name = model if model in prices else _DATED.sub("", model)
    if name not in prices:
        return None
    usage = Usage(calls=1, input_tokens=tokens.input_tokens, output_tokens=tokens.output_tokens,
                  cache_read_tokens=tokens.cache_read_tokens, cache_write_tokens=tokens.cache_write_tokens)
    return priced(usage, name, prices).cost_usd


def search_cost(response: Any) -> float | None:
    """What a search API says its call cost, in USD (Exa's ``costDollars.total``); None when it does not."""
    if not isinstance(response, Mapping):
        return None
    cost = response.get("costDollars")
    total = cost.get("total") if isinstance(cost, Mapping) else None
    if isinstance(total, int | float) and not isinstance(total, bool) and total >= 0:
        return float(total)
    return None
