"""Citation extraction and URL canonicalisation.

Everything here is pure and offline: the Public Suffix List comes from the snapshot bundled with
tldextract, never from the network.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING
from urllib.parse import quote, unquote, urlsplit

if TYPE_CHECKING:
    import tldextract

__all__ = ["canonical", "extract_urls", "host", "is_under", "registered_domain"]

# --------------------------------------------------------------------------------------------------
# canonical()
# --------------------------------------------------------------------------------------------------

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
_QUERY_SAFE = ":@!$'()*,;/?"


def _norm_pct(text: str, safe: str) -> str:
    """Normalise percent-encoding: decode unreserved bytes, upper-case hex, encode unsafe characters."""
    if "%" not in text:
        # quote() is a no-op on already-clean ASCII and encodes spaces / non-ASCII as UTF-8 otherwise.
        return quote(text, safe=safe)
    pieces = text.split("%")
    out = [quote(pieces[0], safe=safe)]
    for piece in pieces[1:]:
        if len(piece) >= 2 and piece[0] in _HEX and piece[1] in _HEX:
            char = chr(int(piece[:2], 16))
            out.append(char if char in _UNRESERVED else "%" + piece[:2].upper())
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
        netloc = hostname if port in ("", "80", "443") else hostname + ":" + port
        path = _norm_pct(parts.path, _PATH_SAFE)
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


# --------------------------------------------------------------------------------------------------
# Registered domains
# --------------------------------------------------------------------------------------------------

_extractor: tldextract.TLDExtract | None = None


def _get_extractor() -> tldextract.TLDExtract:
    """Build the offline tldextract instance on first use (loading the bundled list takes a moment)."""
    global _extractor
    if _extractor is None:
        import tldextract

        # suffix_list_urls=() and cache_dir=None: use only the bundled snapshot, never fetch or write.
        _extractor = tldextract.TLDExtract(
            suffix_list_urls=(), cache_dir=None, include_psl_private_domains=True
        )
    return _extractor


@functools.lru_cache(maxsize=65536)
def registered_domain(host_or_url: str) -> str:
    """Return the registered domain (eTLD+1) of a host or URL, private PSL section included.

    ``news.bbc.co.uk`` gives ``bbc.co.uk``; ``alice.github.io`` stays ``alice.github.io`` because
    ``github.io`` is a (private) public suffix. IPs, ``localhost`` and hosts with no known suffix
    give the host itself.
    """
    hostname = host(host_or_url)
    if not hostname:
        return hostname
    result = _get_extractor()(hostname)
    # top_domain_under_public_suffix replaces the deprecated registered_domain in newer tldextract.
    domain = getattr(result, "top_domain_under_public_suffix", None)
    if domain is None:
        domain = result.registered_domain
    return str(domain) if domain else hostname


def is_under(host: str, domain: str) -> bool:
    """Return True if ``host`` equals ``domain`` or is a subdomain of it (case-insensitive, www. ignored)."""
    h = _bare_host(host)
    d = _bare_host(domain)
    if not h or not d:
        return False
    return h == d or h.endswith("." + d)


def _bare_host(name: str) -> str:
    """Lower-case a host name and strip ``www.`` and a trailing dot; URLs are reduced to their host."""
    if "/" in name:
        return host(name)
    name = name.strip().lower().rstrip(".")
    return name[4:] if name.startswith("www.") else name


# --------------------------------------------------------------------------------------------------
# extract_urls()
# --------------------------------------------------------------------------------------------------

_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})")
# Sentence punctuation after a bare URL; "*" closes markdown bold around a URL, and the full-width marks
# end sentences in CJK answers. None of these plausibly ends a real URL.
_TRAILING_PUNCT = ".,;:!?'\"*。，、；：！？"

# Link text may hold one level of nested brackets, e.g. a linked image "[![alt](img)](url)".
_TEXT = r"\[(?:[^\[\]\n]|\[[^\[\]\n]*\])*\]"
# A link destination: <...>, or a run without spaces that may contain balanced parentheses (one level),
# so "[Python](https://en.wikipedia.org/wiki/Python_(programming_language))" keeps its ")".
_DEST = r"(?:<(?P<{n}a>[^<>\n]*)>|(?P<{n}b>(?:[^\s()<>]|\([^\s()]*\))+))"
_TITLE = r"""(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?"""

_TOKEN = re.compile(
    "|".join(
        [
            # Reference definition "[1]: https://... "title"" (also footnote "[^1]: ...") at line start.
            r"(?m:^[ \t]{0,3}\[(?P<deflabel>[^\]\n]+)\]:[ \t]*" + _DEST.format(n="def") + ")",
            # Images are not citations; consume them so their URLs are not picked up as bare URLs.
            r"(?P<image>!" + _TEXT + r"(?:\([^)\n]*\)|\[[^\]\n]*\])?)",
            r"(?P<inline>" + _TEXT + r"\(\s*" + _DEST.format(n="in") + _TITLE + r"\s*\))",
            r"(?P<reflink>" + _TEXT + r"\[(?P<reflabel>[^\[\]\n]*)\])",
            r"\[(?P<bracket>[^\[\]\n]*)\]",
            r"<(?P<auto>https?://[^<>\s]+)>",
            r"【(?P<lenticular>[^】\n]*)】",
            r"(?P<bare>https?://[^\s<>\"`【】]+)",
        ]
    ),
    re.IGNORECASE,
)

# A line of a sources list: "1. ...", "1) ...", "[1] ...", "[^1]: ...", "【1】 ...", optionally bulleted.
_SOURCE_LINE = re.compile(
    r"^[ \t]*(?:[-*+][ \t]+)?"
    r"(?:\[\^?(?P<a>\d+)\]:?[ \t]*|【(?P<b>\d+)[^】\n]*】[ \t]*|\(?(?P<c>\d+)[.)][ \t]+)(?P<rest>.*)$",
    re.MULTILINE,
)
_GLUED_MARKERS = re.compile(r"(?:\[\^?\d+(?:,\d+)*\])+$")
_MARKER_LIST = re.compile(r"^\s*\^?\d+(?:\s*[-–,;，]\s*\^?\d+)*\s*$")
_LEADING_NUMBERS = re.compile(r"\d+(?:\s*[-–,，]\s*\d+)*")
_MAX_RANGE = 50  # "[2-4]" is expanded, but a nonsense range like "[1-99999]" must not blow up.


def _strip_fenced_code(text: str) -> str:
    """Blank out fenced code blocks (``` or ~~~), whose URLs are examples rather than citations."""
    lines = text.split("\n")
    fence = ""
    for i, line in enumerate(lines):
        if fence:
            stripped = line.strip()
            if stripped.startswith(fence) and stripped.strip(fence[0]) == "" and not line.startswith("    "):
                fence = ""
            lines[i] = ""
            continue
        m = _FENCE_OPEN.match(line)
        # A backtick fence's info string may not contain backticks; otherwise it is inline code.
        if m and not (m.group(1)[0] == "`" and "`" in line[m.end() :]):
            fence = m.group(1)
            lines[i] = ""
    return "\n".join(lines)


def _trim_bare(url: str) -> str:
    """Drop trailing sentence punctuation and unbalanced closing brackets from a bare URL."""
    while url:
        last = url[-1]
        unbalanced = (last == ")" and url.count(")") > url.count("(")) or (
            last == "]" and url.count("]") > url.count("[")
        )
        if last not in _TRAILING_PUNCT and not unbalanced:
            break
        url = url[:-1]
    return url


def _is_web(url: str) -> bool:
    return url[:8].lower().startswith(("http://", "https://"))


def _norm_label(label: str) -> str:
    """CommonMark-style label matching: case-insensitive, whitespace collapsed; a footnote ^ is ignored."""
    return " ".join(label.lstrip("^").split()).lower()


def _expand_numbers(spec: str) -> list[str]:
    """Turn "2, 3", "^1" or "2-4" into the individual marker labels."""
    labels: list[str] = []
    for part in re.split(r"[,;，]", spec):
        bounds = [b.strip().lstrip("^") for b in re.split(r"[-–]", part)]
        bounds = [b for b in bounds if b]
        if len(bounds) == 2 and bounds[0].isdigit() and bounds[1].isdigit():
            lo, hi = int(bounds[0]), int(bounds[1])
            if 0 <= hi - lo <= _MAX_RANGE:
                labels.extend(str(n) for n in range(lo, hi + 1))
                continue
        labels.extend(b for b in bounds if b.isdigit())
    return [str(int(label)) for label in labels]


def _first_url(text: str) -> str | None:
    """First web URL in a fragment of text (inline link, autolink or bare URL), or None."""
    for m in _TOKEN.finditer(text):
        for url in _urls_of(m, {}):
            return url
    return None


def _build_labels(text: str) -> dict[str, str]:
    """Map reference labels and numbered-source markers to the URL they point at."""
    labels: dict[str, str] = {}
    # Numbered sources lists: a later list wins, because the sources list sits at the end of the answer
    # while an earlier numbered list is more likely ordinary prose.
    for m in _SOURCE_LINE.finditer(text):
        url = _first_url(m.group("rest"))
        if url:
            number = m.group("a") or m.group("b") or m.group("c")
            labels[str(int(number))] = url
    # Reference definitions are explicit, so they override list guesses; like CommonMark, the first wins.
    definitions: dict[str, str] = {}
    for m in _TOKEN.finditer(text):
        if m.group("deflabel") is not None:
            url = (m.group("defa") if m.group("defa") is not None else m.group("defb") or "").strip()
            if _is_web(url):
                label = _norm_label(m.group("deflabel"))
                if label.isdigit():
                    label = str(int(label))
                definitions.setdefault(label, url)
    labels.update(definitions)
    return labels


def _resolve(label: str, labels: dict[str, str]) -> list[str]:
    """URLs for a bracketed label: a defined reference, or one or more numeric citation markers."""
    key = _norm_label(label)
    if key in labels:
        return [labels[key]]
    if _MARKER_LIST.match(label):
        return [labels[n] for n in _expand_numbers(label) if n in labels]
    return []


def _urls_of(m: re.Match[str], labels: dict[str, str]) -> Iterator[str]:
    """Yield the cited web URLs that one token stands for, in order."""
    if m.group("deflabel") is not None:
        url = m.group("defa") if m.group("defa") is not None else m.group("defb")
        if url and _is_web(url.strip()):
            yield url.strip()
    elif m.group("image") is not None:
        return
    elif m.group("inline") is not None:
        url = (m.group("ina") if m.group("ina") is not None else m.group("inb") or "").strip()
        if _is_web(url):
            yield url
    elif m.group("reflink") is not None:
        label = m.group("reflabel")
        text = m.group("reflink")[1 : -len(label) - 3]
        # "[text][]" is a collapsed reference: the text is the label. "[1][2]" are two markers.
        if label and _MARKER_LIST.match(text):
            yield from _resolve(text, labels)
        yield from _resolve(label or text, labels)
    elif m.group("bracket") is not None:
        inner = m.group("bracket")
        resolved = _resolve(inner, labels)
        if resolved:
            yield from resolved
        else:
            # Not a marker: the brackets are plain text and may still contain a bare URL.
            for sub in _TOKEN.finditer(inner):
                yield from _urls_of(sub, labels)
    elif m.group("auto") is not None:
        yield m.group("auto")
    elif m.group("lenticular") is not None:
        # "【1】", "【2, 3】" or the "【4†source】" style: the citation numbers lead the marker.
        lead = _LEADING_NUMBERS.match(m.group("lenticular").strip())
        if lead:
            yield from _resolve(lead.group(0), labels)
    elif m.group("bare") is not None:
        url = _trim_bare(m.group("bare"))
        # A marker glued to the URL ("https://example.com/a[1]") is a citation, not part of the path.
        glued = _GLUED_MARKERS.search(url)
        if glued:
            url = _trim_bare(url[: glued.start()])
        if len(url) > len("https://"):
            yield url
        if glued:
            for marker in re.findall(r"\[([^\]]*)\]", glued.group(0)):
                yield from _resolve(marker, labels)


def extract_urls(answer: str) -> list[str]:
    """Return the URLs an answer cites, in first-appearance order, de-duplicated by :func:`canonical`.

    Recognised: inline links (with or without a title), ``<url>`` autolinks, bare http(s) URLs,
    reference definitions (``[1]: url``) and reference links, and numbered markers (``[1]``,
    ``[2, 3]``, ``[^1]``, ``【1】``) pointing into a sources list. A URL listed only as a source still
    counts. Images and fenced code blocks are ignored. The first raw spelling of each URL is kept.
    """
    text = _strip_fenced_code(answer)
    labels = _build_labels(text)
    seen: set[str] = set()
    found: list[str] = []
    for m in _TOKEN.finditer(text):
        for url in _urls_of(m, labels):
            key = canonical(url)
            if key not in seen:
                seen.add(key)
                found.append(url)
    return found
