"""Brave: ``GET /res/v1/web/search?q=...&count=...`` with the ``X-Subscription-Token`` header.

    -> {"type": "search", "query": {"original"}, "web": {"type": "search", "results": [{"title", "url",
        "description", "page_age", "meta_url", ...}]}}

An error is ``{"type": "ErrorResponse", "error": {"id", "status", "code", "detail", "meta"}}``; Brave's
other endpoints under ``/res/v1/`` (news, images, summarizer, ...) are misses naming Brave.
``text_decorations``, ``extra_snippets`` and the key only shape the reply.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from gate.model import SearchResult
from gate.replay.routes.base import Api, Reply, Route
from gate.replay.routes.frozen import FrozenWeb, SearchAsk, answer_params
from gate.replay.routes.render import cut_list, iso_day, query_ask, request_id, search_reply
from gate.replay.routes.wire import Request

BRAVE_PARAMS: dict[str, Any] = {
    "offset": 0, "country": "us", "search_lang": "en", "ui_lang": "en-us", "safesearch": "moderate",
    "freshness": None, "result_filter": None, "goggles": None, "goggles_id": None, "spellcheck": True,
}
"""Brave's web search parameters that change the answer, with their defaults."""


def _error(status: int, message: str) -> Any:
    code = {400: "VALIDATION", 404: "RESOURCE_NOT_FOUND", 422: "VALIDATION"}.get(status, "ERROR")
    return {"type": "ErrorResponse",
            "error": {"id": request_id("brave-error", message), "status": status, "code": code, "detail": message,
                      "meta": {"component": "sourcegate replay"}},
            "time": 0}


def _echoed(response: Any) -> dict[str, Any]:
    """The country a Brave response repeats in ``query.country``."""
    query = response.get("query") if isinstance(response, dict) else None
    return answer_params({"country": query.get("country")}, BRAVE_PARAMS) if isinstance(query, dict) else {}


def _search(request: Request, web: FrozenWeb) -> Reply:
    ask = query_ask(request, "brave", BRAVE_PARAMS, "count", 20,
                    "Unable to validate request parameter(s): q is required")
    return search_reply(BRAVE, ask, request, web, _results, lambda data, n: cut_list(data, n, "web", "results"),
                        _echoed)


def _results(ask: SearchAsk, found: tuple[SearchResult, ...]) -> dict[str, Any]:
    results = []
    for r in found:
        parts = urlsplit(r.url)
        item: dict[str, Any] = {
            "type": "search_result", "title": r.title, "url": r.url, "description": r.snippet,
            "meta_url": {"scheme": parts.scheme, "netloc": parts.netloc, "hostname": parts.hostname or "",
                         "path": parts.path},
            "family_friendly": True, "language": "en"}
        if r.published is not None:
            item["page_age"] = iso_day(r.published, "T00:00:00")
        results.append(item)
    return {"type": "search", "query": {"original": ask.query, "more_results_available": False},
            "web": {"type": "search", "results": results, "family_friendly": True}}


BRAVE = Api(
    "brave",
    (Route("GET", "/res/v1/web/search", _search),),
    error=_error,
    miss_status=404,
    owns=("/res/v1/",),
    hosts=("api.search.brave.com",),
)
"""Brave Search's API (see the module docstring)."""
