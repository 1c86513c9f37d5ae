"""Tavily: ``POST /search`` and ``POST /extract``, as ``tavily-python`` and ``langchain-tavily`` send them.

    POST /search    {"query", "max_results", "topic", "search_depth", "include_domains", ...}
                    -> {"query", "answer", "images", "follow_up_questions", "results": [{"url", "title",
                        "content", "score", "raw_content"}], "response_time", "request_id"}
    POST /extract   {"urls": [...], "extract_depth", "format", ...}
                    -> {"results": [{"url", "title", "raw_content", "images"}], "failed_results": [{"url",
                        "error"}], "response_time", "request_id"}

An error is ``{"detail": {"error": "..."}}``; a miss is a 400, which the SDK raises as its
``BadRequestError``. Transport settings (``timeout``, the key) and what only shapes the reply
(``include_answer``, ``include_images``, ``include_favicon``) do not change the answer;
``include_raw_content`` fills ``raw_content`` from the snapshot's pages.

An extract is answered URL by URL (:mod:`gate.replay.routes.reading`): Tavily's own recorded answer
for the URL as it came (its ``title``, ``raw_content``, ``images``), when ``extract_depth``,
``format``, ``query`` and ``chunks_per_source`` are the recording's; else the page the snapshot holds
(the extraction's text, the HTML ``<title>`` of the page), unless a ``query`` asks for chunks; else
the URL is in ``failed_results`` (as Tavily says of a page it could not read) and a miss.
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
from gate.snapshot.extract import page_title

TAVILY_PARAMS: dict[str, Any] = {
    "search_depth": "basic", "topic": "general", "time_range": None, "start_date": None, "end_date": None,
    "days": None, "max_age_hours": None, "include_domains": [], "exclude_domains": [],
    "include_domains_mode": None, "country": None, "auto_parameters": False, "exact_match": False,
    "language": None, "filter_by_language": None, "chunks_per_source": None,
}
"""Tavily's search parameters that change the results, with their defaults."""
TAVILY_EXTRACT_PARAMS: dict[str, Any] = {"extract_depth": "basic", "format": "markdown", "query": None,
                                         "chunks_per_source": None}
"""Tavily's extract parameters that change the text returned, with their defaults."""
TAVILY_CHUNKS: dict[str, Any] = {"query": None, "chunks_per_source": None}
"""Tavily's extract parameters that rerank a page into chunks: a page the snapshot holds has none."""


def _error(_status: int, message: str) -> Any:
    return {"detail": {"error": message}}


def _search(request: Request, web: FrozenWeb) -> Reply:
    body, ask = body_ask(request, "tavily", "query", TAVILY_PARAMS, "max_results", 5, "Query is missing.")
    raw = body.get("include_raw_content") not in (None, False)
    pages: list[Served] = []  # the pages whose text a built reply carries: the agent read them
    reply = search_reply(TAVILY, ask, request, web, lambda a, found: _results(a, found, request, web, raw, pages),
                         lambda data, n: cut_list(data, n, "results"))
    return replace(reply, served=reply.served + tuple(pages))


def _results(ask: SearchAsk, found: tuple[SearchResult, ...], request: Request, web: FrozenWeb, raw: bool,
             pages: list[Served]) -> dict[str, Any]:
    results = []
    for i, r in enumerate(found):
        item: dict[str, Any] = {"url": r.url, "title": r.title, "content": r.snippet,
                                "score": score(i, len(found)), "raw_content": None}
        if raw:
            (_, read, served), = read_pages([r.url], "tavily", request, web)
            if read is not None:
                item["raw_content"] = read.text
                pages.append(served)
        if r.published is not None:
            item["published_date"] = iso_day(r.published)
        results.append(item)
    return {"query": ask.query, "follow_up_questions": None, "answer": None, "images": [], "results": results,
            "response_time": 0.0, "request_id": request_id("tavily", ask.query)}


def _extract(request: Request, web: FrozenWeb) -> Reply:
    body = request.json_object()
    ask = ContentsAsk.of("tavily", request_urls(body.get("urls")), body, TAVILY_EXTRACT_PARAMS, TAVILY_CHUNKS,
                         why="reranks the page into chunks, which the snapshot does not hold")
    reads = read_contents(web, ask)
    if ask.beyond_page is not None and all(r.miss == ask.beyond_page for r in reads):
        return TAVILY.refuse(400, ask.beyond_page, *(Served("pages", r.url, "tavily", None, False, request.target,
                                                            ask.beyond_page) for r in reads))
    lists, served = contents_reply("tavily", reads, request, _page_part, _failed_part)
    return Reply(200, {**lists, "response_time": 0.0, "request_id": request_id("tavily-extract", *ask.urls)},
                 served=served)


def _page_part(url: str, read: PageRead) -> Narrowed:
    """A page the snapshot holds, as Tavily's extract says it: an HTTP error is a page it could not read."""
    status = read.page.status if read.page is not None else None
    if status is not None and status >= 400:
        return {"failed_results": [{"url": url, "error": f"HTTP {status}"}]}
    title = page_title(read.page) if read.page is not None else None
    return {"results": [{"url": url, "title": title, "raw_content": read.text, "images": []}]}


def _failed_part(url: str, why: str) -> Narrowed:
    return {"failed_results": [{"url": url, "error": why}]}


TAVILY = Api(
    "tavily",
    (Route("POST", "/search", _search),  # after Exa's and Serper's: any other POST /search is Tavily's
     Route("POST", "/extract", _extract)),
    error=_error,
    miss_status=400,
    owns=("/crawl", "/map", "/research", "/usage"),
    hosts=("api.tavily.com",),
)
"""Tavily's API (see the module docstring)."""
