"""The matching key of a URL: :func:`canonical`.

Two URLs that name the same page get the same key, so a citation matches the search result or the
fetched page it stands for. The key follows how browsers read a URL (the WHATWG URL Standard, held to
its test suite in ``tests/test_urls_whatwg.py``), then drops what does not change the page: scheme,
``www.``, default port, fragment, tracking parameters, parameter order, trailing slash. Pure and
offline.
"""

from __future__ import annotations

import functools
from urllib.parse import quote, unquote

from gate.urls.hosts import split_authority, usv
from gate.urls.parse import split_rest, trim, web_scheme

__all__ = ["canonical"]

_TRACKING_EXACT = frozenset(
    {
        "gclid",
        "fbclid",
        "mc_cid",
        "mc_eid",
        "ref_src",
        "ref_url",
        "igshid",
        "msclkid",
        "yclid",
        "_hsenc",
        "_hsmkt",
        "spm",
    }
)
_HEX = frozenset("0123456789abcdefABCDEF")
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
# Reserved characters that carry meaning inside a path or a query component; they are left as written,
# because encoding or decoding them could change which resource the URL names.
_PATH_SAFE = "/:@!$&'()*+,;="
# In a path, servers treat these sub-delimiters the same encoded or not, and real citations differ in
# exactly this way (Wikipedia's "Python_%28programming_language%29" is "Python_(programming_language)").
_PATH_DECODABLE = _UNRESERVED | frozenset("()!*'")
_QUERY_SAFE = ":@!$'()*,;/?"
# In a query, the sub-delimiters outside the form syntax mean the same encoded or not: browsers write
# "q=O'Reilly" as "q=O%27Reilly". "&", "=", "+" and ";" (an old parameter separator) are not decoded,
# because there "%26" and "&" are different queries.
_QUERY_DECODABLE = _UNRESERVED | frozenset("!$'()*,:@/?")


def _norm_pct(text: str, safe: str, decodable: frozenset[str] = _UNRESERVED) -> str:
    """Normalise percent-encoding: decode ``decodable`` bytes, upper-case hex, encode unsafe characters."""
    if "%" not in text:
        # quote() is a no-op on already-clean ASCII and encodes spaces / non-ASCII as UTF-8 otherwise.
        return quote(text, safe=safe)
    pieces = text.split("%")
    out = [quote(pieces[0], safe=safe)]
    for piece in pieces[1:]:
        if len(piece) >= 2 and piece[0] in _HEX and piece[1] in _HEX:
            char = chr(int(piece[:2], 16))
            out.append(char if char in decodable else "%" + piece[:2].upper())
            out.append(quote(piece[2:], safe=safe))
        else:
            # A stray "%" that does not start an escape is data, so it is encoded itself.
            out.append("%25" + quote(piece, safe=safe))
    return "".join(out)


def _remove_dot_segments(path: str) -> str:
    """Resolve "." and ".." path segments (RFC 3986 section 5.2.4) so equivalent paths compare equal."""
    out: list[str] = []
    segments = path.split("/")
    for i, seg in enumerate(segments):
        last = i == len(segments) - 1
        if seg == ".":
            if last:
                out.append("")
        elif seg == "..":
            if len(out) > 1:
                out.pop()
            if last:
                out.append("")
        else:
            out.append(seg)
    result = "/".join(out)
    return result if result.startswith("/") else "/" + result


def _norm_query(query: str) -> str:
    """Drop tracking parameters, normalise encoding and sort what remains by key then value."""
    pairs: list[tuple[str, str]] = []
    for part in query.split("&"):
        if not part:
            continue
        key, _, value = part.partition("=")
        decoded_key = unquote(key.replace("+", " ")).lower()
        if decoded_key.startswith("utm_") or decoded_key in _TRACKING_EXACT:
            continue
        # In a query "+" conventionally means a space, so both spellings are folded to %20.
        key = _norm_pct(key.replace("+", "%20"), _QUERY_SAFE, _QUERY_DECODABLE)
        pairs.append((key, _norm_pct(value.replace("+", "%20"), _QUERY_SAFE, _QUERY_DECODABLE)))
    pairs.sort()
    return "&".join(k + "=" + v for k, v in pairs)


@functools.lru_cache(maxsize=4096)  # per URL: a run reuses its own URLs; a set of 8,000 runs must not keep them all
def canonical(url: str) -> str:
    """Return the matching key for ``url``: two URLs that name the same page get the same key.

    http and https are merged (the key always says ``https://``); the host is mapped as browsers map
    it and loses a leading ``www.``, userinfo and default ports; the fragment and tracking parameters
    are dropped; the remaining query parameters are sorted; percent-encoding is normalised; a trailing
    slash on the path is ignored. Path case is kept. An http(s) URL that cannot be parsed (no host, a
    malformed IPv6 literal) keys on its text after the scheme, so it matches only itself. Never raises.
    """
    text = trim(usv(url))
    web = web_scheme(text)
    if web is not None:
        rest = web[1]
    elif text.startswith("//"):
        rest = text[2:]
    else:
        head = text.split("/", 1)[0]
        if "." not in head or " " in text or ":" in head.split(".")[0]:
            return text  # Not recognisably a web URL (mailto:, a word, ...): leave it be.
        rest = text  # A scheme-less "example.com/page" citation.
    authority, path, query = split_rest(rest)
    try:
        hostname, port = split_authority(authority)
    except ValueError:
        hostname = ""
    if not hostname:
        return "https://" + rest
    if port.isascii() and port.isdigit():
        port = port.lstrip("0") or "0"  # "0080" is port 80
    netloc = hostname if port in ("", "80", "443") else hostname + ":" + port
    path = _norm_pct(path, _PATH_SAFE, _PATH_DECODABLE)
    if "/." in path:
        path = _remove_dot_segments(path)
    path = path.rstrip("/") or "/"
    query = _norm_query(query) if query else ""
    return "https://" + netloc + path + ("?" + query if query else "")
