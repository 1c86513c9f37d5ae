"""A provider's answer to reading pages (Tavily's ``POST /extract``, Exa's ``POST /contents``), URL by URL. Pure.

    provider   per-URL lists (the fields naming the URL)       text         a URL it did not read
    tavily     results (url), failed_results (url)             raw_content  in failed_results, or in no list
    exa        results (id, url), statuses (id)                text         a status but "success", or no result

One request reads several URLs; the snapshot keeps each URL's part of the answer on its own
(:class:`gate.snapshot.records.ContentsRecord`), so that a later request for any of them, alone or
with others, is answered with what the provider said of it. :func:`split_answer` cuts an answer into
those parts: every per-URL list narrowed to the items of one URL, as they came (its per-request
fields, request ids and timings, are not kept). :func:`joined` puts parts back into one answer, in the
order asked. A URL the provider did not read is :class:`Unread`: answered to the agent as the
provider said it, and never recorded, like any failure. URLs are matched by their canonical form
(:func:`gate.urls.canonical`); an answer to one URL is that URL's, whatever its items name.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any

from gate.snapshot.records import ContentsRecord
from gate.urls import canonical

Narrowed = Mapping[str, list[Any]]
"""A provider's answer cut to one URL: each of its per-URL lists, holding that URL's items."""


@dataclass(frozen=True)
class ContentsApi:
    """How one provider's answer to reading pages names its URLs, carries their text and says a failure."""

    provider: str
    lists: Mapping[str, tuple[str, ...]]
    """list name -> the fields of an item that may name its URL (the first that does)"""
    text: str
    """the field of a ``results`` item that holds the page's text"""
    unread: Callable[[Narrowed], str | None]
    """why a URL's part of the answer is no reading of it, or None"""


@dataclass(frozen=True)
class Unread:
    """A URL the provider did not read: why, and its part of the answer (shown to the agent, never stored)."""

    url: str
    reason: str
    response: Narrowed = field(default_factory=lambda: MappingProxyType({}))


def _tavily_unread(part: Narrowed) -> str | None:
    failed = part.get("failed_results") or []
    if failed:
        error = failed[0].get("error") if isinstance(failed[0], dict) else None
        return f"tavily could not read it ({error or 'no reason given'})"
    return None if part.get("results") else "tavily's answer has no result for it"


def _exa_unread(part: Narrowed) -> str | None:
    for status in part.get("statuses") or []:
        if isinstance(status, dict) and status.get("status") not in (None, "success"):
            error = status.get("error")
            said = ", ".join(f"{k} {v}" for k, v in error.items()) if isinstance(error, dict) else error
            return f"exa could not read it ({said or status.get('status')})"
    return None if part.get("results") else "exa's answer has no result for it"


CONTENTS_APIS: Mapping[str, ContentsApi] = MappingProxyType({
    "tavily": ContentsApi("tavily", MappingProxyType({"results": ("url",), "failed_results": ("url",)}),
                          "raw_content", _tavily_unread),
    "exa": ContentsApi("exa", MappingProxyType({"results": ("id", "url"), "statuses": ("id",)}), "text", _exa_unread),
})
"""The providers whose reading of pages is recorded, by id."""


def _key(url: Any) -> str | None:
    return canonical(url) if isinstance(url, str) and url else None


def _names(item: Any, fields: tuple[str, ...]) -> str | None:
    if not isinstance(item, dict):
        return None
    return next((key for f in fields if (key := _key(item.get(f))) is not None), None)


def narrow(api: ContentsApi, answer: Mapping[str, Any], url: str, *, alone: bool = False) -> dict[str, list[Any]]:
    """``answer`` cut to ``url``'s items (``alone``: the only URL asked, so every item is its); empty lists left out."""
    want = _key(url)
    part: dict[str, list[Any]] = {}
    for name, fields in api.lists.items():
        items = answer.get(name)
        if not isinstance(items, list):
            continue
        mine = [item for item in items if alone or _names(item, fields) == want]
        if mine:
            part[name] = mine
    return part


def split_answer(api: ContentsApi, answer: Mapping[str, Any], urls: Sequence[str], recorded_at: datetime | None,
                 params: Mapping[str, Any] | None) -> dict[str, ContentsRecord | Unread]:
    """Each URL asked (once) with its part of ``answer``: a record, or why the provider did not read it."""
    asked = list(dict.fromkeys(urls))
    out: dict[str, ContentsRecord | Unread] = {}
    for url in asked:
        part = narrow(api, answer, url, alone=len(asked) == 1)
        why = api.unread(part)
        out[url] = Unread(url, why, part) if why is not None else ContentsRecord(
            api.provider, url, part, recorded_at=recorded_at, params=params)
    return out


def joined(api: ContentsApi, parts: Sequence[Narrowed]) -> dict[str, list[Any]]:
    """One answer from the parts of several URLs: each per-URL list, in the order of ``parts``."""
    return {name: [item for part in parts for item in part.get(name) or []] for name in api.lists}


def part_text(api: ContentsApi, part: Narrowed) -> str:
    """The page's text in a URL's part of the answer (empty when its result holds none)."""
    results = part.get("results") or []
    text = results[0].get(api.text) if results and isinstance(results[0], dict) else None
    return text if isinstance(text, str) else ""
