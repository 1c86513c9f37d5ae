"""Serply: ``GET /v1/search/{parameters}`` (Google) and ``/v1/b/search/{parameters}`` (Bing), as the
``serply`` client sends them: the query string is the last part of the path (``q=...&num=10``), the
key an ``apikey`` (or ``X-Api-Key``) header, the device and country ``X-User-Agent`` and
``X-Proxy-Location``.

    -> {"results": [{"title", "link", "description"}], "total", "answer", "ts", "device_type"}

An error is ``{"error": {"code", "message"}}``; Serply's other endpoints under ``/v1/`` (news,
images, scholar, crawl, ...) are misses naming Serply.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qs

from gate.model import SearchResult
from gate.replay.routes.base import Api, Reply, Route
from gate.replay.routes.frozen import FrozenWeb, SearchAsk
from gate.replay.routes.render import cut_list, search_reply
from gate.replay.routes.wire import BadRequest, Request

SERPLY_PARAMS: dict[str, Any] = {"engine": "google", "start": 0, "gl": "us", "hl": "lang_en", "lr": "lang_en",
                                 "cr": None, "loc": None, "device": "desktop", "proxy_location": None}
"""Serply's parameters that change the answer, with the defaults its client sends (``device`` and
``proxy_location`` from its headers)."""
_PATH = re.compile(r"/v1/(b/)?search/(.*)", re.DOTALL)


def _search(request: Request, web: FrozenWeb) -> Reply:
    found = _PATH.fullmatch(request.path)
    assert found is not None  # the route's own pattern
    given = {k: v[-1] for k, v in parse_qs(found.group(2), keep_blank_values=True).items()}
    if "q" not in given and found.group(2) and "=" not in found.group(2):
        given["q"] = parse_qs("q=" + found.group(2))["q"][0]  # /v1/search/<query> as the reference writes it
    query = given.get("q")
    if not query or not query.strip():
        raise BadRequest("q is required")
    given["engine"] = "bing" if found.group(1) else "google"
    given["device"] = request.headers.get("x-user-agent")
    given["proxy_location"] = request.headers.get("x-proxy-location")
    ask = SearchAsk.of("serply", query, given, SERPLY_PARAMS, "num", 10, query_param="q")
    return search_reply(SERPLY, ask, request, web, _results,
                        lambda data, n: cut_list(data, n, "results"))


def _results(ask: SearchAsk, found: tuple[SearchResult, ...]) -> dict[str, Any]:
    results = [{"title": r.title, "link": r.url, "description": r.snippet, "realPosition": i + 1}
               for i, r in enumerate(found)]
    return {"results": results, "total": len(results), "answer": "", "ts": 0.0,
            "device_type": ask.params.get("device", "desktop")}


SERPLY = Api(
    "serply",
    (Route("GET", _PATH, _search),),
    error=lambda status, message: {"error": {"code": "not_found" if status == 404 else "bad_request",
                                             "message": message}},
    owns=("/v1/",),
    hosts=("api.serply.io",),
)
"""Serply's API (see the module docstring)."""
