"""A loopback stand-in for Tavily's API as record mode reaches it, and the pages its results point at.

    with TavilyApi({"/pinning": ("Pinning actions", "Pin actions to a commit SHA: a tag can move.")}) as api:
        api.url("/search")    # the endpoint to give record.search.tavily.endpoint
        api.searches          # every POST /search: its JSON body and its Authorization header
        api.extracts          # every POST /extract
        api.pages["/pinning"] = ("Pinning actions", "...")    # the web changes between two recordings
        api.unreadable.add("/pinning")                        # and Tavily can no longer read the page

``POST /search`` answers in Tavily's shape (``query``, ``results`` of ``url``, ``title``, ``content``,
``score``, ``raw_content``, ``response_time``), every page a result, cut to ``max_results``
(Tavily's default 5); a request without ``Authorization: Bearer ...`` is a 401 in Tavily's error
shape, and a query of ``failing`` a 500. ``POST /extract`` answers Tavily's reading of each URL:
a page of the stand-in is a result with its ``title`` and a ``raw_content`` Tavily's own way
(``# title`` then the text, and with ``extract_depth: advanced`` a line saying so), any other URL,
or one of ``unreadable``, a ``failed_results`` item. ``GET`` a page's path answers its HTML, as
the live web would to record mode's fetch, but a page of ``blocked`` answers 403 (a site that
refuses a direct read, which Tavily can still read).
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.loopback import ServerThread, StandIn


@dataclass(frozen=True)
class Asked:
    """One request the stand-in was sent."""

    method: str
    path: str
    body: Any
    authorization: str | None


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, pages: dict[str, tuple[str, str]], failing: frozenset[str], blocked: frozenset[str]) -> None:
        self.pages, self.failing, self.blocked = pages, failing, blocked
        self.unreadable: set[str] = set()
        self.asked: list[Asked] = []
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _Handler)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go in two writes: each reply would wait on a delayed ACK

    def do_GET(self) -> None:  # noqa: N802 (the name http.server dispatches to)
        self._keep(None)
        found = self.server.pages.get(self.path)
        if found is None:
            self._send(404, b"not here", "text/plain")
            return
        if self.path in self.server.blocked:
            self._send(403, b"<html><body>Access denied</body></html>", "text/html")
            return
        title, text = found
        html = f"<html><head><title>{title}</title></head><body><p>{text}</p></body></html>"
        self._send(200, html.encode("utf-8"), "text/html; charset=utf-8")

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"null")
        self._keep(body)
        if self.path not in ("/search", "/extract"):
            self._json(404, {"detail": {"error": f"no such route {self.path}"}})
            return
        if not (self.headers.get("Authorization") or "").startswith("Bearer "):
            self._json(401, {"detail": {"error": "Unauthorized: missing or invalid API key."}})
            return
        if self.path == "/extract":
            self._extract(body)
            return
        if body.get("query") in self.server.failing:
            self._json(500, {"detail": {"error": "Internal Server Error"}})
            return
        host, port = self.server.server_address[:2]
        results = [{"url": f"http://{host}:{port}{path}", "title": title, "content": text, "score": 0.9,
                    "raw_content": None} for path, (title, text) in self.server.pages.items()]
        self._json(200, {"query": body["query"], "follow_up_questions": None, "answer": None, "images": [],
                         "results": results[:body.get("max_results", 5)], "response_time": 0.42,
                         "request_id": "stand-in"})

    def _extract(self, body: dict[str, Any]) -> None:
        host, port = self.server.server_address[:2]
        mine = f"http://{host}:{port}"
        results, failed = [], []
        for url in body["urls"] if isinstance(body["urls"], list) else [body["urls"]]:
            path = url[len(mine):] if url.startswith(mine + "/") else None
            found = self.server.pages.get(path) if path not in self.server.unreadable else None
            if found is None:
                failed.append({"url": url, "error": "Failed to fetch url"})
                continue
            title, text = found
            deep = "\n\n(read in depth)" if body.get("extract_depth") == "advanced" else ""
            results.append({"url": url, "title": title, "raw_content": f"# {title}\n\n{text}{deep}", "images": []})
        self._json(200, {"results": results, "failed_results": failed, "response_time": 0.31,
                         "request_id": "stand-in-extract"})

    def _keep(self, body: Any) -> None:
        with self.server.lock:
            self.server.asked.append(Asked(self.command, self.path, body, self.headers.get("Authorization")))

    def _json(self, status: int, data: Any) -> None:
        self._send(status, json.dumps(data).encode("utf-8"), "application/json")

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the signature of the base class)
        pass


class TavilyApi(StandIn):
    """Tavily's search API and a few pages on one loopback port, until the ``with`` block ends."""

    def __init__(self, pages: dict[str, tuple[str, str]], failing: frozenset[str] = frozenset(),
                 blocked: frozenset[str] = frozenset()) -> None:
        """``pages``: path -> (title, text); each is a result of every search; a search for a query of
        ``failing`` is a 500; a direct read of a path of ``blocked`` is a 403."""
        self._server = _Server(pages, failing, blocked)
        self._running = ServerThread(self._server, "tavily-stand-in")

    @property
    def pages(self) -> dict[str, tuple[str, str]]:
        """path -> (title, text), as served now: change it between two recordings."""
        return self._server.pages

    @property
    def unreadable(self) -> set[str]:
        """The paths Tavily's ``/extract`` fails to read (their direct GET still answers)."""
        return self._server.unreadable

    @property
    def asked(self) -> list[Asked]:
        """Every request, in order."""
        with self._server.lock:
            return list(self._server.asked)

    @property
    def searches(self) -> list[Asked]:
        """Every ``POST /search``, in order."""
        return [a for a in self.asked if (a.method, a.path) == ("POST", "/search")]

    @property
    def extracts(self) -> list[Asked]:
        """Every ``POST /extract``, in order."""
        return [a for a in self.asked if (a.method, a.path) == ("POST", "/extract")]
