"""sourcegate's own routes: ``GET /search?provider=&q=``, ``/fetch?url=``, ``/extract?url=`` and ``/page?url=``.

The first three answer in the snapshot's own terms: the recorded JSON of a provider, a page entry,
an extraction entry (with the ``truncated`` flag of the page it was made from); a miss is a 404
``{"error", "layer", "key", "miss": true}``. ``/page`` is a plain page fetch: the page as the web
answered it (its status, its content type, its body), for an agent whose reader GETs the page
itself; a miss is a 404 with ``X-Sourcegate-Miss: 1``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gate.errors import LiveWebError, SnapshotMiss
from gate.model import NOT_IN_SNAPSHOT, NOT_RECORDED
from gate.replay.routes.base import Api, Reply, Route, live_status
from gate.replay.routes.frozen import FrozenWeb, public_entry
from gate.replay.routes.wire import BadRequest, Request, Served
from gate.snapshot.records import (
    EXTRACTIONS,
    PAGES,
    SEARCH,
    Layer,
    extraction_entry,
    page_entry,
    search_key,
    url_key,
)
from gate.text.redact import redact

MISS_HEADER = "X-Sourcegate-Miss"
FINAL_URL_HEADER = "X-Sourcegate-Final-URL"


def _one(request: Request, name: str) -> str:
    values = request.query.get(name, [])
    if len(values) != 1:
        raise BadRequest(f"expected exactly one {name!r} parameter, got {len(values)}")
    return values[0]


_LAYERS = {"page": "pages", "extraction": "extractions", "exchange": "exchanges"}
"""A snapshot layer's name -> the name a case's calls give it"""


def miss_reply(layer: str, key: str, what: str, provider: str | None, asked: str, error: SnapshotMiss,
               headers: tuple[tuple[str, str], ...] = ()) -> Reply:
    """What the snapshot lacks: a 404 ``{"error", "layer", "key", "miss": true}``, and the miss the case keeps."""
    served = Served(_LAYERS.get(layer, layer), what, provider, None, False, asked, NOT_IN_SNAPSHOT)
    return Reply(404, {"error": str(error), "layer": layer, "key": key, "miss": True}, served=(served,),
                 headers=headers)


def failed_reply(layer: str, key: str, what: str, provider: str | None, asked: str, error: LiveWebError,
                 web: FrozenWeb) -> Reply:
    """Record mode: the live web gave nothing to record; the client is told why, nothing is stored, and
    the case lacks it (a miss)."""
    message = redact(str(error), web.secrets)
    served = Served(_LAYERS.get(layer, layer), what, provider, None, False, asked, f"{NOT_RECORDED}: {message}")
    return Reply(live_status(error), {"error": message, "layer": layer, "key": key, "live": True},
                 served=(served,), notes=(f"sourcegate snapshot: NOT RECORDED {message}",))


def _entry(request: Request, web: FrozenWeb, layer: Layer, what: str, provider: str | None, key: str,
           lookup: Callable[[], Any]) -> Reply:
    """One lookup answered in the snapshot's own terms: the entry, a miss, or a live failure."""
    try:
        body = lookup()
    except SnapshotMiss as e:
        return miss_reply(layer.name, key, what, provider, request.target, e)
    except LiveWebError as e:
        return failed_reply(layer.name, key, what, provider, request.target, e, web)
    served = Served(_LAYERS.get(layer.name, layer.name), what, provider, body, True, request.target)
    return Reply(200, body, served=(served,))


def _search(request: Request, web: FrozenWeb) -> Reply:
    provider, query = _one(request, "provider"), _one(request, "q")
    return _entry(request, web, SEARCH, query, provider, search_key(provider, query),
                  lambda: web.source.search(provider, query).response)


def _fetch(request: Request, web: FrozenWeb) -> Reply:
    url = _one(request, "url")
    return _entry(request, web, PAGES, url, None, url_key(url), lambda: public_entry(page_entry(web.source.page(url))))


def _extract(request: Request, web: FrozenWeb) -> Reply:
    url = _one(request, "url")
    return _entry(request, web, EXTRACTIONS, url, None, url_key(url),
                  lambda: {**public_entry(extraction_entry(web.source.extraction(url))), "truncated": _cut(web, url)})


def _cut(web: FrozenWeb, url: str) -> bool:
    """Whether the page an extraction was made from was cut (its flag survives into a served trace)."""
    try:
        return web.store.page(url).truncated
    except SnapshotMiss:
        return False


def _page(request: Request, web: FrozenWeb) -> Reply:
    return page_reply(_one(request, "url"), request.target, web, FINAL_URL_HEADER)


def page_reply(url: str, asked: str, web: FrozenWeb, final_header: str) -> Reply:
    """The page recorded for ``url`` as the web answered it (its status, content type and body, the URL
    it ended at in ``final_header``), a miss (404, :data:`MISS_HEADER`), or record mode's failure.
    ``asked`` names the request in what the case is told (``GET /page``)."""
    try:
        page = web.source.page(url)
    except SnapshotMiss as e:
        return miss_reply(PAGES.name, url_key(url), url, "page", asked, e, ((MISS_HEADER, "1"),))
    except LiveWebError as e:
        return failed_reply(PAGES.name, url_key(url), url, "page", asked, e, web)
    entry = public_entry(page_entry(page))
    headers = ((final_header, page.final_url),) if page.final_url else ()
    return Reply(page.status or 200, page.body.encode("utf-8"), content_type=utf8(page.content_type),
                 served=(Served("pages", url, "page", entry, True, asked),), headers=headers)


def utf8(content_type: str | None) -> str:
    """The recorded content type, saying the charset the body is sent in (the snapshot keeps text)."""
    kept = [p.strip() for p in (content_type or "text/plain").split(";")
            if p.strip() and not p.strip().lower().startswith("charset=")]
    return "; ".join([*kept, "charset=utf-8"])


NATIVE = Api(
    "sourcegate",
    (Route("GET", "/search", _search, claims=lambda r: "provider" in r.query),
     Route("GET", "/fetch", _fetch),
     Route("GET", "/extract", _extract),
     Route("GET", "/page", _page)),
    error=lambda _status, message: {"error": message},
)
"""sourcegate's own routes (see the module docstring)."""
