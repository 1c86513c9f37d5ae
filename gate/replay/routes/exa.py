"""Exa: ``POST /search`` and ``POST /contents``, as ``exa-py`` sends them (camelCase JSON, ``x-api-key``).

    POST /search     {"query", "numResults", "type", "includeDomains", "startPublishedDate", ...,
                      "contents": {"text": {"maxCharacters": N}, "highlights": ...}}
                     -> {"requestId", "resolvedSearchType", "results": [{"id", "url", "title", "score",
                         "publishedDate", "author", "text", "highlights"}]}
    POST /contents   {"urls": [...], "text": ..., "subpages": 0, ...}
                     -> {"requestId", "results": [...], "statuses": [{"id", "status", "error"}]}

A result's ``text`` is the page the snapshot holds (cut to ``maxCharacters``), else its recorded
snippet; a page carried in a reply counts as read. An error is ``{"requestId", "error", "tag"}``;
``exa-py`` raises its ``ValueError`` on it.

``/contents`` is answered URL by URL (:mod:`gate.replay.routes.reading`): Exa's own recorded result
and status for the URL as they came, when its content options (``text``, ``highlights``,
``summary``, ``livecrawl``, ``subpages``, ...) are the recording's; else the page the snapshot holds
(cut to ``maxCharacters``), unless ``subpages`` asks for pages the request does not name; else an
``error`` status (``CRAWL_NOT_FOUND``) and a miss.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from gate.model import SearchResult
from gate.replay.routes.base import Api, Reply, Route
from gate.replay.routes.frozen import FrozenWeb, PageRead, SearchAsk
from gate.replay.routes.reading import ContentsAsk, read_contents
from gate.replay.routes.render import (
    body_ask,
    contents_reply,
    cut_list,
    iso_day,
    read_pages,
    request_id,
    request_urls,
    score,
    search_reply,
)
from gate.replay.routes.wire import Request, Served
from gate.snapshot.contents import Narrowed

EXA_PARAMS: dict[str, Any] = {
    "type": "auto", "category": None, "includeDomains": [], "excludeDomains": [], "startCrawlDate": None,
    "endCrawlDate": None, "startPublishedDate": None, "endPublishedDate": None, "includeText": [],
    "excludeText": [], "userLocation": None, "additionalQueries": [], "systemPrompt": None, "objective": None,
    "outputSchema": None, "moderation": False,
}
"""Exa's search parameters that change the results, with their defaults."""
EXA_CONTENTS_PARAMS: dict[str, Any] = {
    "text": None, "highlights": None, "summary": None, "livecrawl": None, "livecrawlTimeout": None,
    "subpages": 0, "subpageTarget": None, "extras": None, "context": None,
}
"""Exa's contents parameters that change what it answers of a page, with their defaults."""
EXA_SUBPAGES: dict[str, Any] = {"subpages": 0, "subpageTarget": None}
"""Exa's contents parameters that ask for more than the pages named: a page the snapshot holds cannot answer them."""


def looks_like_exa(request: Request) -> bool:
    """An Exa request: its key header, its client, or its camelCase body (Tavily's is snake_case)."""
    body = request.body if isinstance(request.body, dict) else {}
    camel = any(k != k.lower() and "_" not in k for k in body)
    return ("query" in body and ("x-api-key" in request.headers or camel or "contents" in body)
            or request.headers.get("user-agent", "").startswith("exa-py"))


def _error(status: int, message: str) -> Any:
    tag = {400: "INVALID_REQUEST", 404: "NOT_FOUND"}.get(status, "ERROR")
    return {"requestId": request_id("exa-error", message), "error": message, "tag": tag}


def _text_limit(body: dict[str, Any]) -> tuple[bool, int | None, bool]:
    """Whether ``text`` is asked for, its limit, and whether ``highlights`` are."""
    contents = body.get("contents", body)
    if not isinstance(contents, dict):
        return False, None, False
    text = contents.get("text")
    limit = text.get("maxCharacters") if isinstance(text, dict) else None
    wanted = text is True or isinstance(text, dict) or ("contents" not in body and "text" not in body)
    return wanted, limit if isinstance(limit, int) else None, bool(contents.get("highlights"))


def _search(request: Request, web: FrozenWeb) -> Reply:
    body, ask = body_ask(request, "exa", "query", EXA_PARAMS, "numResults", 10, "query: Required")
    pages: list[Served] = []
    reply = search_reply(EXA, ask, request, web, lambda a, found: _results(a, found, body, request, web, pages),
                         lambda data, n: cut_list(data, n, "results"))
    return replace(reply, served=reply.served + tuple(pages))


def _results(ask: SearchAsk, found: tuple[SearchResult, ...], body: dict[str, Any], request: Request,
             web: FrozenWeb, pages: list[Served]) -> dict[str, Any]:
    text, limit, highlights = _text_limit(body)
    results = []
    for i, r in enumerate(found):
        item: dict[str, Any] = {"id": r.url, "url": r.url, "title": r.title, "score": score(i, len(found)),
                                "publishedDate": iso_day(r.published, "T00:00:00.000Z"), "author": None}
        if text:
            (_, read, served), = read_pages([r.url], "exa", request, web)
            if read is not None:
                pages.append(served)
            item["text"] = (read.text if read is not None else r.snippet)[:limit]
        if highlights:
            item["highlights"], item["highlightScores"] = [r.snippet], [1.0]
        results.append(item)
    return {"requestId": request_id("exa", ask.query), "resolvedSearchType": "neural", "results": results}


def _contents(request: Request, web: FrozenWeb) -> Reply:
    body = request.json_object()
    ask = ContentsAsk.of("exa", request_urls(body.get("urls", body.get("ids"))), body, EXA_CONTENTS_PARAMS,
                         EXA_SUBPAGES, why="asks for pages the request does not name, which the snapshot cannot list")
    reads = read_contents(web, ask)
    if ask.beyond_page is not None and all(r.miss == ask.beyond_page for r in reads):
        return EXA.refuse(400, ask.beyond_page, *(Served("pages", r.url, "exa", None, False, request.target,
                                                         ask.beyond_page) for r in reads))
    _, limit, _ = _text_limit({"contents": body})
    lists, served = contents_reply("exa", reads, request, lambda url, read: _page_part(url, read, limit),
                                   _failed_part)
    return Reply(200, {"requestId": request_id("exa-contents", *ask.urls), **lists}, served=served)


def _page_part(url: str, read: PageRead, limit: int | None) -> Narrowed:
    """A page the snapshot holds, as Exa's contents says it: an HTTP error is a page it could not crawl."""
    status = read.page.status if read.page is not None else None
    if status is not None and status >= 400:
        tag = "CRAWL_NOT_FOUND" if status == 404 else "CRAWL_LIVECRAWL_TIMEOUT"
        return {"statuses": [{"id": url, "status": "error", "error": {"tag": tag, "httpStatusCode": status}}]}
    return {"results": [_page(url, read, limit)], "statuses": [{"id": url, "status": "success"}]}


def _failed_part(url: str, _why: str) -> Narrowed:
    return {"statuses": [{"id": url, "status": "error", "error": {"tag": "CRAWL_NOT_FOUND", "httpStatusCode": 404}}]}


def _page(url: str, read: PageRead, limit: int | None) -> dict[str, Any]:
    published = read.extraction.published if read.extraction is not None else None
    final = read.page.final_url if read.page is not None and read.page.final_url else url
    return {"id": url, "url": final, "title": None, "publishedDate": iso_day(published, "T00:00:00.000Z"),
            "author": None, "text": read.text[:limit]}


EXA = Api(
    "exa",
    (Route("POST", "/search", _search, claims=looks_like_exa),
     Route("POST", "/contents", _contents)),
    error=_error,
    owns=("/findSimilar", "/answer", "/research", "/websets", "/monitors", "/context"),
    hosts=("api.exa.ai",),
)
"""Exa's API (see the module docstring)."""
