"""Serper: ``POST /search`` with ``{"q", "gl", "hl", "num", "page", ...}`` and the ``X-API-KEY`` header.

    -> {"searchParameters": {"q", "type": "search", "engine": "google", ...}, "organic": [{"title",
        "link", "snippet", "date", "position"}], "credits": 1}

Serper's ``POST /search`` is told from Tavily's and Exa's by its ``q``. The parameters a recorded
response repeats in ``searchParameters`` are the recording's. An error is ``{"message",
"statusCode"}``; Serper's other searches (news, images, places, ...) are misses naming Serper.
"""

from __future__ import annotations

from typing import Any

from gate.model import SearchResult
from gate.replay.routes.base import Api, Reply, Route
from gate.replay.routes.frozen import FrozenWeb, SearchAsk, answer_params
from gate.replay.routes.render import body_ask, cut_list, long_day, search_reply
from gate.replay.routes.wire import Request

SERPER_PARAMS: dict[str, Any] = {"gl": "us", "hl": "en", "location": None, "tbs": None, "page": 1,
                                 "autocorrect": True, "type": "search"}
"""Serper's parameters that change the answer, with their defaults."""


def _echoed(response: Any) -> dict[str, Any]:
    given = response.get("searchParameters") if isinstance(response, dict) else None
    if not isinstance(given, dict):
        return {}
    num = given.get("num")
    return {**answer_params(given, SERPER_PARAMS), **({"num": num} if isinstance(num, int) else {})}


def _search(request: Request, web: FrozenWeb) -> Reply:
    _, ask = body_ask(request, "serper", "q", SERPER_PARAMS, "num", 10, "Missing query parameter")
    return search_reply(SERPER, ask, request, web, _results,
                        lambda data, n: cut_list(data, n, "organic"), _echoed)


def _results(ask: SearchAsk, found: tuple[SearchResult, ...]) -> dict[str, Any]:
    organic = []
    for i, r in enumerate(found):
        item: dict[str, Any] = {"title": r.title, "link": r.url, "snippet": r.snippet, "position": i + 1}
        if r.published is not None:
            item["date"] = long_day(r.published)
        organic.append(item)
    return {"searchParameters": {"q": ask.query, "type": "search", "engine": "google", **ask.params},
            "organic": organic, "credits": 1}


SERPER = Api(
    "serper",
    (Route("POST", "/search", _search, claims=lambda r: isinstance(r.body, dict) and "q" in r.body
           and "query" not in r.body),),
    error=lambda status, message: {"message": message, "statusCode": status},
    miss_status=400,
    owns=("/news", "/images", "/videos", "/places", "/maps", "/shopping", "/scholar", "/patents",
          "/autocomplete", "/lens", "/reviews"),
    hosts=("google.serper.dev",),
)
"""Serper's API (see the module docstring)."""
