"""The URL record mode fetches, built from the reading the checks use: :func:`parse_web`.

A fetch goes to exactly the host the checks judge: the URL is split as :mod:`gate.urls.parse`
splits it for :func:`gate.urls.host` and :func:`gate.urls.canonical`, its host mapped as browsers
map it (:func:`gate.urls.hosts.whatwg_host`), and the request is then written out again from those
parts (:meth:`WebURL.request_url`: no userinfo, no backslash, no fragment), so no other parser
reads the original text. A redirect's ``Location`` is resolved the same way (:func:`resolve`).
Pure and offline.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urljoin

from gate.urls.hosts import split_host_port, usv, whatwg_host
from gate.urls.parse import split_rest, trim, web_scheme

__all__ = ["WebURL", "link_target", "parse_web", "resolve"]

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass(frozen=True)
class WebURL:
    """An http(s) URL as a browser holds it once parsed."""

    scheme: str
    """``http`` or ``https``"""
    userinfo: str
    """the user name and password as written (``""`` when there are none)"""
    host: str
    """the host as browsers map it (:func:`gate.urls.hosts.whatwg_host`: lower case, UTS 46, punycode,
    IPv4 in dotted decimal, IPv6 compressed in brackets); ``www.`` and a trailing dot are kept: this
    is the machine reached, not a matching key (:func:`gate.urls.host` is that)"""
    port: int | None
    """None for the scheme's default port"""
    path: str
    """from its first ``/`` (``/`` when the URL has none), backslashes read as slashes"""
    query: str | None
    """without its ``?``; None when the URL has none"""

    def request_url(self) -> str:
        """The URL to send: this scheme, host and port, the path and query; no userinfo, no fragment."""
        port = "" if self.port is None else f":{self.port}"
        query = "" if self.query is None else f"?{self.query}"
        return f"{self.scheme}://{self.host}{port}{self.path}{query}"


def parse_web(url: str) -> WebURL:
    """``url`` as browsers parse it; ValueError saying why when no browser would fetch it over http(s)."""
    text = trim(usv(url))
    found = web_scheme(text)
    if found is None:
        raise ValueError("not an http or https URL")
    scheme, rest = found
    authority, path, query = split_rest(rest)
    has_query = "?" in rest.partition("#")[0]
    userinfo, at, hostport = authority.rpartition("@")
    hostname, port_text = split_host_port(hostport)
    name = whatwg_host(hostname)
    if not name:
        raise ValueError(f"its host {hostname!r} is not a host name browsers accept")
    if port_text and not (port_text.isascii() and port_text.isdigit() and int(port_text) <= 65535):
        raise ValueError(f"its port {port_text!r} is not a port (0-65535)")
    port = int(port_text) if port_text else None
    return WebURL(scheme, userinfo if at else "", name, None if port == _DEFAULT_PORTS[scheme] else port,
                  path or "/", query if has_query else None)


def resolve(base: WebURL, location: str) -> str:
    """A redirect's ``location`` resolved against ``base`` as browsers resolve it (a backslash is a
    slash, ``//host`` keeps the scheme, ``http:path`` on an http page is relative)."""
    text = trim(usv(location))
    scheme = _SCHEME.match(text)
    if scheme is not None:
        name = scheme.group()[:-1].lower()
        rest = text[scheme.end():]
        if name != base.scheme or rest[:1] in ("/", "\\"):
            return text  # absolute: read on its own (or refused, for a scheme that is not http(s))
        text = rest  # "http:page" on an http page: relative to it, as in browsers
    path, hash_, fragment = text.partition("#")
    before, question, query = path.partition("?")
    relative = before.replace("\\", "/") + question + query + hash_ + fragment
    return urljoin(base.request_url(), relative)


def link_target(base: str, href: str) -> str:
    """``href``, a link on the page at ``base``, resolved as :func:`resolve` resolves a redirect; as
    written when either cannot be read (an unclosed IPv6 bracket in untrusted page text, say)."""
    try:
        return resolve(parse_web(base), href)
    except ValueError:
        try:
            return urljoin(base, href)
        except ValueError:
            return href
