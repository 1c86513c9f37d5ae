"""SerpApi: ``GET /search`` (and ``/search.json``), as the ``serpapi`` and ``google-search-results`` clients send it.

    GET /search?engine=google&q=...&num=10&location=...&api_key=...
        -> {"search_metadata": {"status": "Success", ...}, "search_parameters": {...},
            "organic_results": [{"position", "title", "link", "displayed_link", "snippet", "date"}]}

``GET /search`` with a ``provider`` parameter is sourcegate's own route; without one it is SerpApi's.
The parameters a recorded response repeats in ``search_parameters`` are the recording's. An error is
``{"error": "..."}`` (the ``serpapi`` client raises its ``HTTPError``, with ``.error``); ``output=html``
is a miss (the snapshot keeps the JSON). The key, ``no_cache``, ``async`` and timeouts do not count.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from gate.model import SearchResult
from gate.replay.routes.base import Api, Reply, Route
from gate.replay.routes.frozen import FrozenWeb, SearchAsk, answer_params, count_of
from gate.replay.routes.render import cut_list, long_day, query_ask, request_id, search_reply
from gate.replay.routes.wire import Request

SERPAPI_PARAMS: dict[str, Any] = {
    "engine": "google", "output": "json", "location": None, "uule": None, "google_domain": "google.com",
    "gl": None, "hl": None, "cr": None, "lr": None, "tbs": None, "safe": None, "nfpr": None, "filter": None,
    "tbm": None, "start": 0, "device": "desktop", "kgmid": None, "si": None, "ibp": None, "uds": None,
}
"""SerpApi's parameters that change the answer, with their defaults (Google's engine)."""


def _echoed(response: Any) -> dict[str, Any]:
    """The parameters a SerpApi response repeats (``location_requested`` is the ``location`` asked)."""
    given = response.get("search_parameters") if isinstance(response, dict) else None
    if not isinstance(given, dict):
        return {}
    given = {**given, "location": given.get("location_requested")}
    echoed = answer_params(given, SERPAPI_PARAMS)
    num = count_of(given.get("num"), "num") if str(given.get("num", "")).isdigit() else None
    return {**echoed, **({"num": num} if num is not None else {})}


def _search(request: Request, web: FrozenWeb) -> Reply:
    ask = query_ask(request, "serpapi", SERPAPI_PARAMS, "num", 10, "Missing query `q` parameter.")
    return search_reply(SERPAPI, ask, request, web, _results,
                        lambda data, n: cut_list(data, n, "organic_results"), _echoed)


def _results(ask: SearchAsk, found: tuple[SearchResult, ...]) -> dict[str, Any]:
    reply: dict[str, Any] = {
        "search_metadata": {"id": request_id("serpapi", ask.query), "status": "Success", "total_time_taken": 0.0},
        "search_parameters": {"engine": "google", "q": ask.query, **ask.params},
        "search_information": {"query_displayed": ask.query,
                               "organic_results_state": "Results for exact spelling" if found else "Fully empty"},
    }
    if not found:  # what SerpApi says when Google found nothing
        return {**reply, "error": "Google hasn't returned any results for this query."}
    results = []
    for i, r in enumerate(found):
        item: dict[str, Any] = {"position": i + 1, "title": r.title, "link": r.url,
                                "displayed_link": urlsplit(r.url).netloc or r.url, "snippet": r.snippet}
        if r.published is not None:
            item["date"] = long_day(r.published)
        results.append(item)
    return {**reply, "organic_results": results}


SERPAPI = Api(
    "serpapi",
    (Route("GET", "/search", _search), Route("GET", "/search.json", _search)),
    error=lambda _status, message: {"error": message},
    owns=("/searches/", "/account", "/locations.json", "/search.html"),
    hosts=("serpapi.com",),
)
"""SerpApi's API (see the module docstring)."""
