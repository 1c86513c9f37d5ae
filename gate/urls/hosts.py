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
from urllib.parse import unquote

import idna

from gate.urls.parse import split_rest, trim, web_scheme

__all__ = ["ascii_host", "host", "map_host", "split_authority", "split_host_port", "unicode_host", "usv", "whatwg_host"]

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
    hostname, port = split_host_port(authority.rpartition("@")[2])
    if hostname.startswith("["):
        # ipaddress raises ValueError for a malformed address; "[::1]" and "[0:0::1]" are one host.
        return "[" + ipaddress.IPv6Address(hostname[1:-1]).compressed + "]", port
    return map_host(hostname), port


def split_host_port(hostport: str) -> tuple[str, str]:
    """``host:port`` -> (host, port as written); an IPv6 literal keeps its brackets.

    Raises ValueError for an IPv6 literal that is not closed, or is followed by anything but a port.
    """
    if hostport.startswith("["):
        end = hostport.find("]")
        rest = hostport[end + 1 :]
        if end == -1 or (rest and not rest.startswith(":")):
            raise ValueError(f"not an IPv6 literal: {hostport!r}")
        return hostport[: end + 1], rest[1:]
    hostname, _, port = hostport.partition(":")
    return hostname, port


# The WHATWG URL Standard's forbidden domain code points: no host holds one once it is mapped.
_FORBIDDEN = re.compile(r"[\x00-\x20#%/:<>?@\[\\\]^|\x7f]")


@functools.lru_cache(maxsize=65536)
def whatwg_host(hostname: str) -> str | None:
    """The host a browser makes of ``hostname`` (a URL's host as written), in ASCII; None when it
    refuses it.

    As the WHATWG URL Standard's host parser: an IPv6 literal is compressed, in brackets; other
    hosts are percent-decoded, mapped by UTS 46 (lower case, full-width forms, ``。``), refused if
    they hold a forbidden code point, and read as an IPv4 address when the last label is a number
    (``0x7f.1`` is ``127.0.0.1``); non-ASCII labels are written in punycode. ``www.`` and a trailing
    dot are kept: this is the name a request goes to, not a matching key.
    """
    if hostname.startswith("["):
        try:
            return "[" + ipaddress.IPv6Address(hostname[1:-1]).compressed + "]" if hostname.endswith("]") else None
        except ValueError:
            return None
    name = usv(unquote(hostname, errors="replace")) if "%" in hostname else usv(hostname)
    if name.isascii():
        name = name.lower()
    else:
        try:
            name = idna.uts46_remap(name, std3_rules=False, transitional=False)
        except idna.IDNAError:
            return None
    if not name or _FORBIDDEN.search(name) or ("xn--" in name and not _valid_a_labels(name)):
        return None
    if _ends_in_number(name):
        return _ipv4(name)
    return ascii_host(name)


def _valid_a_labels(name: str) -> bool:
    """Whether every ``xn--`` label of ``name`` is punycode for a label that UTS 46 keeps as it is."""
    for label in name.split("."):
        if not label.startswith("xn--"):
            continue
        try:
            decoded = label[4:].encode("ascii").decode("punycode")
        except (UnicodeError, ValueError):
            return False
        try:
            if decoded.isascii() or idna.uts46_remap(decoded, std3_rules=False, transitional=False) != decoded:
                return False
        except idna.IDNAError:
            return False
    return True


def ascii_host(name: str) -> str:
    """A mapped host for DNS and the ``Host`` header: each non-ASCII label in punycode (``xn--``)."""
    if name.isascii():
        return name
    return ".".join(label if label.isascii() else "xn--" + label.encode("punycode").decode("ascii")
                    for label in name.split("."))


def _ends_in_number(name: str) -> bool:
    labels = name.split(".")
    if labels[-1] == "" and len(labels) > 1:
        labels.pop()
    last = labels[-1]
    return (last.isascii() and last.isdigit()) or (last[:2].lower() == "0x" and _number(last) is not None)


def _number(part: str) -> int | None:
    """A part of an IPv4 address as browsers read it: decimal, octal (``0``...) or hex (``0x``...)."""
    if part[:2].lower() == "0x":
        digits, base = part[2:], 16
    elif len(part) > 1 and part.startswith("0"):
        digits, base = part[1:], 8
    else:
        digits, base = part, 10
    if not digits:
        return 0 if base != 10 else None
    if not (digits.isascii() and digits.isalnum()):
        return None
    try:
        return int(digits, base)
    except ValueError:
        return None


def _ipv4(name: str) -> str | None:
    """The dotted address of a host that ends in a number, or None when it is no IPv4 address."""
    parts = name.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    numbers = [_number(p) for p in parts]
    values = [n for n in numbers if n is not None]
    if len(parts) > 4 or len(values) != len(parts):
        return None
    if any(n > 255 for n in values[:-1]) or values[-1] >= 256 ** (5 - len(values)):
        return None
    address = values[-1] + sum(n << (8 * (3 - i)) for i, n in enumerate(values[:-1]))
    return str(ipaddress.IPv4Address(address))


@functools.lru_cache(maxsize=65536)
def map_host(hostname: str) -> str:
    """A host name as browsers map it, lower-cased, without ``www.`` or a trailing dot, IDNA in Unicode.

    A host browsers refuse (a code point no browser accepts, a forbidden character) stays as
    written, lower-cased: a key of its own.
    """
    name = whatwg_host(hostname)
    if name is None:
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
    text = trim(url)
    web = web_scheme(text)
    if web is not None:
        text = web[1]
    elif (scheme_end := text.find("://")) != -1:
        text = text[scheme_end + 3 :]
    elif text.startswith("//"):
        text = text[2:]
    # The authority as browsers read it (a backslash ends it, as a slash does): the host a fetch reaches.
    authority = split_rest(text)[0]
    try:
        return split_authority(authority)[0]
    except ValueError:
        # A malformed IPv6 literal is still a host to count; it is kept as written.
        return usv(authority.rpartition("@")[2]).lower()


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
