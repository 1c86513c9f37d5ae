"""A request at its real address: a page read at its own URL, or any other request, from the snapshot.

Inside a tunnel (``CONNECT www.bbc.com:443``, answered with the case's certificate authority) or as a
plain ``GET http://...`` through the proxy, a request for a host that is no search provider's API is a
page read: ``GET`` (or ``HEAD``) of ``https://www.bbc.com/news/...`` is answered with the page as the
web answered it when it was recorded: its status, its content type and its body, the URL it ended at
after redirects in ``Content-Location``. Any other method (a ``POST`` to a page-reading API, say) is
answered from the exchange layer, as VCR answers it: the response recorded for the same method, URL
and body (:func:`gate.snapshot.records.exchange_key`), with its status and content type. What the
snapshot lacks is a miss naming the request (a 404, ``X-Sourcegate-Miss: 1``). In record mode the
request goes to the host itself through the checked live web (:mod:`gate.live`) and what it
answered is kept.
"""

from __future__ import annotations

from gate.errors import LiveWebError, SnapshotMiss
from gate.replay.routes.base import Reply
from gate.replay.routes.frozen import FrozenWeb
from gate.replay.routes.native import MISS_HEADER, failed_reply, miss_reply, page_reply, utf8
from gate.replay.routes.wire import Origin, Request, Served
from gate.snapshot.records import EXCHANGES, exchange_key

__all__ = ["EXCHANGE_CALLS", "PAGE_METHODS", "answer_page"]

PAGE_METHODS = ("GET", "HEAD")
"""The methods of a page read (a HEAD is answered as a GET, without the body, by the server)."""
EXCHANGE_CALLS = "exchanges"
"""The layer a case's calls give the exchanges it was answered or missed."""


def answer_page(origin: Origin, request: Request, web: FrozenWeb, raw_query: str = "") -> Reply:
    """The recorded answer at ``origin`` + the request's path (and ``raw_query``, as the client sent it)."""
    url = origin.url(request.path + (f"?{raw_query}" if raw_query else ""))
    asked = f"{request.method} {url}"
    if request.method in PAGE_METHODS:
        return page_reply(url, asked, web, "Content-Location")
    key = exchange_key(request.method, url, request.raw.decode("utf-8", "replace"))
    try:
        found = web.source.exchange(request.method, url, request.raw, request.headers)
    except SnapshotMiss as e:
        return miss_reply(EXCHANGES.name, key, url, None, asked, e, ((MISS_HEADER, "1"),))
    except LiveWebError as e:
        return failed_reply(EXCHANGES.name, key, url, None, asked, e, web)
    served = Served(EXCHANGE_CALLS, url, None, None, True, asked)
    return Reply(found.status, found.body.encode("utf-8"), served=(served,), content_type=utf8(found.content_type))
