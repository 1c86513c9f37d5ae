"""Tavily: ``POST /search`` and ``POST /extract``, as ``tavily-python`` and ``langchain-tavily`` send them.

    POST /search    {"query", "max_results", "topic", "search_depth", "include_domains", ...}
                    -> {"query", "answer", "images", "follow_up_questions", "results": [{"url", "title",
                        "content", "score", "raw_content"}], "response_time", "request_id"}
    POST /extract   {"urls": [...], "extract_depth", "format", ...}
                    -> {"results": [{"url", "title", "raw_content", "images"}], "failed_results": [{"url",
                        "error"}], "response_time", "request_id"}

An error is ``{"detail": {"error": "..."}}``; a miss is a 400, which the SDK raises as its
``BadRequestError``. A URL of an extract the snapshot lacks is in ``failed_results`` (as Tavily
says of a page it could not read) and a miss. Transport settings (``timeout``, the key) and what
only shapes the reply (``include_answer``, ``include_images``, ``include_favicon``, ``format``) do
not change the answer; ``include_raw_content`` fills ``raw_content`` from the snapshot's pages.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from gate.model import NOT_IN_SNAPSHOT, SearchResult
from gate.replay.routes.base import Api, Reply, Route
from gate.replay.routes.frozen import FrozenWeb, SearchAsk, answer_params
from gate.replay.routes.render import (
    body_ask,
    cut_list,
    iso_day,
    read_pages,
    request_id,
    request_urls,
    score,
    search_reply,
)
from gate.replay.routes.wire import Request, Served

TAVILY_PARAMS: dict[str, Any] = {
    "search_depth": "basic", "topic": "general", "time_range": None, "start_date": None, "end_date": None,
    "days": None, "max_age_hours": None, "include_domains": [], "exclude_domains": [],
    "include_domains_mode": None, "country": None, "auto_parameters": False, "exact_match": False,
    "language": None, "filter_by_language": None, "chunks_per_source": None,
}
"""Tavily's search parameters that change the results, with their defaults."""
TAVILY_EXTRACT_PARAMS: dict[str, Any] = {"query": None, "chunks_per_source": None}
"""Tavily's extract parameters that change the text returned (a query reranks it into chunks)."""


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
    urls = request_urls(body.get("urls"))
    changed = answer_params(body, TAVILY_EXTRACT_PARAMS)
    if changed:
        why = f"{', '.join(sorted(changed))} reranks the page into chunks, which the snapshot does not hold"
        return TAVILY.refuse(400, why, *(Served("pages", u, "tavily", None, False, request.target, why) for u in urls))
    results: list[dict[str, Any]] = []
    failed: list[dict[str, Any]] = []
    served = []
    for url, read, kept in read_pages(urls, "tavily", request, web):
        served.append(kept)
        status = read.page.status if read is not None and read.page is not None else None
        if read is None:
            failed.append({"url": url, "error": f"{url}: {NOT_IN_SNAPSHOT} (replay never goes to the network)"})
        elif status is not None and status >= 400:
            failed.append({"url": url, "error": f"HTTP {status}"})
        else:
            results.append({"url": url, "title": None, "raw_content": read.text, "images": []})
    return Reply(200, {"results": results, "failed_results": failed, "response_time": 0.0,
                       "request_id": request_id("tavily-extract", *urls)}, served=tuple(served))


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
