"""Prices for model usage (the judge's, an agent's), from the configuration's price table (USD per million tokens).

Cache writes and reads are priced as the API prices them: when the table gives no ``cache_write`` or
``cache_read`` price for a model, they cost 1.25x and 0.1x its input price.

A call sent through the Message Batches API is billed at ``batch`` times every live price of its
model (the entry's ``batch`` factor; by default :data:`BATCH_FACTOR`, Anthropic's 50%). Its usage
keeps what it would have cost live in ``live_cost_usd``, so a report can show both.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from gate.judgement import Usage

CACHE_WRITE_FACTOR = 1.25
CACHE_READ_FACTOR = 0.1
BATCH_FACTOR = 0.5
"""A batched call's price as a share of the live one, when the price entry gives no ``batch``."""


def _rates(model: str, prices: Mapping[str, Mapping[str, float]]) -> tuple[float, float, float, float] | None:
    p = prices.get(model)
    if p is None:
        return None
    inp = p["input"]
    write = p.get("cache_write", inp * CACHE_WRITE_FACTOR)
    return inp, p["output"], write, p.get("cache_read", inp * CACHE_READ_FACTOR)


def batch_factor(model: str, prices: Mapping[str, Mapping[str, float]]) -> float:
    """The share of the live price a batched call of ``model`` is billed."""
    return prices.get(model, {}).get("batch", BATCH_FACTOR)


def priced(usage: Usage, model: str, prices: Mapping[str, Mapping[str, float]], *, batch: bool = False) -> Usage:
    """``usage`` with its estimated cost (None when the model has no price) and its live-price cost.

    ``batch``: the calls went through the Message Batches API, billed at the batch price.
    """
    rates = _rates(model, prices)
    if rates is None:
        live = None
    else:
        inp, out, write, read = rates
        live = (usage.input_tokens * inp + usage.output_tokens * out + usage.cache_write_tokens * write
                + usage.cache_read_tokens * read) / 1_000_000
    cost = live * batch_factor(model, prices) if batch and live is not None else live
    return replace(usage, cost_usd=cost, live_cost_usd=live, batch_calls=usage.calls if batch else 0)


def billed_input_tokens(usage: Usage, model: str, prices: Mapping[str, Mapping[str, float]]) -> float:
    """Input tokens weighted as billed: plain input, plus cache writes and reads at their price ratio."""
    rates = _rates(model, prices)
    if rates is None or rates[0] == 0:
        write, read = CACHE_WRITE_FACTOR, CACHE_READ_FACTOR
    else:
        write, read = rates[2] / rates[0], rates[3] / rates[0]
    return usage.input_tokens + usage.cache_write_tokens * write + usage.cache_read_tokens * read
