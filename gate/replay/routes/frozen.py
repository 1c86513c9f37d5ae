"""What every route asks of the snapshot: a search as a provider was asked it, and a page read.

A search is a :class:`SearchAsk`: the provider, the query, how many results, and the parameters
that change the answer (a topic, domains, a time range), each route naming its own. It is
answered from the first recording of the query (:meth:`FrozenWeb.search`): the provider's own
(served as it came), else the one built from the runs (``trace``), else another provider's, whose
results the route renders in its own shape. It is a miss when nothing recorded the query, when a
parameter that changes the answer differs from the recording's (a recording that did not keep
them was asked with the provider's defaults), or when it asks for more results than were recorded.
A page is read from the page layer (status, final URL, dates) and its extraction (the clean text).

A provider's reading of pages (Tavily's extract, Exa's contents) is answered URL by URL
(:mod:`gate.replay.routes.reading`).

Record mode (the server's source records what the store lacks, :mod:`gate.replay.recording`): a
search or a page the store cannot answer, in any provider's recording, is asked of the source, which
records it live; a search goes to the provider with the request's own parameters (:attr:`SearchAsk.sent`),
kept in the record, and so does a provider's reading of pages: the provider reads them, not the
site. With ``afresh`` (``record`` mode, ``--record all``) the source is asked first.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

from gate.errors import InputError, LiveWebError, SnapshotMiss
from gate.model import NOT_IN_SNAPSHOT, NOT_RECORDED, SearchResult
from gate.replay.routes.wire import BadRequest, Request, Served, Unrecorded
from gate.snapshot.contents import Unread
from gate.snapshot.parsers import PARSERS, parse_results
from gate.snapshot.records import (
    ContentsRecord,
    ExchangeRecord,
    ExtractionRecord,
    PageRecord,
    SearchRecord,
    extraction_entry,
    normalise_query,
    page_entry,
)
from gate.snapshot.store import SnapshotStore
from gate.text.redact import is_secret_name, redact

NEUTRAL = "trace"
"""The provider of the entries built from recorded runs."""


class ReplaySource(Protocol):
    """Where the server's answers come from; :class:`SnapshotStore` is the replaying one."""

    def search(self, provider: str, query: str, params: Mapping[str, Any] | None = None) -> SearchRecord:
        """The answer of ``provider`` to ``query``; SnapshotMiss or LiveWebError when there is none.

        ``params``: the request's parameters but its query and key, as a provider's route read them
        (None from sourcegate's own ``GET /search``): a recording source sends them to the provider
        and keeps them in the record."""

    def page(self, url: str) -> PageRecord:
        """The fetch of ``url``; SnapshotMiss or LiveWebError when there is none."""

    def extraction(self, url: str) -> ExtractionRecord:
        """The extraction of ``url``; SnapshotMiss or LiveWebError when there is none."""

    def exchange(self, method: str, url: str, body: bytes, headers: Mapping[str, str]) -> ExchangeRecord:
        """The response to ``method`` of ``url`` with ``body`` (any other request at a host's real address);
        SnapshotMiss or LiveWebError when there is none. ``headers`` (names in lower case) go with a
        recording source's live request, credentials included, and are never kept."""
    def contents(self, provider: str, urls: Sequence[str],
                 params: Mapping[str, Any] | None = None) -> Mapping[str, ContentsRecord | Unread]:
        """What ``provider`` read of each of ``urls``: its record, or (record mode) why it read nothing; a
        URL the source has nothing for is left out (a miss); LiveWebError when the whole request failed.

        ``params``: the request's parameters but its URLs and key, as for :meth:`search`."""


def count_of(value: Any, name: str) -> int | None:
    """A count parameter (a number, or its digits in a query string); None when absent."""
    if value is None:
        return None
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise BadRequest(f"expected {name!r} to be a whole number, got {value!r}")
    return value


@dataclass(frozen=True)
class SearchAsk:
    """One search as the agent asked it; ``params`` already normalised (:func:`answer_params`).

    Made by :meth:`of` from the request's parameters; a recording's own parameters are read through
    ``defaults`` too, so that they compare in one spelling."""

    provider: str
    query: str
    count: int | None = None
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    count_param: str | None = None
    """The name the provider gives the count (``max_results``): a recording's ``params`` may hold the
    count it asked for, which tells a short list (all there was) from a cut one."""
    count_default: int | None = None
    """The count the provider (or its client, which sends it every time) uses unless told: a recording
    that did not keep its count was made with it, so asking for it asks for no more than was recorded."""
    defaults: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """The provider's parameters that change the answer, with their defaults (the route's table)."""
    sent: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """The request's parameters as the agent wrote them, but its query and any secret (a key): what
    record mode sends the provider, and keeps in the record."""

    @classmethod
    def of(cls, provider: str, query: str, given: Mapping[str, Any], defaults: Mapping[str, Any],
           count_param: str, count_default: int, *, query_param: str) -> SearchAsk:
        """The search ``given`` asks (a JSON body, or a query string's values): its count, its
        parameters that change the answer, and what record mode would send."""
        sent = {k: v for k, v in given.items() if k != query_param and v is not None and not is_secret_name(k)}
        return cls(provider, query, count_of(given.get(count_param), count_param), answer_params(given, defaults),
                   count_param=count_param, count_default=count_default, defaults=MappingProxyType(dict(defaults)),
                   sent=MappingProxyType(sent))


@dataclass(frozen=True)
class SearchFound:
    """The recording that answers a search: ``own`` when it is the provider's own JSON; ``results``
    the recorded results cut to the count asked."""

    record: SearchRecord
    results: tuple[SearchResult, ...]
    own: bool


@dataclass(frozen=True)
class PageRead:
    """A page as the snapshot holds it: ``text`` is the extraction's clean text, else the page's body."""

    url: str
    text: str
    page: PageRecord | None
    extraction: ExtractionRecord | None

    def served(self, provider: str, request: Request) -> Served:
        """The read as a case's scope keeps it (the body in the shape of ``/fetch`` or ``/extract``)."""
        if self.page is None:
            assert self.extraction is not None
            body = public_entry(extraction_entry(self.extraction))
            return Served("extractions", self.url, provider, body, True, request.target)
        body = {**public_entry(page_entry(self.page)), "body": self.text}
        if self.extraction is not None and self.extraction.published is not None:
            body["published"] = self.extraction.published.isoformat()
        return Served("pages", self.url, provider, body, True, request.target)


def answer_params(given: Mapping[str, Any], defaults: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters of ``given`` named in ``defaults`` that change the answer, in one spelling each:
    a default value, None, an empty list or string left out; a list of strings sorted (the order of
    domains says nothing), strings lower-cased (the APIs read them so); the query is not one of them."""
    out: dict[str, Any] = {}
    for name, default in defaults.items():
        value = given.get(name)
        if isinstance(value, str):  # a query string's text for a number, a flag or a list
            if isinstance(default, bool) and value.strip().lower() in ("true", "false"):
                value = value.strip().lower() == "true"
            elif isinstance(default, int) and not isinstance(default, bool) and value.strip().isdigit():
                value = int(value)
            elif isinstance(default, list):
                value = [v.strip() for v in value.split(",")]
        if isinstance(value, (list, tuple)):
            value = sorted({str(v).strip().lower() for v in value if str(v).strip()})
        elif isinstance(value, str):
            value = value.strip().lower()  # "US" and "us", "Moderate" and "moderate": one setting
        if isinstance(default, str):
            default = default.lower()
        if value is None or value == default or value in ("", []):
            continue
        out[name] = value
    return out


class FrozenWeb:
    """The snapshot as the routes read it: through the server's source (the store, or record mode's
    live web behind it) for the provider's own answers and pages, and the store for the rest."""

    def __init__(self, source: ReplaySource, store: SnapshotStore, secrets: tuple[str, ...] = (), *,
                 afresh: bool = False) -> None:
        """Read ``store``, and through ``source`` what it lacks (the same store when replaying).

        ``secrets``: the values never to be answered (the keys a recording source holds); ``afresh``:
        the source records everything again, so it is asked before the store."""
        self.source, self.store, self.secrets = source, store, secrets
        self.first: ReplaySource = source if afresh else store
        """what is asked first: the store, or with ``afresh`` the source"""

    def search(self, ask: SearchAsk, request: Request,
               echoed: Callable[[Any], Mapping[str, Any]] | None = None) -> SearchFound | tuple[Served, str]:
        """The recording that answers ``ask``, or the miss and the message its client gets.

        ``echoed`` reads the parameters the provider's own JSON repeats (SerpApi's
        ``search_parameters``), for a recording that did not keep them."""
        try:
            record = self._record(ask)
        except SnapshotMiss as e:
            return self._miss(ask, request, NOT_IN_SNAPSHOT, str(e))
        except LiveWebError as e:  # record mode: nothing to record, so the case lacks it
            served, _ = self._miss(ask, request, f"{NOT_RECORDED}: {redact(str(e), self.secrets)}", "")
            raise Unrecorded(e, served) from e
        own = record.provider == ask.provider
        try:
            results = parse_results(record.response, record.provider)
        except InputError:
            if not own:
                raise
            results = ()  # the provider's own JSON is served as it came, results or not
        kept = dict(record.params) if record.params is not None else (
            dict(echoed(record.response)) if echoed is not None and own else {})
        asked = _recorded_count(kept.get(ask.count_param)) if ask.count_param else None
        why = params_differ(ask.params, kept, ask.defaults)
        if why is not None:
            return self._miss(ask, request, why, f"{why} (recorded by {record.provider!r})")
        # fewer results than the recording asked for are all there were; otherwise more may exist
        exhausted = isinstance(asked, int) and len(results) < asked
        if ask.count is not None and ask.count > len(results) and ask.count != ask.count_default and not exhausted:
            why = f"asks for {ask.count} results, the recording has {len(results)}"
            return self._miss(ask, request, why, f"{why}: record it again with the larger count")
        return SearchFound(record, results[:ask.count] if ask.count is not None else results, own)

    def read(self, url: str) -> PageRead:
        """The page at ``url`` and its extraction; SnapshotMiss when the snapshot holds neither (in record
        mode, LiveWebError when the live web gave nothing to record)."""
        try:
            return self._read(self.first, url)
        except SnapshotMiss:
            if self.first is self.source:
                raise
        return self._read(self.source, url)  # record mode: what the store lacks, recorded

    def stored_page(self, url: str) -> PageRead:
        """The page at ``url`` as the store holds it, never asked of the live web; SnapshotMiss without one."""
        return self._read(self.store, url)

    def _read(self, source: ReplaySource, url: str) -> PageRead:
        page = extraction = None
        missing: SnapshotMiss | None = None
        try:
            page = source.page(url)
        except SnapshotMiss as e:
            missing = e
        try:
            extraction = self.store.extraction(url) if page is not None else source.extraction(url)
        except SnapshotMiss:
            if page is None:
                assert missing is not None
                raise missing from None
        text = extraction.text if extraction is not None else page.body if page is not None else ""
        return PageRead(url, text, page, extraction)

    def _record(self, ask: SearchAsk) -> SearchRecord:
        """The first recording of the query: the provider's own, then any other's the store holds; in
        record mode, what none holds is asked of the source, with the request's parameters."""
        try:
            return self.first.search(ask.provider, ask.query, ask.sent)
        except SnapshotMiss as first:
            for other in (NEUTRAL, *PARSERS):
                if other != ask.provider:
                    try:
                        return self.store.search(other, ask.query)
                    except SnapshotMiss:
                        continue
            if self.first is self.source:
                raise first from None
        return self.source.search(ask.provider, ask.query, ask.sent)  # record mode: recorded live

    @staticmethod
    def _miss(ask: SearchAsk, request: Request, reason: str, message: str) -> tuple[Served, str]:
        served = Served("search", normalise_query(ask.query), ask.provider, None, False, request.target, reason)
        return served, message


def params_differ(asked: Mapping[str, Any], kept: Mapping[str, Any], defaults: Mapping[str, Any]) -> str | None:
    """How the parameters ``asked`` (normalised) differ from those a recording ``kept`` (read through
    ``defaults``): the first that differs, by name, or None when the recording answers them."""
    recorded = answer_params(kept, defaults)
    for name in sorted(set(asked) | set(recorded)):
        if asked.get(name) != recorded.get(name):
            return f"{name} {_shown(asked.get(name))} differs from the recording's {_shown(recorded.get(name))}"
    return None


def _recorded_count(value: Any) -> int | None:
    """The count a recording asked for (a number, or its digits as a query string kept it)."""
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _shown(value: Any) -> str:
    return "(none: the provider's default)" if value is None else repr(value)


def public_entry(entry: Mapping[str, Any]) -> dict[str, Any]:
    """An entry as the agent sees it: the recording, without the snapshot's bookkeeping."""
    return {k: v for k, v in entry.items() if k not in ("format", "key")}
