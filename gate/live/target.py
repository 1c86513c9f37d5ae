"""What a live request is sent to: the URL as the checks read it, or why it is refused.

Record mode's fetches and drift's looks send a request to exactly the host the checks judge a URL
by: the URL is read once (:func:`gate.urls.weburl.parse_web`, the reading behind
:func:`gate.urls.host` and :func:`gate.urls.canonical`) and the request written out again from that
reading, so ``https://attacker.example\\@www.nature.com/x`` goes to attacker.example, where it is
judged. Refused (:class:`gate.errors.FetchRefused`), before anything is sent: a scheme other than
http(s), a URL no browser would fetch, and userinfo (``http://user:pw@host/``), which would be sent
as credentials and is never recorded. Pure.
"""

from __future__ import annotations

import re

from urllib3.util import parse_url

from gate.errors import FetchRefused
from gate.urls.weburl import WebURL, parse_web

__all__ = ["request_target"]

_SCHEME = re.compile(r"[\x00-\x20]*([A-Za-z][A-Za-z0-9+.-]*):")


def request_target(url: str, where: str, *, verb: str = "fetched") -> WebURL:
    """``url`` as it will be requested; FetchRefused naming ``where`` when it may not be (see above).

    ``verb`` says what is done with URLs in the refusal (``only http and https are fetched``).
    """
    try:
        target = parse_web(url)
    except ValueError as e:
        scheme = _SCHEME.match(url)
        kind = scheme.group(1).lower() if scheme else "a URL without a scheme"
        why = str(e) if kind in ("http", "https") else f"only http and https are {verb}, not {kind}"
        raise FetchRefused(f"refused: {why} ({where})") from None
    if target.userinfo.strip(":"):
        raise FetchRefused(f"refused: the URL has userinfo (a user name or password before {target.host}), "
                           f"which would be sent as credentials; it is never sent nor recorded ({where})")
    # The library that sends the request reads the URL again: it must find the host and port read here.
    sent = parse_url(target.request_url())
    if ((sent.host or "").lower(), sent.port) != (target.host, target.port):
        raise FetchRefused(f"refused: the URL reads as {target.host} here and as {sent.host} to the HTTP "
                           f"client ({where})")
    return target
