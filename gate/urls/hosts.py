"""The host of a URL as browsers read it: :func:`host`, :func:`unicode_host` and :func:`split_authority`.

A host name is mapped the way the WHATWG URL Standard maps it (UTS #46, non-transitional): ASCII is
lower-cased, full-width letters and the ideographic full stop ``。`` become their ASCII forms,
zero-width characters are dropped, and ``xn--`` labels are shown in Unicode, so every spelling of
one site gives one name. Pure and offline.
"""

from __future__ import annotations

import functools
import ipaddress
import re

import idna

__all__ = ["host", "map_host", "split_authority", "unicode_host", "usv"]

# A lone surrogate can sit in a JSON string but in no UTF-8 text; browsers read it as U+FFFD.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def usv(text: str) -> str:
    """``text`` with lone surrogates replaced by U+FFFD, as a browser converts a string to a URL's input."""
    if text.isascii():
        return text
    return _LONE_SURROGATE.sub("\ufffd", text)


def split_authority(authority: str) -> tuple[str, str]:
    """Split ``user:pass@host:port`` into the mapped host (:func:`map_host`) and the port as written.

    Userinfo is dropped. Raises ValueError for an IPv6 literal browsers reject (``[::1``, ``[1::2::3]``,
    ``[::1]x``).
    """
    hostport = authority.rpartition("@")[2]
    if hostport.startswith("["):
        end = hostport.find("]")
        rest = hostport[end + 1 :]
        if end == -1 or (rest and not rest.startswith(":")):
            raise ValueError(f"not an IPv6 literal: {hostport!r}")
        # ipaddress raises ValueError for a malformed address; "[::1]" and "[0:0::1]" are one host.
        return "[" + ipaddress.IPv6Address(hostport[1:end]).compressed + "]", rest[1:]
    hostname, _, port = hostport.partition(":")
    return map_host(hostname), port


@functools.lru_cache(maxsize=65536)
def map_host(hostname: str) -> str:
    """A host name as browsers map it, lower-cased, without ``www.`` or a trailing dot, IDNA in Unicode."""
    if hostname.isascii():
        name = hostname.lower()
    else:
        try:
            name = idna.uts46_remap(usv(hostname), std3_rules=False, transitional=False)
        except idna.IDNAError:
            # A code point no browser accepts in a host name: the name stays as written, a key of its own.
            name = usv(hostname).lower()
    name = name.rstrip(".")
    if name.startswith("www."):
        name = name[4:]
    return unicode_host(name)


@functools.lru_cache(maxsize=4096)  # per URL: a run reuses its own URLs; a set of 8,000 runs must not keep them all
def host(url: str) -> str:
    """Return the host of ``url`` as :func:`map_host` gives it, without userinfo or port.

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
    try:
        return split_authority(text)[0]
    except ValueError:
        # A malformed IPv6 literal is still a host to count; it is kept as written.
        return usv(text.rpartition("@")[2]).lower()


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
