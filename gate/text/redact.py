"""One redaction for everything record mode stores or prints: URLs, headers, messages, JSON.

A search key reaches a provider in a header (``X-Subscription-Token``, ``Authorization``), a query
parameter (``api_key=``) or a JSON field; it must never reach a snapshot, a trace, a log or a
report. :func:`redact` removes, from any text:

- the secret values it is given (the keys read from the environment, :func:`secret_values`), also
  percent-encoded;
- the value of every query parameter with a secret's name (``?api_key=...&q=x`` keeps ``q``);
- the password of a URL's userinfo (``https://user:pw@host`` -> ``https://user:REDACTED@host``).

:func:`redact_headers` blanks every header with a secret's name and redacts the others;
:func:`scrub` removes the given secret values from a JSON value (a provider's answer is otherwise
kept exactly as it came), or from a frozen value (a trace, a case's result) as a whole;
:func:`scrub_exception` redacts the messages of an exception and of
everything chained to it, so a translated error can keep its cause without carrying a key.
Pure, apart from :func:`scrub_exception`, which rewrites the exceptions' arguments in place.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any
from urllib.parse import quote, unquote

REDACTED = "REDACTED"

SECRET_NAMES = frozenset({
    "access_key", "access_token", "api_key", "apikey", "auth", "auth_token", "authorization",
    "client_secret", "cookie", "id_token", "key", "ocp_apim_subscription_key", "passwd", "password",
    "private_token", "proxy_authorization", "refresh_token", "secret", "secret_key", "session_token",
    "set_cookie", "sig", "signature", "subscription_key", "token", "x_amz_credential",
    "x_amz_security_token", "x_amz_signature", "x_api_key", "x_auth_token", "x_goog_api_key",
    "x_subscription_token",
})
"""Names (of query parameters, headers, JSON fields) whose value is a secret; ``-`` counts as ``_``."""

_PARAM = re.compile(r"(?P<lead>[?&;](?P<name>[^=&;#\s?/\"'<>]+)=)(?P<value>[^&;#\s\"'<>]*)")
_USERINFO = re.compile(r"(?P<lead>\b[a-z][a-z0-9+.-]*://[^/\s:@?#]*:)[^/\s@?#]+@", re.IGNORECASE)


SECRET_SUFFIXES = ("_API_KEY", "_APIKEY", "_TOKEN", "_SECRET", "_SECRET_KEY", "_PASSWORD")
"""Environment variables whose name ends so (upper-cased, ``-`` as ``_``) hold a secret: ``ANTHROPIC_API_KEY``,
``GITHUB_TOKEN``, ``CLIENT_SECRET``, the action's ``INPUT_ANTHROPIC-API-KEY``."""
MIN_SECRET_CHARS = 8
"""A value shorter than this is not redacted: blanking ``1`` or ``true`` would blank every word holding it."""


def secret_values(environ: Mapping[str, str], extra: Iterable[str] = ()) -> tuple[str, ...]:
    """The values of ``environ``'s secret-named variables (:data:`SECRET_SUFFIXES`) and ``extra`` (a judge's
    key given otherwise), each of at least :data:`MIN_SECRET_CHARS` characters, stripped as inputs are."""
    named = (v for n, v in environ.items() if n.upper().replace("-", "_").endswith(SECRET_SUFFIXES))
    found = {v.strip() for v in (*named, *extra) if len(v.strip()) >= MIN_SECRET_CHARS}
    return tuple(sorted(found, key=len, reverse=True))


def holds_secret(text: str, secrets: Iterable[str]) -> bool:
    """Whether ``text`` holds one of ``secrets`` as :func:`redact` would find it (also percent-encoded)."""
    return any(value in text for value in _values(secrets))


def is_secret_name(name: str) -> bool:
    """Whether a parameter or header called ``name`` carries a secret (case-insensitive)."""
    return unquote(name).strip().lower().replace("-", "_") in SECRET_NAMES


def _values(secrets: Iterable[str]) -> list[str]:
    found = {s for s in secrets if s}
    found |= {quote(s, safe="") for s in found}
    return sorted(found, key=len, reverse=True)  # the longest first, so no fragment survives


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` (a URL, a message, a header value) with every secret replaced by ``REDACTED``."""
    for value in _values(secrets):
        text = text.replace(value, REDACTED)
    text = _PARAM.sub(lambda m: m["lead"] + REDACTED if is_secret_name(m["name"]) and m["value"] else m[0], text)
    return _USERINFO.sub(lambda m: m["lead"] + REDACTED + "@", text)


def redact_headers(headers: Mapping[str, str], secrets: Iterable[str] = ()) -> dict[str, str]:
    """The headers to show or keep: a secret-named header's value is ``REDACTED``, the rest redacted."""
    values = _values(secrets)
    return {name: REDACTED if is_secret_name(name) else redact(value, values) for name, value in headers.items()}


def scrub(value: Any, secrets: Iterable[str]) -> Any:
    """A JSON value, or a frozen value (dataclasses, tuples, read-only mappings), with each secret value
    replaced wherever a string (key or value) holds it; what holds none is returned as it is."""
    values = _values(secrets)
    if not values:
        return value

    def walk(node: Any) -> Any:
        if isinstance(node, str):
            for secret in values:
                node = node.replace(secret, REDACTED)
            return node
        if isinstance(node, dict):
            return {walk(k): walk(v) for k, v in node.items()}
        if isinstance(node, list):
            return [walk(v) for v in node]
        if isinstance(node, tuple):
            return tuple(walk(v) for v in node)
        if isinstance(node, MappingProxyType):
            return MappingProxyType({walk(k): walk(v) for k, v in node.items()})
        if dataclasses.is_dataclass(node) and not isinstance(node, type):
            changed = {f.name: walk(getattr(node, f.name)) for f in dataclasses.fields(node) if f.init}
            return dataclasses.replace(node, **changed)
        return node

    return walk(value)


def scrub_exception(error: BaseException, secrets: Iterable[str] = ()) -> None:
    """Redact the string arguments of ``error`` and of every exception in its args, cause and context."""
    values = _values(secrets)
    seen: set[int] = set()
    todo: list[BaseException] = [error]
    while todo:
        exc = todo.pop()
        if id(exc) in seen:
            continue
        seen.add(id(exc))
        args = []
        for arg in exc.args:
            if isinstance(arg, str):
                arg = redact(arg, values)
            elif isinstance(arg, BaseException):
                todo.append(arg)
            args.append(arg)
        exc.args = tuple(args)
        todo.extend(e for e in (exc.__cause__, exc.__context__) if e is not None)
