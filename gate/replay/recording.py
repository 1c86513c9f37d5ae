"""Record mode: the replay server's answers, with what the snapshot lacks fetched live and stored.

    mode           a request the snapshot holds           a request it lacks
    replay         answered from the snapshot             404 miss, never a live call (``serve``'s default)
    new-episodes   answered from the snapshot             fetched live, stored, answered (``record``'s default)
    record         fetched live once per session and      fetched live, stored, answered
                   stored again; later requests in the
                   same session get what it recorded

``new-episodes`` and ``record`` are the VCR modes of the same names (``record`` is VCR's ``all``).
A search goes to the provider ``record.search`` configures; so does a provider's reading of pages
(Tavily's extract, Exa's contents): the provider reads them, with the agent's own parameters, and
what it answered of each URL is stored (:mod:`gate.snapshot.contents`); a fetch is a guarded live GET
(:class:`gate.live.LiveWeb`). A fetched page is stored with its extraction
(:func:`gate.snapshot.extract.extract_page`); ``/extract`` of a page the snapshot holds without its
extraction derives it from the stored page, without the network. Failures (a refused address, a
body over the cap, a timeout, a provider's error, a transient HTTP status, a URL the provider could
not read) are answered to the client and never stored: the next session tries again. An entry
recorded again with the same content keeps its ``recorded_at`` or ``fetched_at``, so its file does
not change: only what the web changed shows in the diff and bumps the version.

:class:`RecordingSource` notes each entry a session added or changed; :func:`finish` says which on
the log, writes them to ``snapshot/RECORDED.json`` (``sourcegate-recorded/2``) and bumps the golden
set's ``version`` (see :mod:`gate.snapshot.version`), since its baseline was measured on a web that
no longer is the snapshot's. While it serves, each entry recorded is reported to the
:class:`gate.term.progress.Progress` it is given (the total is unknown: the agent decides).
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, replace
from typing import Any, TextIO, TypeVar

from gate.errors import InputError, LiveWebError, SnapshotMiss
from gate.files.jsonio import dump_json, validate
from gate.files.outputs import write_file
from gate.live.web import LiveWeb
from gate.replay.serve import DEFAULT_HOST, ReplayServer
from gate.snapshot.contents import Unread
from gate.snapshot.extract import extract_page
from gate.snapshot.records import (
    CONTENTS,
    EXCHANGES,
    EXTRACTIONS,
    PAGES,
    SEARCH,
    ContentsRecord,
    ExchangeRecord,
    ExtractionRecord,
    Layer,
    PageRecord,
    SearchRecord,
    contents_key,
    exchange_key,
    normalise_query,
    search_key,
    url_key,
)
from gate.snapshot.store import SnapshotStore, page_failure, snapshot_dir
from gate.snapshot.version import VersionBump, bump_version
from gate.term.progress import NullProgress, Progress
from gate.text.redact import redact

_T = TypeVar("_T")

REPLAY, NEW_EPISODES, RECORD = "replay", "new-episodes", "record"
MODES = (REPLAY, NEW_EPISODES, RECORD)
RECORDED_FILE = "RECORDED.json"
RECORDED_FORMAT = "sourcegate-recorded/2"


@dataclass(frozen=True)
class Recorded:
    """One entry a session wrote: ``added`` (new) or ``updated`` (its content changed)."""

    layer: str
    key: str
    change: str
    file: str
    provider: str | None = None
    query: str | None = None
    url: str | None = None

    def describe(self) -> str:
        """One line: what the snapshot now holds that it did not."""
        what = (f"{self.provider}: {self.query!r}" if self.layer == SEARCH.name
                else f"{self.url} (read by {self.provider})" if self.layer == CONTENTS.name else str(self.url))
        return f"{self.change} {self.layer} {what} ({self.file})"


@dataclass(frozen=True)
class Failed:
    """A live request that gave nothing to record (its message already redacted)."""

    layer: str
    what: str
    reason: str


class RecordingSource:
    """A :class:`gate.replay.routes.frozen.ReplaySource`: the store in front, the live web behind it."""

    def __init__(self, store: SnapshotStore, web: LiveWeb, mode: str, progress: Progress | None = None) -> None:
        """Answer from ``store``, recording through ``web`` as ``mode`` says (new-episodes or record).

        ``progress`` hears of each entry recorded (default: nowhere).
        """
        if mode not in (NEW_EPISODES, RECORD):
            raise ValueError(f"a recording source records: {mode!r} is not {NEW_EPISODES!r} or {RECORD!r}")
        self.store, self.web, self.mode = store, web, mode
        self._lock = threading.Lock()
        self._keys: dict[tuple[str, str], threading.Lock] = {}  # one live request per key at a time
        self._done: set[tuple[str, str]] = set()  # (layer, key) recorded in this session
        self._recorded: dict[tuple[str, str], Recorded] = {}
        self._failed: list[Failed] = []
        self._progress: Progress = progress or NullProgress()

    @property
    def secrets(self) -> tuple[str, ...]:
        """The provider keys in the environment: never logged, answered or stored."""
        names = [p.key_env for p in self.web.providers.values() if p.key_env]
        names += [p.endpoint_env for p in self.web.providers.values() if p.endpoint_env]
        return tuple(v for n in names if n is not None and (v := self.web.environ.get(n)))

    def recorded(self) -> tuple[Recorded, ...]:
        """The entries this session added or changed, by layer then by what they hold."""
        with self._lock:
            entries = list(self._recorded.values())
        return tuple(sorted(entries, key=lambda r: (r.layer, r.provider or "", r.query or r.url or "")))

    def failed(self) -> tuple[Failed, ...]:
        """The live requests that gave nothing to record, in order."""
        with self._lock:
            return tuple(self._failed)

    # ------------------------------------------------------------------------------ the Source seam

    def search(self, provider: str, query: str, params: Mapping[str, Any] | None = None) -> SearchRecord:
        """The stored answer, or the provider's live one (stored, the key scrubbed out); ``params``, the
        request's own (a provider's route read them), go to the provider and are kept in the record."""
        key = search_key(provider, query)
        with self._one(SEARCH, key):
            if self._replays(SEARCH, key):
                return self.store.search(provider, query)
            record: SearchRecord = self._live(SEARCH, f"{provider}: {normalise_query(query)!r}",
                                              lambda: self.web.search(provider, query, params))
            old = self._stored(SEARCH, key, lambda: self.store.search(provider, query))
            if old is not None and _answer(old) == _answer(record):
                record = old  # the same answer again: recorded when it was first given
            self._keep(SEARCH, key, lambda: self.store.put_search(record), provider=provider, query=record.query)
            return record

    def page(self, url: str) -> PageRecord:
        """The stored fetch, or a live one (stored with its extraction)."""
        key = url_key(url)
        with self._one(PAGES, key):
            if self._replays(PAGES, key):
                return self.store.page(url)
            record: PageRecord = self._live(PAGES, url, lambda: self._fetch(url))
            old = self._stored(PAGES, key, lambda: self.store.page(url))
            if old is not None and replace(old, fetched_at=None) == replace(record, fetched_at=None):
                record = old  # the same page again: it keeps its fetched_at, and its file is unchanged
            self._keep(PAGES, key, lambda: self.store.put_page(record), url=url)
            extraction = extract_page(record)
            self._keep(EXTRACTIONS, key, lambda: self.store.put_extraction(extraction), url=url)
            return record

    def extraction(self, url: str) -> ExtractionRecord:
        """The stored extraction, or one derived from the page (stored or fetched live)."""
        key = url_key(url)
        with self._one(EXTRACTIONS, key):  # before the page's lock, always: no two orders, no deadlock
            if self._replays(EXTRACTIONS, key):
                return self.store.extraction(url)
            extraction = extract_page(self.page(url))
            self._keep(EXTRACTIONS, key, lambda: self.store.put_extraction(extraction), url=url)
            return extraction

    def exchange(self, method: str, url: str, body: bytes, headers: Mapping[str, str]) -> ExchangeRecord:
        """The stored response, or the host's live one to the agent's own request (stored, its
        credentials redacted); a transient failure (408, 429, 5xx) is never stored."""
        text = body.decode("utf-8", "replace")
        key = exchange_key(method, url, text)
        with self._one(EXCHANGES, key):
            if self._replays(EXCHANGES, key):
                return self.store.exchange(method, url, body)
            record: ExchangeRecord = self._live(EXCHANGES, f"{method} {url}",
                                                lambda: self._exchange(method, url, body, headers))
            old = self._stored(EXCHANGES, key, lambda: self.store.exchange(method, url, body))
            if old is not None and replace(old, recorded_at=None) == replace(
                    record, url=old.url, request_body=old.request_body, recorded_at=None):
                record = old  # the same answer again: it keeps its recorded_at, and its file is unchanged
            self._keep(EXCHANGES, key, lambda: self.store.put_exchange(record), url=f"{method} {url}")
            return record

    # ------------------------------------------------------------------------------------- helpers

    def _exchange(self, method: str, url: str, body: bytes, headers: Mapping[str, str]) -> ExchangeRecord:
        record = self.web.exchange(method, url, headers, body)
        why = page_failure(record.status)
        if why is not None:
            raise LiveWebError(f"{method} {redact(url)}: {why}; not recorded, the next request tries again")
        return record
    def contents(self, provider: str, urls: Sequence[str],
                 params: Mapping[str, Any] | None = None) -> dict[str, ContentsRecord | Unread]:
        """What ``provider`` read of each URL: stored, or read live (the URLs the session has not recorded
        sent in one request, with the agent's ``params``) and stored; a URL it did not read is answered as it
        said it, and never stored."""
        keys = {url: contents_key(provider, url) for url in dict.fromkeys(urls)}
        out: dict[str, ContentsRecord | Unread] = {}
        with ExitStack() as held:
            for key in sorted(set(keys.values())):  # always in one order: no two requests deadlock
                held.enter_context(self._one(CONTENTS, key))
            wanted = [u for u, k in keys.items() if not self._replays(CONTENTS, k)]
            out.update(self.store.contents(provider, [u for u in keys if u not in wanted]))
            if wanted:
                out.update(self._read_live(provider, wanted, params, keys))
        return {u: out[u] for u in keys if u in out}

    def _read_live(self, provider: str, urls: list[str], params: Mapping[str, Any] | None,
                   keys: Mapping[str, str]) -> dict[str, ContentsRecord | Unread]:
        try:
            read = self.web.contents(provider, urls, params)
        except LiveWebError as e:
            with self._lock:
                self._failed.extend(Failed(CONTENTS.name, redact(f"{u} (read by {provider})", self.secrets),
                                           redact(str(e), self.secrets)) for u in urls)
            raise
        out: dict[str, ContentsRecord | Unread] = {}
        for url, got in read.items():
            if isinstance(got, Unread):
                with self._lock:
                    self._failed.append(Failed(CONTENTS.name, redact(f"{url} (read by {provider})", self.secrets),
                                               redact(got.reason, self.secrets)))
                out[url] = got
                continue
            old = self._stored(CONTENTS, keys[url], functools.partial(self._stored_contents, provider, url))
            same = old is not None and replace(old, recorded_at=None) == replace(got, recorded_at=None)
            record = old if same and old is not None else got  # the same reading again keeps its recorded_at
            self._keep(CONTENTS, keys[url], functools.partial(self.store.put_contents, record), provider=provider,
                       url=url)
            out[url] = record
        return out

    # ------------------------------------------------------------------------------------- helpers

    def _stored_contents(self, provider: str, url: str) -> ContentsRecord | None:
        return self.store.contents(provider, [url]).get(url)

    def _one(self, layer: Layer, key: str) -> threading.Lock:
        """The lock of one entry: concurrent requests for it wait for one live answer (a paid search once)."""
        with self._lock:
            return self._keys.setdefault((layer.name, key), threading.Lock())

    def _replays(self, layer: Layer, key: str) -> bool:
        with self._lock:
            if (layer.name, key) in self._done:
                return True
        return self.mode == NEW_EPISODES and os.path.isfile(self.store.path(layer, key))

    def _stored(self, layer: Layer, key: str, read: Callable[[], _T]) -> _T | None:
        """What the store holds under ``key`` (``record`` mode re-records it), or None."""
        if not os.path.isfile(self.store.path(layer, key)):
            return None
        try:
            return read()
        except SnapshotMiss:
            return None

    def _fetch(self, url: str) -> PageRecord:
        record = self.web.fetch(url)
        why = page_failure(record.status)
        if why is not None:
            raise LiveWebError(f"{redact(url)}: {why}; not recorded, the next request tries again")
        return record

    def _live(self, layer: Layer, what: str, call: Callable[[], Any]) -> Any:
        try:
            return call()
        except LiveWebError as e:
            with self._lock:
                self._failed.append(Failed(layer.name, redact(what, self.secrets), redact(str(e), self.secrets)))
            raise

    def _keep(self, layer: Layer, key: str, put: Callable[[], bool], **what: str) -> None:
        file = self.store.path(layer, key)
        existed = os.path.isfile(file)
        changed = put()
        relative = os.path.relpath(file, self.store.golden_root).replace(os.sep, "/")
        with self._lock:
            self._done.add((layer.name, key))
            new = changed and (layer.name, key) not in self._recorded
            if new:
                self._recorded[(layer.name, key)] = Recorded(layer.name, key, "updated" if existed else "added",
                                                             relative, **what)
        if new:
            self._progress.advance(1)


def _answer(record: SearchRecord) -> tuple[Any, ...]:
    """What a search record says, but when it was recorded."""
    return record.provider, record.query, record.response, record.params


# ------------------------------------------------------------------------------------ the session

@dataclass(frozen=True)
class Session:
    """What a recording session changed: its entries, its failures and the version bump."""

    mode: str
    recorded: tuple[Recorded, ...]
    failed: tuple[Failed, ...]
    bump: VersionBump | None
    report: str | None
    notes: tuple[str, ...] = ()

    def summary(self) -> str:
        """The lines said at the end of the session."""
        if not self.recorded:
            lines = [f"sourcegate snapshot: {self.mode}: nothing new recorded"]
        else:
            lines = [f"sourcegate snapshot: {self.mode}: {len(self.recorded)} entr"
                     f"{'y' if len(self.recorded) == 1 else 'ies'} recorded (listed in {self.report}):"]
            lines += [f"  {r.describe()}" for r in self.recorded]
        lines += [f"  not recorded: {f.what}: {f.reason}" for f in self.failed]
        if self.bump is not None:
            lines.append(f"sourcegate snapshot: {self.bump.describe()}")
        lines += [f"sourcegate snapshot: {n}" for n in self.notes]
        return "\n".join(lines)


def recorded_document(mode: str, recorded: tuple[Recorded, ...], bump: VersionBump | None) -> dict[str, Any]:
    """The ``sourcegate-recorded/2`` document of a session (pure)."""
    entries: list[Mapping[str, Any]] = [
        {k: v for k, v in vars(r).items() if v is not None} for r in recorded]
    return {"format": RECORDED_FORMAT, "mode": mode,
            "version": None if bump is None else {"from": bump.old, "to": bump.new},
            "entries": entries}


def finish(source: RecordingSource, golden_root: str) -> Session:
    """End a session: when it changed entries, list them in RECORDED.json and bump the version."""
    recorded = source.recorded()
    if not recorded:
        return Session(source.mode, (), source.failed(), None, None)
    notes: tuple[str, ...] = ()
    try:
        bump = bump_version(golden_root)
    except InputError as e:  # the entries are stored: still list them, and say what to do by hand
        bump, notes = None, (str(e),)
    report = os.path.join(source.store.root, RECORDED_FILE)
    document = recorded_document(source.mode, recorded, bump)
    validate(document, "snapshot-recorded", report)
    write_file(report, dump_json(document), within=golden_root)
    return Session(source.mode, recorded, source.failed(), bump, report, notes)


def serve_recording(golden_root: str, web: LiveWeb, mode: str, host: str = DEFAULT_HOST, port: int = 0,
                    log: TextIO | None = None, progress: Progress | None = None) -> Session:
    """Serve ``golden_root``'s snapshot in ``mode`` until interrupted; then :func:`finish` it.

    Ctrl-C (KeyboardInterrupt) ends the session normally; anything else still lists what was
    recorded before it is raised again. ``progress`` counts the entries recorded.
    """
    store = SnapshotStore(snapshot_dir(golden_root))
    progress = progress or NullProgress()
    source = RecordingSource(store, web, mode, progress)
    # Started before the server takes ``sys.stderr`` as its log, so that a bar on a terminal
    # (which redirects stderr while it is drawn) keeps the log's lines above it.
    progress.start(None, f"{mode}: entries recorded")
    try:
        with ReplayServer(store, host, port, log, source=source, secrets=source.secrets,
                          afresh=mode == RECORD) as server:
            server.log.write(f"sourcegate snapshot: {mode}: serving {store.root} on {server.url} (/search, "
                             "/fetch, /extract); what it lacks is fetched live and stored, failures are never "
                             "stored\n")
            server.log.flush()
            try:
                server.serve_forever()
            except KeyboardInterrupt:
                pass
            finally:
                progress.close()
                session = finish(source, golden_root)
                server.log.write(session.summary() + "\n")
                server.log.flush()
    finally:
        progress.close()
    return session
