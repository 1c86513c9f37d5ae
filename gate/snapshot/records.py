"""The snapshot's formats: their values, their keys and their JSON entries.

    layer         folder          format                     key: sha256 of
    search        search/         sourcegate-search/1        provider + the query, whitespace collapsed
    page          pages/          sourcegate-page/1          gate.urls.canonical(url)
    extraction    extractions/    sourcegate-extraction/1    gate.urls.canonical(url)
    contents      contents/       sourcegate-contents/1      provider + gate.urls.canonical(url)
    exchange      exchanges/      sourcegate-exchange/1      the method, the URL and the body, secrets left out

A key holds exactly what identifies an entry. Query case is kept (search engines treat "US" and
"us" differently); only whitespace is collapsed, because no engine reads it. Pages are keyed by
the canonical URL, the same key the checks use to match a citation to what was read. A page read
through a provider (Tavily's extract, Exa's contents) is the provider's answer, not the site's: it
is keyed by the provider too, beside the page the site itself answered. An exchange is any other
request the agent sent to a host at its real address (a ``POST`` to a page-reading API, say) and
the response it got, matched as VCR matches them: on the method, the URL and the body, where a
query parameter or a top-level JSON member with a secret's name (``api_key``, ``token``, ...) is left
out of both the key and the entry, and a JSON body is compared whatever the order of its members.
Everything here is pure: the store does the reading and writing.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from gate.errors import InputError
from gate.files.jsonio import parse_time
from gate.text.redact import is_secret_name
from gate.urls import canonical
from gate.urls.anchors import Anchor

SEARCH_FORMAT = "sourcegate-search/1"
PAGE_FORMAT = "sourcegate-page/1"
EXTRACTION_FORMAT = "sourcegate-extraction/1"
EXCHANGE_FORMAT = "sourcegate-exchange/1"
CONTENTS_FORMAT = "sourcegate-contents/1"


@dataclass(frozen=True)
class Layer:
    """One cache layer: its name, its folder under ``snapshot/``, its schema and format."""

    name: str
    folder: str
    schema: str
    format: str


SEARCH = Layer("search", "search", "snapshot-search", SEARCH_FORMAT)
PAGES = Layer("page", "pages", "snapshot-page", PAGE_FORMAT)
EXTRACTIONS = Layer("extraction", "extractions", "snapshot-extraction", EXTRACTION_FORMAT)
EXCHANGES = Layer("exchange", "exchanges", "snapshot-exchange", EXCHANGE_FORMAT)
CONTENTS = Layer("contents", "contents", "snapshot-contents", CONTENTS_FORMAT)
LAYERS = (SEARCH, PAGES, EXTRACTIONS, CONTENTS, EXCHANGES)


@dataclass(frozen=True)
class SearchRecord:
    """What one search API returned for one query: the provider's JSON, kept as it came."""

    provider: str
    query: str
    response: Any
    recorded_at: datetime | None = None
    params: Mapping[str, Any] | None = None
    """The request's parameters (a topic, domains, a time range, the count), as the provider names them,
    without its query and key: record mode keeps those it sent; replay compares those that change the
    answer (:mod:`gate.replay.routes`). None when the recording did not say, which replay reads as
    the provider's defaults."""


@dataclass(frozen=True)
class PageRecord:
    """One page fetch. An HTTP 404 is a recording like any other: the status is the data."""

    url: str
    status: int | None
    body: str
    final_url: str | None = None
    content_type: str | None = None
    fetched_at: datetime | None = None
    truncated: bool = False


@dataclass(frozen=True)
class ExtractionRecord:
    """The clean text of a page, its publication date and its links."""

    url: str
    text: str
    published: date | None = None
    anchors: tuple[Anchor, ...] = ()


@dataclass(frozen=True)
class ExchangeRecord:
    """One request other than a page read or a search, and the response it got (:func:`exchange_key`)."""

    method: str
    url: str
    """the URL requested, its secret-named query parameters left out"""
    request_body: str
    """the request's body as text ("" without one), its secret-named JSON members left out"""
    status: int
    body: str
    """the response's body as text"""
    content_type: str | None = None
    recorded_at: datetime | None = None


@dataclass(frozen=True)
class ContentsRecord:
    """What one provider answered when asked to read one URL (Tavily's ``/extract``, Exa's ``/contents``).

    ``response`` is the provider's answer narrowed to this URL: each of its per-URL lists (Tavily's
    ``results``, Exa's ``results`` and ``statuses``) holding this URL's items as they came, the key
    scrubbed out (:mod:`gate.snapshot.contents`). ``params``: the request's parameters but its URLs and
    key, as for a search."""

    provider: str
    url: str
    response: Mapping[str, Any]
    recorded_at: datetime | None = None
    params: Mapping[str, Any] | None = None


def normalise_query(query: str) -> str:
    """Collapse runs of whitespace and trim the ends; nothing else (case matters to search engines)."""
    return " ".join(query.split())


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def search_key(provider: str, query: str) -> str:
    """The file name (without ``.json``) of a search entry."""
    return _sha256(json.dumps([provider, normalise_query(query)], ensure_ascii=False))


def url_key(url: str) -> str:
    """The file name (without ``.json``) of a page or extraction entry."""
    return _sha256(canonical(url))


def exchange_url(url: str) -> str:
    """``url`` without its query parameters whose names are a secret's (``api_key=...``)."""
    parts = urlsplit(url)
    if not parts.query:
        return url
    kept = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if not is_secret_name(k)]
    return urlunsplit(parts._replace(query=urlencode(kept)))


def exchange_body(body: str) -> str:
    """A request body as an exchange keeps it: a JSON object without its secret-named members, written
    with its members sorted (the order a client sends them in does not matter); any other body as it is."""
    try:
        data = json.loads(body)
    except ValueError:
        return body
    if isinstance(data, dict):
        data = {k: v for k, v in data.items() if not is_secret_name(k)}
    return json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def exchange_key(method: str, url: str, body: str) -> str:
    """The file name (without ``.json``) of an exchange entry: the method, the canonical URL without its
    secrets and the body as :func:`exchange_body` keeps it."""
    return _sha256(json.dumps([method.upper(), canonical(exchange_url(url)), exchange_body(body)], ensure_ascii=False))
def contents_key(provider: str, url: str) -> str:
    """The file name (without ``.json``) of a contents entry: the provider and the canonical URL."""
    return _sha256(json.dumps([provider, canonical(url)], ensure_ascii=False))


def _time(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat().replace("+00:00", "Z")


def _parse_time(value: str | None, file: str, path: str) -> datetime | None:
    if value is None:
        return None
    try:
        return parse_time(value)
    except ValueError:
        raise InputError(f"{value!r} is not an RFC 3339 date-time with a time zone "
                         "(e.g. 2026-10-15T09:00:00Z)", file=file, path=path) from None


def _parse_date(value: str | None) -> date | None:
    # The schema's "date" format has already been checked, so this cannot fail.
    return None if value is None else date.fromisoformat(value)


def search_entry(record: SearchRecord) -> dict[str, Any]:
    """The JSON entry of a search record (the query stored normalised, as it is keyed)."""
    return {
        "format": SEARCH_FORMAT,
        "key": search_key(record.provider, record.query),
        "provider": record.provider,
        "query": normalise_query(record.query),
        "recorded_at": _time(record.recorded_at),
        "response": record.response,
        **({} if record.params is None else {"params": dict(record.params)}),
    }


def page_entry(record: PageRecord) -> dict[str, Any]:
    """The JSON entry of a page record."""
    return {
        "format": PAGE_FORMAT,
        "key": url_key(record.url),
        "url": record.url,
        "status": record.status,
        "final_url": record.final_url,
        "content_type": record.content_type,
        "fetched_at": _time(record.fetched_at),
        "truncated": record.truncated,
        "body": record.body,
    }


def extraction_entry(record: ExtractionRecord) -> dict[str, Any]:
    """The JSON entry of an extraction record."""
    return {
        "format": EXTRACTION_FORMAT,
        "key": url_key(record.url),
        "url": record.url,
        "published": None if record.published is None else record.published.isoformat(),
        "anchors": [{"href": a.href, "text": a.text} for a in record.anchors],
        "text": record.text,
    }


def exchange_entry(record: ExchangeRecord) -> dict[str, Any]:
    """The JSON entry of an exchange record (its URL and body as they are keyed, secrets left out)."""
    return {
        "format": EXCHANGE_FORMAT,
        "key": exchange_key(record.method, record.url, record.request_body),
        "method": record.method.upper(),
        "url": exchange_url(record.url),
        "request_body": exchange_body(record.request_body),
        "status": record.status,
        "content_type": record.content_type,
        "recorded_at": _time(record.recorded_at),
        "body": record.body,
    }


def exchange_record(data: Mapping[str, Any], file: str) -> ExchangeRecord:
    """An exchange record from an entry that passed its schema."""
    return ExchangeRecord(method=data["method"], url=data["url"], request_body=data["request_body"],
                          status=data["status"], body=data["body"], content_type=data["content_type"],
                          recorded_at=_parse_time(data["recorded_at"], file, "$.recorded_at"))


def contents_entry(record: ContentsRecord) -> dict[str, Any]:
    """The JSON entry of a contents record."""
    return {
        "format": CONTENTS_FORMAT,
        "key": contents_key(record.provider, record.url),
        "provider": record.provider,
        "url": record.url,
        "recorded_at": _time(record.recorded_at),
        "response": dict(record.response),
        **({} if record.params is None else {"params": dict(record.params)}),
    }


def search_record(data: Mapping[str, Any], file: str) -> SearchRecord:
    """A search record from an entry that passed its schema."""
    return SearchRecord(provider=data["provider"], query=data["query"], response=data["response"],
                        recorded_at=_parse_time(data["recorded_at"], file, "$.recorded_at"),
                        params=data.get("params"))


def page_record(data: Mapping[str, Any], file: str) -> PageRecord:
    """A page record from an entry that passed its schema."""
    return PageRecord(url=data["url"], status=data["status"], body=data["body"], final_url=data["final_url"],
                      content_type=data["content_type"], truncated=data.get("truncated", False),
                      fetched_at=_parse_time(data["fetched_at"], file, "$.fetched_at"))


def extraction_record(data: Mapping[str, Any], file: str) -> ExtractionRecord:
    """An extraction record from an entry that passed its schema."""
    del file  # every field is checked by the schema; kept for a uniform signature
    anchors = tuple(Anchor(href=a["href"], text=a["text"]) for a in data["anchors"])
    return ExtractionRecord(url=data["url"], text=data["text"], published=_parse_date(data["published"]),
                            anchors=anchors)


def contents_record(data: Mapping[str, Any], file: str) -> ContentsRecord:
    """A contents record from an entry that passed its schema."""
    return ContentsRecord(provider=data["provider"], url=data["url"], response=data["response"],
                          recorded_at=_parse_time(data["recorded_at"], file, "$.recorded_at"),
                          params=data.get("params"))


def entry_key(layer: Layer, data: Mapping[str, Any]) -> str:
    """The key an entry's own content gives (compared with its file name on load)."""
    if layer is SEARCH:
        return search_key(data["provider"], data["query"])
    if layer is EXCHANGES:
        return exchange_key(data["method"], data["url"], data["request_body"])
    if layer is CONTENTS:
        return contents_key(data["provider"], data["url"])
    return url_key(data["url"])
