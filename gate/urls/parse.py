"""An http(s) URL split as browsers split it: the one reading behind the checks, the keys and the fetch.

The gate judges a cited URL by its host (:func:`gate.urls.host`), matches it by its key
(:func:`gate.urls.canonical`) and, in record mode, fetches it (:mod:`gate.urls.weburl`). If two of
those read a URL differently, ``https://attacker.example\\@www.nature.com/x`` is judged as
nature.com and fetched from attacker.example. So all three split a URL here, as the WHATWG URL
Standard does:

- C0 controls and spaces around the URL are dropped, tabs and newlines anywhere in it (:func:`trim`);
- after ``http:`` or ``https:`` any run of ``/`` and ``\\`` starts the authority (:func:`web_scheme`),
  and the authority ends at the first ``/``, ``\\``, ``?`` or ``#``: a backslash is a slash
  (:func:`split_rest`);
- userinfo is everything up to the authority's last ``@``; the port follows the host
  (:func:`gate.urls.hosts.split_host_port`).

Pure and offline.
"""

from __future__ import annotations

import re

__all__ = ["split_rest", "trim", "web_scheme"]

# How a web URL starts: the scheme, then any run of slashes, forward or back, as browsers read it.
_WEB_SCHEME = re.compile(r"(https?):[/\\]*", re.IGNORECASE)
# Browsers drop C0 controls and spaces around a URL, and tabs and newlines anywhere in it.
_C0_SPACE = "".join(chr(i) for i in range(0x21))
_TAB_NEWLINE = str.maketrans("", "", "\t\n\r")


def trim(text: str) -> str:
    """``text`` without what browsers drop: surrounding whitespace and C0 controls, tabs and newlines inside."""
    text = text.strip()
    if text and (text[0] <= " " or text[-1] <= " "):
        text = text.strip(_C0_SPACE).strip()
    if "\t" in text or "\n" in text or "\r" in text:
        text = text.translate(_TAB_NEWLINE)
    return text


def web_scheme(text: str) -> tuple[str, str] | None:
    """(``http`` or ``https``, what follows the scheme and its slashes) of trimmed text; None for other text."""
    found = _WEB_SCHEME.match(text) if text[:5].lower().startswith("http") else None
    return None if found is None else (found.group(1).lower(), text[found.end():])


def split_rest(rest: str) -> tuple[str, str, str]:
    """Split what follows ``scheme://`` into authority, path and query; the fragment is dropped.

    As in browsers, a backslash before the query is a slash, and the authority ends at the first
    ``/``, ``?`` or ``#`` (so userinfo may hold brackets, as in ``http://a]b@host/``).
    """
    rest = rest.partition("#")[0]
    before, _, query = rest.partition("?")
    if "\\" in before:
        before = before.replace("\\", "/")
    slash = before.find("/")
    if slash == -1:
        return before, "", query
    return before[:slash], before[slash:], query
