"""Bing Web Search v7: ``GET /v7.0/search?q=...&count=...`` with ``Ocp-Apim-Subscription-Key``.

    -> {"_type": "SearchResponse", "queryContext": {"originalQuery"}, "webPages": {"totalEstimatedMatches",
        "value": [{"id", "name", "url", "displayUrl", "snippet", "datePublished"}]}}

An error is ``{"_type": "ErrorResponse", "errors": [{"code", "subCode", "message", "moreDetails"}]}``;
Bing's other v7 endpoints (news, images, ...) are misses naming Bing. ``textDecorations``,
``textFormat`` and the key only shape the reply.
"""

from __future__ import annotations

from typing import Any

from gate.model import SearchResult
from gate.replay.routes.base import Api, Reply, Route
from gate.replay.routes.frozen import FrozenWeb, SearchAsk
from gate.replay.routes.render import cut_list, iso_day, query_ask, search_reply
from gate.replay.routes.wire import Request

BING_PARAMS: dict[str, Any] = {"offset": 0, "mkt": None, "cc": None, "setLang": None, "freshness": None,
                                 "responseFilter": None, "safeSearch": "moderate", "answerCount": None,
                                 "promote": None}
"""Bing's web search parameters that change the answer, with their defaults."""


def _error(status: int, message: str) -> Any:
    sub = {404: "ResourceError", 400: "ParameterInvalidValue"}.get(status, "UnexpectedError")
    return {"_type": "ErrorResponse",
            "errors": [{"code": "InvalidRequest" if status < 500 else "ServerError", "subCode": sub,
                        "message": message, "moreDetails": message}]}


def _search(request: Request, web: FrozenWeb) -> Reply:
    ask = query_ask(request, "bing", BING_PARAMS, "count", 10, "Required parameter is missing: q")
    return search_reply(BING, ask, request, web, _results, lambda data, n: cut_list(data, n, "webPages", "value"))


def _results(ask: SearchAsk, found: tuple[SearchResult, ...]) -> dict[str, Any]:
    value = []
    for i, r in enumerate(found):
        item: dict[str, Any] = {"id": f"https://api.bing.microsoft.com/api/v7/#WebPages.{i}", "name": r.title,
                                "url": r.url, "displayUrl": r.url, "snippet": r.snippet, "isFamilyFriendly": True}
        if r.published is not None:
            item["datePublished"] = iso_day(r.published, "T00:00:00.0000000")
        value.append(item)
    return {"_type": "SearchResponse", "queryContext": {"originalQuery": ask.query},
            "webPages": {"totalEstimatedMatches": len(value), "value": value}}


BING = Api(
    "bing",
    (Route("GET", "/v7.0/search", _search),),
    error=_error,
    owns=("/v7.0/",),
    hosts=("api.bing.microsoft.com",),
)
"""Bing Web Search's API (see the module docstring)."""
