"""Prices for judge usage, from the configuration's price table (USD per million tokens).

Cache writes and reads are priced as the API prices them: when the table gives no ``cache_write`` or
``cache_read`` price for a model, they cost 1.25x and 0.1x its input price.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from gate.judgement import Usage

CACHE_WRITE_FACTOR = 1.25
CACHE_READ_FACTOR = 0.1


def _rates(model: str, prices: Mapping[str, Mapping[str, float]]) -> tuple[float, float, float, float] | None:
    p = prices.get(model)
    if p is None:
        return None
    inp = p["input"]
    write = p.get("cache_write", inp * CACHE_WRITE_FACTOR)
    return inp, p["output"], write, p.get("cache_read", inp * CACHE_READ_FACTOR)


def priced(usage: Usage, model: str, prices: Mapping[str, Mapping[str, float]]) -> Usage:
    """``usage`` with its estimated cost; None when the model has no price."""
    rates = _rates(model, prices)
    if rates is None:
        cost = None
    else:
        inp, out, write, read = rates
        cost = (usage.input_tokens * inp + usage.output_tokens * out + usage.cache_write_tokens * write
                + usage.cache_read_tokens * read) / 1_000_000
    return replace(usage, cost_usd=cost)


def billed_input_tokens(usage: Usage, model: str, prices: Mapping[str, Mapping[str, float]]) -> float:
    """Input tokens weighted as billed: plain input, plus cache writes and reads at their price ratio."""
    rates = _rates(model, prices)
    if rates is None or rates[0] == 0:
        write, read = CACHE_WRITE_FACTOR, CACHE_READ_FACTOR
    else:
        write, read = rates[2] / rates[0], rates[3] / rates[0]
    return usage.input_tokens + usage.cache_write_tokens * write + usage.cache_read_tokens * read
