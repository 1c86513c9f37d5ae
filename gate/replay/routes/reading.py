"""A provider's reading of pages (Tavily's ``POST /extract``, Exa's ``POST /contents``), URL by URL.

A request is a :class:`ContentsAsk`: the provider, its URLs, the parameters that change what it
reads (an extraction depth, a format, a text limit, ...) and those a page the snapshot holds cannot
answer (a query that reranks the page into chunks). :func:`read_contents` answers each URL with the
first of:

1. the provider's own recording of that URL (:class:`gate.snapshot.records.ContentsRecord`), when
   the parameters that change the answer are the recording's (a recording that differs is a miss,
   which ``--record all`` records again, as for a search);
2. the page the snapshot holds of it (its extraction's text, the page's title), the recording of a
   snapshot built from runs or of a site read directly, unless the request asks for more than a page;
3. in record mode, the provider itself: the URLs nothing answers are sent to it in one request with
   the agent's own parameters (``--record all``: every URL, first), and what it says of each is
   recorded, or answered as it said it when it could not read one (never recorded);
4. a miss.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from gate.errors import LiveWebError, SnapshotMiss
from gate.model import NOT_IN_SNAPSHOT
from gate.replay.routes.frozen import FrozenWeb, PageRead, ReplaySource, answer_params, params_differ
from gate.snapshot.contents import Unread
from gate.snapshot.records import ContentsRecord
from gate.text.redact import is_secret_name, redact

__all__ = ["ContentsAsk", "ContentsRead", "read_contents"]


@dataclass(frozen=True)
class ContentsAsk:
    """One request for a provider to read pages, as the agent asked it (made by :meth:`of`)."""

    provider: str
    urls: tuple[str, ...]
    params: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """the parameters that change the answer, normalised (:func:`answer_params`)"""
    defaults: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    sent: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    """the request's parameters but its URLs and any secret: what record mode sends, and keeps"""
    beyond_page: str | None = None
    """why a page the snapshot holds cannot answer the request, or None"""

    @classmethod
    def of(cls, provider: str, urls: Sequence[str], given: Mapping[str, Any], defaults: Mapping[str, Any],
           beyond_page: Mapping[str, Any] = MappingProxyType({}), *,
           why: str = "asks for more than the page") -> ContentsAsk:
        """The request ``given`` (a JSON body) makes of ``urls``; ``beyond_page``: the parameters (with
        their defaults) a page cannot answer, and ``why``, said after their names."""
        sent = {k: v for k, v in given.items() if k not in ("urls", "ids") and v is not None and not is_secret_name(k)}
        beyond = answer_params(given, beyond_page)
        return cls(provider, tuple(dict.fromkeys(urls)), MappingProxyType(answer_params(given, defaults)),
                   MappingProxyType(dict(defaults)), MappingProxyType(sent),
                   f"{', '.join(sorted(beyond))} {why}" if beyond else None)


@dataclass(frozen=True)
class ContentsRead:
    """How one URL of a :class:`ContentsAsk` is answered: the provider's own reading (``own``), else the
    page the snapshot holds, else (record mode) the provider's failure to read it, else a miss and why."""

    url: str
    own: ContentsRecord | None = None
    page: PageRead | None = None
    unread: Unread | None = None
    miss: str | None = None


def read_contents(web: FrozenWeb, ask: ContentsAsk) -> tuple[ContentsRead, ...]:
    """How each URL of ``ask`` is answered (see the module docstring), in the order asked."""
    reads: dict[str, ContentsRead] = {}
    beyond: set[str] = set()  # held as pages, which cannot answer this request
    first = _reading(web, web.first, ask, ask.urls)
    for url in ask.urls:
        got = first.get(url)
        if got is not None:
            reads[url] = _own(url, got, ask)
        elif web.first is web.store:
            try:
                page = web.stored_page(url)
            except SnapshotMiss:
                continue
            if ask.beyond_page is None:
                reads[url] = ContentsRead(url, page=page)
            else:
                beyond.add(url)
    lacking = [u for u in ask.urls if u not in reads]
    if lacking and web.first is not web.source:  # record mode: the provider reads what nothing answers
        reads.update((u, _own(u, got, ask)) for u, got in _reading(web, web.source, ask, lacking).items())
    return tuple(reads.get(u) or ContentsRead(u, miss=ask.beyond_page if u in beyond else NOT_IN_SNAPSHOT)
                 for u in ask.urls)


def _own(url: str, got: ContentsRecord | Unread, ask: ContentsAsk) -> ContentsRead:
    """The provider's reading of ``url`` (as asked), or its failure; a recording with other parameters is a miss."""
    if isinstance(got, Unread):
        return ContentsRead(url, unread=got)
    why = params_differ(ask.params, got.params or {}, ask.defaults)
    return ContentsRead(url, own=got) if why is None else ContentsRead(url, miss=why)


def _reading(web: FrozenWeb, source: ReplaySource, ask: ContentsAsk,
             urls: Sequence[str]) -> Mapping[str, ContentsRecord | Unread]:
    """What ``source`` holds or reads of ``urls``; a failure of the whole request fails each URL."""
    try:
        found = source.contents(ask.provider, urls, ask.sent)
    except LiveWebError as e:
        return {u: Unread(u, redact(str(e), web.secrets)) for u in urls}
    return {u: got for u, got in found.items() if u in urls}
