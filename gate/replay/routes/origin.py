"""A request at its real address: a page read at its own URL, answered from the page layer.

Inside a tunnel (``CONNECT www.bbc.com:443``, answered with the case's certificate authority) or as a
plain ``GET http://...`` through the proxy, a request for a host that is no search provider's API is a
page read: ``GET`` (or ``HEAD``) of ``https://www.bbc.com/news/...`` is answered with the page as the
web answered it when it was recorded: its status, its content type and its body, the URL it ended at
after redirects in ``Content-Location``. A page the snapshot lacks is a miss naming its URL (a 404,
``X-Sourcegate-Miss: 1``); any other method is a miss too, since only page reads are recorded at
their own URLs. In record mode the page is fetched from the site itself through the checked live
web (:mod:`gate.live`) and kept as the site answered it.
"""

from __future__ import annotations

from gate.model import NOT_IN_SNAPSHOT
from gate.replay.routes.base import Reply
from gate.replay.routes.frozen import FrozenWeb
from gate.replay.routes.native import MISS_HEADER, page_reply
from gate.replay.routes.wire import Origin, Request, Served
from gate.snapshot.records import PAGES, url_key

__all__ = ["PAGE_METHODS", "answer_page"]

PAGE_METHODS = ("GET", "HEAD")
"""The methods of a page read (a HEAD is answered as a GET, without the body, by the server)."""


def answer_page(origin: Origin, request: Request, web: FrozenWeb, raw_query: str = "") -> Reply:
    """The recorded page at ``origin`` + the request's path (and ``raw_query``, as the client sent it)."""
    url = origin.url(request.path + (f"?{raw_query}" if raw_query else ""))
    asked = f"{request.method} {url}"
    if request.method in PAGE_METHODS:
        return page_reply(url, asked, web, "Content-Location")
    served = Served("pages", url, "page", None, False, asked,
                    f"{NOT_IN_SNAPSHOT}: only page reads (GET) are recorded at their own URLs")
    return Reply(404, {"error": f"{asked}: not in the snapshot (only GET page reads are replayed at their own "
                                "URLs)", "layer": PAGES.name, "key": url_key(url), "miss": True},
                 served=(served,), headers=((MISS_HEADER, "1"),))
