"""Search results out of the JSON that search APIs return: one small parser per provider, by id.

The recorder reads an agent's search answers with them, the replay server the recorded ones, and
``sourcegate run`` what it served.

    provider    result list                  title   URL     snippet         date
    serpapi     organic_results[]            title   link    snippet         date
    brave       web.results[]                title   url     description     page_age
    bing        webPages.value[]             name    url     snippet         datePublished
    tavily      results[]                    title   url     content         published_date
    exa         results[]                    title   url     text/summary    publishedDate
    serply      results[]                    title   link    description     (none)
    serper      organic[]                    title   link    snippet         date
    anthropic   web_search_tool_result       title   url     (encrypted)     page_age
    trace       results[]                    title   url     snippet         published

``trace`` is the neutral shape the snapshot builder records and the replay server serves. Dates
are kept only when they are calendar dates ("2 days ago" says nothing without its moment). A
response whose shape a parser does not know is a :class:`gate.errors.RecordError` that names the
provider and the JSON path of what is missing: never an empty result list. Everything here is pure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any

from gate.errors import InputError, RecordError
from gate.files.where import Where, arr, need, obj, opt_text, publication_date, url
from gate.model import SearchResult


@dataclass(frozen=True)
class ResultParser:
    """The results of one search API: how to recognise its response, and how to read it."""

    id: str
    detect: Callable[[Any], bool]
    parse: Callable[[Any, Where], tuple[SearchResult, ...]]


def _items(items: list[Any], at: Where, *, link: str, title: str, snippet: str | tuple[str, ...],
           published: str | None, position: str | None = None) -> tuple[SearchResult, ...]:
    """Results from a list of objects, with the field names of one provider."""
    out = []
    for i, raw in enumerate(items):
        here = at.item(i)
        item = obj(raw, here)
        found = need(item, link, here)
        text = ""
        for name in (snippet,) if isinstance(snippet, str) else snippet:
            text = opt_text(item, name, here) or ""
            if text:
                break
        rank = item.get(position) if position else None
        out.append(SearchResult(
            query=None, position=rank if isinstance(rank, int) and not isinstance(rank, bool) else i + 1,
            title=opt_text(item, title, here) or "", url=url(found, here.key(link)), snippet=text,
            published=_date(opt_text(item, published, here) if published else None),
        ))
    return tuple(out)


def _date(value: str | None) -> date | None:
    found = publication_date(value)
    return None if found is None else date.fromisoformat(found)


def _path(data: Any, at: Where, *names: str) -> list[Any]:
    """The array at ``data.names[0].names[1]...``, or an error at the first missing step."""
    for name in names:
        data = need(obj(data, at), name, at)
        at = at.key(name)
    return arr(data, at)


def _with_list(data: Any, *names: str) -> bool:
    for name in names:
        if not isinstance(data, dict) or name not in data:
            return False
        data = data[name]
    return isinstance(data, list)


def _first(data: Any) -> dict[str, Any]:
    items = data.get("results") if isinstance(data, dict) else None
    return items[0] if isinstance(items, list) and items and isinstance(items[0], dict) else {}


# ------------------------------------------------------------------------------------------ parsers

def _serpapi(data: Any, at: Where) -> tuple[SearchResult, ...]:
    meta = obj(data, at).get("search_metadata")
    if "organic_results" not in data and isinstance(meta, dict) and meta.get("status") == "Success":
        return ()  # SerpApi leaves the list out when Google found nothing, and says so with "Success"
    return _items(_path(data, at, "organic_results"), at.key("organic_results"), link="link", title="title",
                  snippet="snippet", published="date", position="position")


def _brave(data: Any, at: Where) -> tuple[SearchResult, ...]:
    return _items(_path(data, at, "web", "results"), at.key("web").key("results"), link="url", title="title",
                  snippet="description", published="page_age")


def _bing(data: Any, at: Where) -> tuple[SearchResult, ...]:
    return _items(_path(data, at, "webPages", "value"), at.key("webPages").key("value"), link="url",
                  title="name", snippet="snippet", published="datePublished")


def _tavily(data: Any, at: Where) -> tuple[SearchResult, ...]:
    return _items(_path(data, at, "results"), at.key("results"), link="url", title="title", snippet="content",
                  published="published_date")


def _exa(data: Any, at: Where) -> tuple[SearchResult, ...]:
    return _items(_path(data, at, "results"), at.key("results"), link="url", title="title",
                  snippet=("text", "summary"), published="publishedDate")


def _serply(data: Any, at: Where) -> tuple[SearchResult, ...]:
    return _items(_path(data, at, "results"), at.key("results"), link="link", title="title",
                  snippet="description", published=None, position="realPosition")


def _serper(data: Any, at: Where) -> tuple[SearchResult, ...]:
    return _items(_path(data, at, "organic"), at.key("organic"), link="link", title="title", snippet="snippet",
                  published="date", position="position")


def _trace(data: Any, at: Where) -> tuple[SearchResult, ...]:
    return _items(_path(data, at, "results"), at.key("results"), link="url", title="title", snippet="snippet",
                  published="published", position="position")


def _anthropic(data: Any, at: Where) -> tuple[SearchResult, ...]:
    """A ``web_search_tool_result`` block, or its ``content`` list of ``web_search_result`` items."""
    if isinstance(data, dict):
        kind = data.get("type")
        if kind != "web_search_tool_result":
            raise at.key("type").error(f"expected 'web_search_tool_result', got {kind!r}")
        at = at.key("content")
        data = need(data, "content", at)
    items = arr(data, at)
    for i, raw in enumerate(items):
        kind = obj(raw, at.item(i)).get("type")
        if kind != "web_search_result":
            raise at.item(i).key("type").error(f"expected 'web_search_result', got {kind!r}")
    return _items(items, at, link="url", title="title", snippet="snippet", published="page_age")


def _is_anthropic(data: Any) -> bool:
    if isinstance(data, dict):
        return data.get("type") == "web_search_tool_result"
    return isinstance(data, list) and all(isinstance(x, dict) and x.get("type") == "web_search_result"
                                          for x in data)


def _keys(data: Any) -> set[str]:
    return set(data) if isinstance(data, dict) else set()


# Each shape is told by what only its API sends, so that an answer with no results is told too.
PARSERS: dict[str, ResultParser] = {p.id: p for p in (
    ResultParser("serpapi", lambda d: bool(_keys(d) & {"organic_results", "search_metadata"}), _serpapi),
    ResultParser("brave", lambda d: isinstance(d, dict) and d.get("type") == "search" and "web" in d, _brave),
    ResultParser("bing", lambda d: isinstance(d, dict) and (d.get("_type") == "SearchResponse" or "webPages" in d),
             _bing),
    ResultParser("tavily", lambda d: _with_list(d, "results") and "query" in d and (
        bool(_keys(d) & {"response_time", "follow_up_questions", "request_id"}) or "content" in _first(d)),
        _tavily),
    ResultParser("exa", lambda d: _with_list(d, "results") and (
        bool(_keys(d) & {"requestId", "autopromptString", "costDollars"}) or "publishedDate" in _first(d)), _exa),
    ResultParser("serply", lambda d: _with_list(d, "results") and (
        "link" in _first(d) or {"total", "answer"} <= _keys(d)), _serply),
    ResultParser("serper", lambda d: "searchParameters" in _keys(d) or _with_list(d, "organic"), _serper),
    ResultParser("anthropic", _is_anthropic, _anthropic),
    ResultParser("trace", lambda d: _keys(d) == {"results"} and _with_list(d, "results")
             and _keys(_first(d)) <= {"position", "title", "url", "snippet", "published"}, _trace),
)}
"""Search-result parsers by provider id; one line here adds a provider."""


def detect(response: Any) -> str:
    """The id of the one provider whose shape ``response`` has; a RecordError when none or several do."""
    found = [p.id for p in PARSERS.values() if p.detect(response)]
    if len(found) == 1:
        return found[0]
    known = ", ".join(PARSERS)
    if not found:
        raise RecordError(f"not the response shape of any known search API ({known}); name the provider "
                          "(provider=...)", file="search response", path="$")
    raise RecordError(f"the shape fits several search APIs ({', '.join(found)}); name the provider",
                      file="search response", path="$")


def parse_results(response: Any, provider: str | None = None) -> tuple[SearchResult, ...]:
    """The results in a search API's response, in order (``query`` left None).

    ``provider`` is an id of :data:`PARSERS`; without it the shape decides (see :func:`detect`).
    """
    name = provider or detect(response)
    chosen = PARSERS.get(name)
    if chosen is None:
        raise RecordError(f"unknown search provider {name!r} (known: {', '.join(PARSERS)})", file=name)
    try:
        return chosen.parse(response, Where(f"{name} response"))
    except RecordError:
        raise
    except InputError as e:
        raise RecordError(e.detail, file=e.file, path=e.path) from e
