"""What the provider routes share: the answer to a search, the pages of an extract, stable ids.

:func:`search_reply` answers a :class:`gate.replay.routes.frozen.SearchAsk` in a provider's shape:
its own recorded JSON as it came (the result list cut to the count asked), else the recorded results
rendered by the route. :func:`read_pages` reads the URLs of an extract request, each a hit or a miss;
:func:`contents_reply` puts the answers to a provider's reading of pages
(:func:`gate.replay.routes.reading.read_contents`) back into the provider's per-URL lists.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import date
from typing import Any

from gate.errors import LiveWebError, SnapshotMiss
from gate.model import NOT_IN_SNAPSHOT, NOT_RECORDED, SearchResult
from gate.replay.routes.base import Api, Reply
from gate.replay.routes.frozen import FrozenWeb, PageRead, SearchAsk, SearchFound
from gate.replay.routes.reading import ContentsRead
from gate.replay.routes.wire import BadRequest, Request, Served
from gate.snapshot.contents import CONTENTS_APIS, Narrowed, joined, part_text
from gate.text.redact import redact

Render = Callable[[SearchAsk, tuple[SearchResult, ...]], Any]
"""The recorded results of a search in the provider's response shape."""
Cut = Callable[[Any, int], Any]
"""The provider's own recorded JSON with its result list cut to a count."""
PagePart = Callable[[str, PageRead], Narrowed]
"""A page the snapshot holds, as the provider's per-URL lists would carry it."""
FailedPart = Callable[[str, str], Narrowed]
"""A URL the provider did not read (or the snapshot lacks) and why, in the provider's per-URL lists."""


def search_reply(api: Api, ask: SearchAsk, request: Request, web: FrozenWeb, render: Render, cut: Cut,
                 echoed: Callable[[Any], Any] | None = None) -> Reply:
    """The reply to one search: the recording, or a miss in ``api``'s error shape."""
    found = web.search(ask, request, echoed)
    if not isinstance(found, SearchFound):
        miss, message = found
        return api.refuse(api.miss_status, message, miss)
    if found.own:
        body = found.record.response if ask.count is None else cut(found.record.response, ask.count)
    else:
        body = render(ask, found.results)
    return Reply(200, body, served=(Served("search", ask.query, ask.provider, body, True, request.target),))


def read_pages(urls: Sequence[str], provider: str, request: Request,
               web: FrozenWeb) -> list[tuple[str, PageRead | None, Served]]:
    """Each URL with what the snapshot holds of it (None: a miss, or in record mode a page the live web
    gave nothing to record) and how the case's scope keeps it."""
    out: list[tuple[str, PageRead | None, Served]] = []
    for url in urls:
        try:
            read = web.read(url)
        except SnapshotMiss:
            out.append((url, None, Served("pages", url, provider, None, False, request.target, NOT_IN_SNAPSHOT)))
            continue
        except LiveWebError as e:
            why = f"{NOT_RECORDED}: {redact(str(e), web.secrets)}"
            out.append((url, None, Served("pages", url, provider, None, False, request.target, why)))
            continue
        out.append((url, read, read.served(provider, request)))
    return out


def contents_reply(provider: str, reads: Sequence[ContentsRead], request: Request, page_part: PagePart,
                   failed_part: FailedPart) -> tuple[dict[str, list[Any]], tuple[Served, ...]]:
    """The provider's per-URL lists answering ``reads``, in order, and what each served or missed: its own
    recording as it came, a page rendered by ``page_part``, its failure to read as it said it (else
    rendered by ``failed_part``), or a miss."""
    api = CONTENTS_APIS[provider]
    parts: list[Narrowed] = []
    served: list[Served] = []
    for read in reads:
        if read.own is not None:
            parts.append(read.own.response)
            at = read.own.recorded_at
            body = {"url": read.url, "text": part_text(api, read.own.response),
                    "fetched_at": None if at is None else at.isoformat().replace("+00:00", "Z")}
            served.append(Served("extractions", read.url, provider, body, True, request.target))
        elif read.page is not None:
            parts.append(page_part(read.url, read.page))
            served.append(read.page.served(provider, request))
        elif read.unread is not None:
            parts.append(read.unread.response or failed_part(read.url, read.unread.reason))
            served.append(Served("pages", read.url, provider, None, False, request.target,
                                 f"{NOT_RECORDED}: {read.unread.reason}"))
        else:
            why = read.miss or NOT_IN_SNAPSHOT
            said = f"{NOT_IN_SNAPSHOT} (replay never goes to the network)" if why == NOT_IN_SNAPSHOT else why
            parts.append(failed_part(read.url, f"{read.url}: {said}"))
            served.append(Served("pages", read.url, provider, None, False, request.target, why))
    return joined(api, parts), tuple(served)


def query_ask(request: Request, provider: str, defaults: dict[str, Any], count_param: str, count_default: int,
              missing: str) -> SearchAsk:
    """A search asked in the query string (``q``, a count, the rest of ``defaults``); BadRequest
    (``missing``, in the provider's words) without a query."""
    given: dict[str, Any] = {name: request.param(name) for name in request.query}
    query = given.get("q")
    if not query or not query.strip():
        raise BadRequest(missing)
    return SearchAsk.of(provider, query, given, defaults, count_param, count_default, query_param="q")


def body_ask(request: Request, provider: str, query_param: str, defaults: dict[str, Any], count_param: str,
             count_default: int, missing: str) -> tuple[dict[str, Any], SearchAsk]:
    """A search asked in a JSON body (``query_param``, a count, the rest of ``defaults``) and the body;
    BadRequest (``missing``, in the provider's words) without a query or a JSON object."""
    body = request.json_object()
    query = body.get(query_param)
    if not isinstance(query, str) or not query.strip():
        raise BadRequest(missing)
    return body, SearchAsk.of(provider, query, body, defaults, count_param, count_default, query_param=query_param)


def cut_list(data: Any, n: int, *path: str) -> Any:
    """``data`` with the list at ``path`` (``"web", "results"``) cut to ``n`` items; as it was without one."""
    if not path:
        return data[:n] if isinstance(data, list) else data
    inner = data.get(path[0]) if isinstance(data, dict) else None
    if inner is None:
        return data
    return {**data, path[0]: cut_list(inner, n, *path[1:])}


def request_urls(value: Any) -> list[str]:
    """A request's ``urls``: one URL or a list of them."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(u, str) and u for u in items):
        raise BadRequest("expected 'urls': a URL or a list of URLs")
    return list(items)


def request_id(*parts: str) -> str:
    """An id for a reply that is the same on every replay of the same request."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, "sourcegate-replay:" + "\x00".join(parts)))


def score(rank: int, total: int) -> float:
    """A relevance score falling with the rank, as the providers that give one do."""
    return round(1 - rank / (total + 1), 4)


def iso_day(day: date | None, suffix: str = "") -> str | None:
    """A recorded date as the provider writes it (``2024-06-06`` plus ``suffix``), or None."""
    return None if day is None else day.isoformat() + suffix


def long_day(day: date | None) -> str | None:
    """A recorded date as Google's result pages write it (``Jun 6, 2024``), or None."""
    return None if day is None else f"{day.strftime('%b')} {day.day}, {day.year}"
