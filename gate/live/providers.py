"""Search providers record mode forwards to: a registry of known APIs, and the request for one query.

    name      endpoint                                          query  the key goes in
    serpapi   GET  https://serpapi.com/search.json (engine=google)  q      the api_key parameter
    brave     GET  https://api.search.brave.com/res/v1/web/search   q      X-Subscription-Token
    bing      GET  https://api.bing.microsoft.com/v7.0/search       q      Ocp-Apim-Subscription-Key
    tavily    POST https://api.tavily.com/search                    query  Authorization: Bearer
    exa       POST https://api.exa.ai/search                        query  x-api-key
    serper    POST https://google.serper.dev/search                 q      X-API-KEY

``record.search.<name>`` in ``sourcegate.yaml`` names a provider; for a known one every setting is
optional, any other needs its ``endpoint``. The key itself is never in the configuration: only the
name of the environment variable that holds it (``key_env``), read when a search is made. GET sends
the query and ``params`` in the query string; POST sends them as a JSON object, and so the request's
own parameters when the agent asked through the provider's route (they win over ``params``). ``key_in`` says
where the key goes: ``header:NAME``, ``query:NAME``, ``json:NAME`` or ``bearer`` (for any other
provider, ``header:X-Api-Key`` unless said). A secret in ``endpoint`` or ``params`` is refused.

Two providers also read pages for the agent, at the sibling of their search endpoint (the last
segment of its path replaced, its query kept), with the same key in the same place:

    tavily    POST https://api.tavily.com/extract      {"urls": [...], extract_depth, format, query, ...}
    exa       POST https://api.exa.ai/contents         {"urls": [...], text, highlights, livecrawl, ...}

The request carries the agent's own parameters but its key and its URLs (the URLs are sent as the
agent gave them); ``params`` are the search's and are not sent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from gate.config import SearchProviderConfig
from gate.errors import InputError
from gate.files.jsonio import excerpt, json_path
from gate.live.policy import AllowList
from gate.text.redact import is_secret_name, redact


@dataclass(frozen=True)
class SearchProvider:
    """How to ask one search API for one query."""

    name: str
    endpoint: str | None
    method: str = "GET"
    query_param: str = "q"
    key_env: str | None = None
    key_in: str = "header:X-Api-Key"
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    endpoint_env: str | None = None
    contents: str | None = None
    """the last path segment of the endpoint that reads pages (``extract``), beside the search's; None: none"""

    def sent(self, asked: Mapping[str, Any] | None) -> dict[str, Any]:
        """The parameters a search sends but its query and key: ``params``, and over them the ones
        ``asked`` (the agent's request), without any secret-named one."""
        values = {**self.params, **(asked or {})}
        _, _, key_name = self.key_in.partition(":")
        return {k: v for k, v in values.items() if k not in (self.query_param, key_name) and not is_secret_name(k)}

    def call(self, endpoint: str, query: str, key: str | None, asked: Mapping[str, Any] | None = None) -> Call:
        """The request for ``query`` at ``endpoint``, with ``key`` where the API expects it and the
        parameters :meth:`sent` says."""
        return self._keyed(self.method, endpoint, {**self.sent(asked), self.query_param: query}, key)

    def read_sent(self, asked: Mapping[str, Any] | None) -> dict[str, Any]:
        """The parameters a read of pages sends but its URLs and key: the agent's own (not ``params``)."""
        _, _, key_name = self.key_in.partition(":")
        return {k: v for k, v in (asked or {}).items()
                if k not in ("urls", "ids", key_name) and v is not None and not is_secret_name(k)}

    def read_call(self, endpoint: str, urls: list[str], key: str | None, asked: Mapping[str, Any] | None) -> Call:
        """The request that asks the provider to read ``urls`` at its contents ``endpoint`` (a JSON POST)."""
        return self._keyed("POST", endpoint, {**self.read_sent(asked), "urls": urls}, key)

    def _keyed(self, method: str, endpoint: str, values: dict[str, Any], key: str | None) -> Call:
        headers = {"Accept": "application/json"}
        if key is not None:
            place, _, name = self.key_in.partition(":")
            if place == "bearer":
                headers["Authorization"] = f"Bearer {key}"
            elif place == "header":
                headers[name] = key
            else:  # query or json: wherever the values go
                values[name] = key
        if method == "GET":
            return Call("GET", endpoint, params=MappingProxyType(values), json=None, headers=headers)
        return Call("POST", endpoint, params=MappingProxyType({}), json=values, headers=headers)


@dataclass(frozen=True)
class Call:
    """One HTTP request to a search API (it may hold the key: never stored or printed as it is)."""

    method: str
    url: str
    params: Mapping[str, Any]
    json: Mapping[str, Any] | None
    headers: Mapping[str, str]


SEARCH_PROVIDERS: Mapping[str, SearchProvider] = MappingProxyType({
    "serpapi": SearchProvider("serpapi", "https://serpapi.com/search.json", "GET", "q", "SERPAPI_API_KEY",
                        "query:api_key", MappingProxyType({"engine": "google"})),
    "brave": SearchProvider("brave", "https://api.search.brave.com/res/v1/web/search", "GET", "q", "BRAVE_API_KEY",
                      "header:X-Subscription-Token"),
    "bing": SearchProvider("bing", "https://api.bing.microsoft.com/v7.0/search", "GET", "q", "BING_SUBSCRIPTION_KEY",
                     "header:Ocp-Apim-Subscription-Key"),
    "tavily": SearchProvider("tavily", "https://api.tavily.com/search", "POST", "query", "TAVILY_API_KEY", "bearer",
                             contents="extract"),
    "exa": SearchProvider("exa", "https://api.exa.ai/search", "POST", "query", "EXA_API_KEY", "header:x-api-key",
                          contents="contents"),
    "serper": SearchProvider("serper", "https://google.serper.dev/search", "POST", "q", "SERPER_API_KEY",
                       "header:X-API-KEY"),
})


def provider_for(name: str, settings: SearchProviderConfig, allow: AllowList,
                 file: str | None = None) -> SearchProvider:
    """The provider ``record.search.<name>`` describes (a known one filled in); InputError when unusable."""
    at = ["record", "search", name]
    base = SEARCH_PROVIDERS.get(name, SearchProvider(name, None))
    overrides = {k: v for k, v in vars(settings).items() if v is not None}
    provider = SearchProvider(**{**vars(base), **overrides})
    if provider.endpoint is None and provider.endpoint_env is None:
        raise InputError(f"{name!r} is not a known provider ({', '.join(SEARCH_PROVIDERS)}): give its endpoint",
                         file=file, path=json_path(at))
    secret = next((k for k in provider.params if is_secret_name(k)), None)
    if secret is not None:
        name_it = secret if re.fullmatch(r"[A-Za-z0-9_.-]+", secret) else "NAME"
        raise InputError(f"the parameter {excerpt(repr(secret))} is a secret: keep keys out of sourcegate.yaml, "
                         f"name the environment variable that holds it with key_env (and key_in: query:{name_it})",
                         file=file, path=json_path([*at, "params", secret]))
    if provider.endpoint is not None:
        problem = endpoint_problem(provider.endpoint, allow)
        if problem is not None:
            raise InputError(problem, file=file, path=json_path([*at, "endpoint"]))
    return provider


def sibling(endpoint: str, segment: str) -> str:
    """``endpoint`` with the last segment of its path replaced by ``segment`` (its query kept):
    ``https://api.tavily.com/search`` -> ``https://api.tavily.com/extract``."""
    parts = urlsplit(endpoint)
    head, _, _ = parts.path.rstrip("/").rpartition("/")
    return urlunsplit(parts._replace(path=f"{head}/{segment}"))


def endpoint_problem(endpoint: str, allow: AllowList, *, from_env: bool = False) -> str | None:
    """Why a search endpoint cannot carry a key, or None. The message never holds a secret.

    An endpoint written in ``sourcegate.yaml`` (committed) may not hold a secret; one read from
    the environment (``endpoint_env``) may, and is redacted wherever it is shown."""
    shown = redact(endpoint)
    try:
        parts = urlsplit(endpoint)
        port = parts.port  # raises for a port that is not one
    except ValueError:
        return f"{shown} is not an http(s) URL"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"{shown} is not an http(s) URL"
    secrets = [name for name, _ in parse_qsl(parts.query, keep_blank_values=True) if is_secret_name(name)]
    if (secrets or parts.password) and not from_env:
        where = f"its query parameter {secrets[0]!r}" if secrets else "its userinfo"
        return (f"{shown} carries a secret in {where}: keep keys out of sourcegate.yaml, name the "
                "environment variable that holds it with key_env (and key_in, e.g. query:api_key)")
    if parts.scheme == "http" and not allow.names(parts.hostname, port or 80):
        return (f"{shown} would send the key in clear: use https, or list the host in record.allow "
                "(an intranet or loopback endpoint)")
    return None
