"""The replay server's routes: sourcegate's own, and each search provider's real API, by id.

    id          routes                                               module
    sourcegate  GET /search?provider=&q=, /fetch, /extract, /page    native
    exa         POST /search, POST /contents                         exa
    serper      POST /search                                         serper
    tavily      POST /search, POST /extract                          tavily
    serpapi     GET /search, GET /search.json                        serpapi
    brave       GET /res/v1/web/search                               brave
    bing        GET /v7.0/search                                     bing
    serply      GET /v1/search/{params}, GET /v1/b/search/{params}   serply
    guard       POST /guard (a case's draft checked; JSON findings)  guard

At its real address (a request that came through the server as the agent's proxy, :func:`answer_at`), a
request for a provider's host (``api.tavily.com``, the ``hosts`` of its API) goes to that provider's
routes alone; one for any other host is a page read at its own URL (:mod:`gate.replay.routes.origin`).

At the server's own address, a request goes to the first route, in this order, whose method and
path it has and that claims it (Exa's and Serper's ``POST /search`` are told by their headers and
bodies, any other is Tavily's); a path that starts with a provider's id (``/exa/search``) goes to
that provider alone, for a client whose base URL names it. No route: a miss naming the provider
whose API the path belongs to, "not implemented", in that provider's error shape. Adding a provider is
one module and one line here.
"""

from __future__ import annotations

from dataclasses import replace

from gate.replay.routes.base import ROUTE_LAYER, Api, Reply, Route, live_status
from gate.replay.routes.bing import BING
from gate.replay.routes.brave import BRAVE
from gate.replay.routes.exa import EXA
from gate.replay.routes.frozen import FrozenWeb
from gate.replay.routes.guard import GUARD
from gate.replay.routes.native import NATIVE
from gate.replay.routes.origin import answer_page
from gate.replay.routes.serpapi import SERPAPI
from gate.replay.routes.serper import SERPER
from gate.replay.routes.serply import SERPLY
from gate.replay.routes.tavily import TAVILY
from gate.replay.routes.wire import BadRequest, Origin, Request, Served, Unrecorded
from gate.text.redact import redact, scrub

__all__ = ["REPLAY_APIS", "Api", "FrozenWeb", "Origin", "Reply", "Request", "Served", "answer_at", "answer_request",
           "api_at", "find_route"]

REPLAY_APIS: dict[str, Api] = {api.id: api for api in (NATIVE, EXA, SERPER, TAVILY, SERPAPI, BRAVE, BING, SERPLY,
                                                         GUARD)}
"""The APIs the replay server speaks, by id, in the order a request is offered to them."""


def find_route(request: Request) -> tuple[Api | None, Route | None, Request]:
    """The API and route that answer ``request`` (its path without a provider prefix); no route: the
    API the path belongs to, if any."""
    head, _, rest = request.path[1:].partition("/")
    apis: tuple[Api, ...] = tuple(REPLAY_APIS.values())
    named = head in REPLAY_APIS and bool(rest)
    if named:  # the prefix says whose request it is: no need to tell it from another API's
        apis, request = (REPLAY_APIS[head],), replace(request, path="/" + rest)
    for api in apis:
        for route in api.routes:
            if route.fits(request.method, request.path) and (named or route.claims(request)):
                return api, route, request
    return next((a for a in apis if a.owns_path(request.path)), None), None, request


def answer_request(request: Request, web: FrozenWeb) -> Reply:
    """The reply to one request: a route's answer, its provider's error, or a miss naming the route."""
    api, route, request = find_route(request)
    if route is None:
        return _unimplemented(api, request)
    assert api is not None
    return _answer(api, route, request, web)


def api_at(host: str) -> Api | None:
    """The API whose official clients send their requests to ``host`` by default, if any."""
    host = host.lower()
    return next((api for api in REPLAY_APIS.values() if host in api.hosts), None)


def answer_at(origin: Origin, request: Request, web: FrozenWeb, raw_query: str = "") -> Reply:
    """The reply to a request sent to its real address (through the server as a proxy): the API of a
    search provider's host answers it by its routes alone; any other host's is a page read
    (:func:`gate.replay.routes.origin.answer_page`; ``raw_query`` is its query string as sent)."""
    api = api_at(origin.host)
    if api is None:
        return answer_page(origin, request, web, raw_query)
    route = next((r for r in api.routes if r.fits(request.method, request.path)), None)
    if route is None:
        return _unimplemented(api, request)
    return _answer(api, route, request, web)


def _answer(api: Api, route: Route, request: Request, web: FrozenWeb) -> Reply:
    try:
        reply = route.answer(request, web)
    except BadRequest as e:
        return api.refuse(400, str(e))
    except Unrecorded as e:  # record mode: the live web gave nothing to record, so the case lacks it
        status = live_status(e.error)
        message = redact(str(e.error), web.secrets)
        return Reply(status, api.error(status, message), served=(e.served,),
                     notes=(f"sourcegate snapshot: NOT RECORDED {message}",))
    if reply.status >= 400 and not isinstance(reply.body, bytes):
        reply = replace(reply, body=scrub(reply.body, web.secrets))
    return reply


def _unimplemented(api: Api | None, request: Request) -> Reply:
    who = f"{api.id}'s API" if api is not None else "any API it speaks"
    message = (f"the replay server does not implement {request.target} of {who}: use /search, /fetch or "
               "/extract, or a provider route of docs/snapshots.md")
    served = Served(ROUTE_LAYER, request.target, api.id if api is not None else None, None, False, request.target,
                    "the route is not implemented by the replay server")
    if api is None:
        return Reply(404, {"error": message, "layer": ROUTE_LAYER, "miss": True}, served=(served,))
    return api.refuse(api.miss_status, message, served)
