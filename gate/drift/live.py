"""One look at a cited URL on the live web, through record mode's guard. The I/O edge of drift.

:meth:`Prober.probe` asks once (the retries are :mod:`gate.drift.checker`'s) and returns an
:class:`~gate.drift.model.Answer`, never raises for what the web did:

- **HEAD first**, falling back to **GET** when HEAD answers 4xx or 5xx (many servers refuse or
  mishandle HEAD: 403, 404, 405, 501) or gives no answer within a third of the deadline; but not
  when it says to come back later (429, or any status with ``Retry-After``): that answer is
  retried. With ``--content`` it is GET alone, since the body is what is compared.
- **The host judged is the host asked**: each request is written out from the reading the checks
  make of the URL (:func:`gate.live.target.request_target`: a backslash ends the host, as
  in browsers); a URL with userinfo, or one no browser would fetch, is refused, nothing sent.
- **Redirects hop by hop**, up to ``record.max_redirects``, each hop through the guarded connection
  of :mod:`gate.live.transport`: the host is resolved once and every address it resolves to
  is checked against the SSRF rules and ``record.allow`` before a connection is made, at every hop.
- **One deadline**, ``record.deadline_seconds``, for the whole look: HEAD, GET, every hop. A server
  that never answers is an ``error`` when it passes; that is not retried (it would only wait again).
- **The body** is read only with ``--content``, streamed and stopped at ``record.max_bytes``; a page
  over it is judged by its status alone. Its text is extracted as the snapshot's pages are.

Nothing is recorded or cached: the answer is today's, every time.
"""

from __future__ import annotations

import socket
import time
from dataclasses import replace
from datetime import UTC, datetime
from email.message import Message
from typing import Literal

import requests
from urllib3.exceptions import ProtocolError

from gate.config import RecordConfig
from gate.drift.hosts import retry_after_seconds
from gate.drift.model import Answer, text_hash
from gate.errors import BodyTooLarge, FetchRefused
from gate.live import parse_allow, redact
from gate.live.target import request_target
from gate.live.transport import AddressRefused, Deadline, Guard, Resolve, guarded_session, read_body
from gate.live.web import ACCEPT, CONNECT_TIMEOUT
from gate.snapshot.extract import extract_page
from gate.snapshot.records import PageRecord
from gate.urls.weburl import resolve
from gate.version import __version__

__all__ = ["HEAD_SHARE", "DRIFT_USER_AGENT", "Prober"]

DRIFT_USER_AGENT = f"sourcegate/{__version__} (drift report; link check)"
HEAD_SHARE = 1 / 3
"""The share of the deadline a HEAD may take before its GET gets the rest."""
_REDIRECTS = frozenset({301, 302, 303, 307, 308})

Method = Literal["HEAD", "GET"]


def _transient(status: int) -> bool:
    return status in (408, 429) or 500 <= status < 600


class Prober:
    """Looks at URLs under the ``record:`` settings of ``sourcegate.yaml`` (allow-list, cap, deadline)."""

    def __init__(self, settings: RecordConfig, *, source: str | None = None,
                 resolve: Resolve = socket.getaddrinfo) -> None:
        """Check the allow-list of ``settings`` (an InputError naming ``source``); ``resolve`` turns
        a host into addresses (``socket.getaddrinfo`` by default)."""
        self.settings = settings
        self.allow = parse_allow(settings.allow, file=source)
        self.resolve = resolve

    def probe(self, url: str, *, content: bool = False) -> Answer:
        """Today's answer for ``url`` (see the module docstring)."""
        end = time.monotonic() + self.settings.deadline_seconds
        if content:
            return self._follow("GET", url, self.settings.deadline_seconds, read=True)
        head = self._follow("HEAD", url, self.settings.deadline_seconds * HEAD_SHARE)
        if head.refused or (head.status is not None and head.status < 400 and head.error is None):
            return head
        if head.status == 429 or head.retry_after is not None:  # "come back later": retried, not asked again now
            return head
        left = end - time.monotonic()
        if left <= 0:  # the HEAD took it all (a busy machine wakes its watchdog late): its answer stands
            return head
        get = self._follow("GET", url, left)
        if get.error is not None and not get.transient and head.status is not None:
            return replace(head, note=f"GET gave no answer: {get.error}")
        if get.status is not None and get.status == head.status:
            return get  # HEAD told the truth: nothing to add
        why = f"HEAD answered HTTP {head.status}" if head.status is not None else "HEAD gave no answer"
        return replace(get, note=f"{why}; GET asked instead")

    def _follow(self, method: Method, url: str, seconds: float, *, read: bool = False) -> Answer:
        """One request and its redirect hops, all within ``seconds``."""
        shown = redact(url)
        end = time.monotonic() + seconds
        with Deadline(seconds) as deadline, guarded_session(Guard(self.allow, self.resolve, deadline)) as session:
            current = url
            for hop in range(self.settings.max_redirects + 1):
                where = f"redirect hop {hop} to {redact(current)}" if hop else shown
                try:
                    # sent to the host the checks judge the URL by, written out from their reading of it
                    target = request_target(current, where, verb="followed")
                    response = session.request(
                        method, target.request_url(), headers={"User-Agent": DRIFT_USER_AGENT, "Accept": ACCEPT},
                        allow_redirects=False, stream=True,
                        timeout=(min(CONNECT_TIMEOUT, deadline.remaining()), deadline.remaining()))
                    with response:
                        location = response.headers.get("Location")
                        if response.status_code in _REDIRECTS and location:
                            current = resolve(target, location.encode("latin-1").decode("utf-8", "replace"))
                            continue
                        answer = self._answer(response, method, redact(target.request_url()), read, shown)
                except FetchRefused as e:
                    return Answer(method=method, refused=True, error=str(e))
                except AddressRefused as e:
                    return Answer(method=method, refused=True,
                                  error=f"refused: {e.reason} ({where}; record.allow lists what may be private)")
                except (requests.RequestException, OSError, ValueError) as e:
                    if deadline.expired or time.monotonic() >= end:  # a socket timeout set to what was left
                        break
                    return Answer(method=method, error=f"{_reason(e)} ({where})", transient=_cut(e))
                if deadline.expired:  # the watchdog may have cut a body that then looked complete
                    break
                return answer
            else:
                return Answer(method=method, error=f"more than {self.settings.max_redirects} redirects "
                                                   f"(record.max_redirects) from {shown}")
        return Answer(method=method, error=f"no answer within {self.settings.deadline_seconds:g} s "
                                           "(record.deadline_seconds, redirects included)")

    def _answer(self, response: requests.Response, method: Method, final: str, read: bool, shown: str) -> Answer:
        status = response.status_code
        wait = retry_after_seconds(response.headers.get("Retry-After"), datetime.now(UTC))
        found = Answer(status=status, final_url=final, method=method, transient=_transient(status),
                       retry_after=wait)
        if not read or not 200 <= status < 300:
            return found
        try:
            body = read_body(response, self.settings.max_bytes, shown)
        except BodyTooLarge:
            return replace(found, note=f"text not compared: the page is over record.max_bytes "
                                       f"({self.settings.max_bytes} bytes)")
        content_type = response.headers.get("Content-Type")
        page = PageRecord(url=final, status=status, body=_decoded(body, content_type), final_url=final,
                          content_type=content_type)
        return replace(found, text_hash=text_hash(extract_page(page).text))


def _decoded(body: bytes, content_type: str | None) -> str:
    message = Message()
    message["Content-Type"] = content_type or "text/plain"
    try:
        return body.decode(message.get_content_charset() or "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know
        return body.decode("utf-8", errors="replace")


def _inner(error: BaseException) -> BaseException:
    """The cause requests and urllib3 wrap (a MaxRetryError's reason, a ConnectionError's argument)."""
    inner = error.args[0] if error.args and isinstance(error.args[0], BaseException) else error
    return getattr(inner, "reason", None) or inner


def _cut(error: BaseException) -> bool:
    """A connection cut mid-answer (worth a retry), not one that could not be made."""
    if isinstance(error, requests.exceptions.ChunkedEncodingError):
        return True
    return isinstance(_inner(error), ProtocolError | ConnectionResetError | ConnectionAbortedError)


def _reason(error: BaseException) -> str:
    """What went wrong, in a line, without urllib3's pool repr."""
    detail = str(_inner(error))
    head, sep, rest = detail.partition("): ")
    if sep and head.split("(", 1)[0].isidentifier():  # "HTTPConnectionPool(host=..., port=...): ..."
        detail = rest
    if isinstance(error, requests.exceptions.SSLError):
        return f"TLS failed: {detail}"
    if isinstance(error, requests.ConnectionError):
        return f"could not connect: {detail}" if not _cut(error) else f"the connection was cut: {detail}"
    return f"{type(error).__name__}: {detail}"
