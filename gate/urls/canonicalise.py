"""The matching key of a URL (:func:`canonical`) and its host (:func:`host`).

Two URLs that name the same page get the same key, so a citation matches the search result or the
fetched page it stands for. Pure and offline.
"""

from __future__ import annotations

import functools
from urllib.parse import quote, unquote, urlsplit

__all__ = ["canonical", "host", "unicode_host"]

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


def _split_netloc(netloc: str) -> tuple[str, str]:
    """Split a netloc into (host, port), dropping any userinfo; the host is lower-cased, www.-free."""
    hostport = netloc.rpartition("@")[2]
    if hostport.startswith("["):
        # IPv6 literal: the port, if any, follows the closing bracket.
        end = hostport.find("]")
        if end == -1:
            return hostport.lower(), ""
        hostname, port = hostport[: end + 1], hostport[end + 1 :].lstrip(":")
    else:
        hostname, _, port = hostport.partition(":")
    hostname = hostname.lower().rstrip(".")
    if hostname.startswith("www."):
        hostname = hostname[4:]
    return hostname, port


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
        key = _norm_pct(key.replace("+", "%20"), _QUERY_SAFE)
        pairs.append((key, _norm_pct(value.replace("+", "%20"), _QUERY_SAFE)))
    pairs.sort()
    return "&".join(k + "=" + v for k, v in pairs)


@functools.lru_cache(maxsize=65536)
def canonical(url: str) -> str:
    """Return the matching key for ``url``: two URLs that name the same page get the same key.

    http and https are merged (the key always says ``https://``); the host is lower-cased and loses a
    leading ``www.``, userinfo and default ports; the fragment and tracking parameters are dropped;
    the remaining query parameters are sorted; percent-encoding is normalised; a trailing slash on
    the path is ignored. Path case is kept. Never raises: junk input gives a best-effort string.
    """
    text = url.strip()
    try:
        lowered = text[:8].lower()
        if lowered.startswith("//"):
            text = "https:" + text
        elif "://" not in text and not lowered.startswith(("http:", "https:")):
            head = text.split("/", 1)[0]
            if "." not in head or " " in text or ":" in head.split(".")[0]:
                return text  # Not recognisably a web URL (mailto:, a word, ...): leave it be.
            text = "https://" + text  # A scheme-less "example.com/page" citation.
        parts = urlsplit(text)
        if parts.scheme not in ("http", "https"):
            return text
        hostname, port = _split_netloc(parts.netloc)
        hostname = unicode_host(hostname)
        netloc = hostname if port in ("", "80", "443") else hostname + ":" + port
        path = _norm_pct(parts.path, _PATH_SAFE, _PATH_DECODABLE)
        if "/." in path:
            path = _remove_dot_segments(path)
        path = path.rstrip("/") or "/"
        query = _norm_query(parts.query) if parts.query else ""
        return "https://" + netloc + path + ("?" + query if query else "")
    except (ValueError, UnicodeError):
        # urlsplit rejects some malformed input (e.g. an unclosed IPv6 bracket); a key is still needed.
        return text


@functools.lru_cache(maxsize=65536)
def host(url: str) -> str:
    """Return the lower-cased host of ``url`` without ``www.``, userinfo or port.

    A bare host (``"News.Example.com:8080"``) is accepted as well as a full URL.
    """
    text = url.strip()
    scheme_end = text.find("://")
    if scheme_end != -1:
        text = text[scheme_end + 3 :]
    elif text.startswith("//"):
        text = text[2:]
    for sep in "/?#":
        text = text.split(sep, 1)[0]
    return _split_netloc(text)[0]


def unicode_host(hostname: str) -> str:
    """A host with its IDNA ``xn--`` labels decoded, so ``xn--mnchen-3ya.de`` and ``münchen.de`` are one site.

    A label that is not a valid IDNA A-label is kept as written.
    """
    if "xn--" not in hostname:
        return hostname
    return ".".join(_u_label(label) for label in hostname.split("."))


def _u_label(label: str) -> str:
    if not label.startswith("xn--"):
        return label
    try:
        decoded = label[4:].encode("ascii").decode("punycode").lower()
    except (UnicodeError, ValueError):
        return label
    # An A-label stands for a label with non-ASCII letters; anything else was never an IDNA name.
    return label if decoded.isascii() else decoded
