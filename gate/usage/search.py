"""What a run's calls to search APIs cost: each search, and each page read through a provider's
extraction API (Tavily's extract), priced. Pure.

A call's cost is what the API's reply said it billed, when it said (Exa's ``costDollars``: ``billed``);
else its provider's credits for the kind of call times the provider's credit price, from the
configuration's ``search_prices`` (:data:`gate.config.DEFAULT_SEARCH_PRICES`, dated and sourced in
docs/costs.md: ``price_table``); else it has no price (``no_price``: its provider was not recorded, or
the table has no entry for it or for that kind of call), which is never $0. A run ``sourcegate run``
produced had its calls answered by the replay server from the snapshot: each is ``replayed``, $0 spent,
whatever its provider would charge. A page the agent fetched itself is no call to a search API and is
not charged.
"""

from __future__ import annotations

from collections.abc import Mapping

from gate.config import SearchPrice
from gate.model import Page, Run, SearchCall
from gate.results import SearchCharge

__all__ = ["ADVANCED", "operation_of", "search_charges", "total_cost"]

ADVANCED = "advanced"
"""The depth (Tavily's ``search_depth`` and ``extract_depth``) that costs the advanced kind of call."""


def operation_of(kind: str, depth: str | None) -> str:
    """The kind of call a price counts credits for: ``search`` or ``extract``, ``advanced_`` at depth advanced."""
    return f"{ADVANCED}_{kind}" if depth == ADVANCED else kind


def _priced(operation: str, provider: str | None, billed: float | None, prices: Mapping[str, SearchPrice],
            replayed: bool) -> tuple[str, float | None, float | None]:
    """(basis, cost in USD, credits) of one call."""
    if replayed:
        return "replayed", 0.0, None
    if billed is not None:
        return "billed", billed, None
    price = prices.get(provider) if provider is not None else None
    credits = price.credits.get(operation) if price is not None else None
    if price is None or credits is None:
        return "no_price", None, None
    return "price_table", credits * price.credit_usd, credits


def _search(index: int, call: SearchCall | None, prices: Mapping[str, SearchPrice], replayed: bool) -> SearchCharge:
    provider = call.provider if call is not None else None
    operation = operation_of("search", call.depth if call is not None else None)
    billed = call.cost_usd if call is not None else None
    basis, cost, credits = _priced(operation, provider, billed, prices, replayed)
    return SearchCharge(operation, basis, cost, provider, query=index, credits=credits)


def _extract(page: Page, prices: Mapping[str, SearchPrice], replayed: bool) -> SearchCharge:
    operation = operation_of("extract", page.depth)
    basis, cost, credits = _priced(operation, page.provider, None, prices, replayed)
    return SearchCharge(operation, basis, cost, page.provider, url=page.url, credits=credits)


def search_charges(run: Run, prices: Mapping[str, SearchPrice]) -> tuple[SearchCharge, ...]:
    """Each search of ``run`` (one per query, in order), then each page it read through a provider's
    extraction API, with what it cost."""
    calls = {c.query: c for c in run.searches}
    replayed = run.replay is not None  # sourcegate run: the frozen web answered
    return (*(_search(i, calls.get(i), prices, replayed) for i in range(len(run.queries))),
            *(_extract(p, prices, replayed) for p in run.pages if p.provider is not None))


def total_cost(charges: tuple[SearchCharge, ...]) -> tuple[float | None, int]:
    """What the calls cost together, when each has a price (None when one has none, or there is none
    priced at all), and how many have no price."""
    unpriced = sum(1 for c in charges if c.cost_usd is None)
    if unpriced or not charges:
        return (0.0 if not charges else None), unpriced
    return sum(c.cost_usd or 0.0 for c in charges), 0
