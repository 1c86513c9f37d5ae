"""The snapshot store: one small JSON file per recorded search, page fetch, extraction and provider read.

    <golden set>/snapshot/
        search/<key>.json         sourcegate-search/1
        pages/<key>.json          sourcegate-page/1
        extractions/<key>.json    sourcegate-extraction/1
        contents/<key>.json       sourcegate-contents/1 (a page as a provider read it)

Replay is a feature: a lookup that finds nothing raises :class:`gate.errors.SnapshotMiss`, naming
the layer, the key and the folder. Nothing here ever goes to the network. Every entry is
validated against its schema on load, and its key is checked against its file name and content,
so a hand-edited or damaged file is an input error that names the file and the JSON path.
Writes are atomic, validated before they land, skipped when the file already holds the same
text, and refused through a symlink that leads out of the golden set.

Reads are cached: an entry read and checked once is kept with the identity of its file (device,
inode, size, modification time) and served again while a ``stat`` finds the same file, so a
rebuilt or edited entry is read afresh (a write replaces the file) and a replay server answers a
repeated lookup without parsing and validating it again. The cache holds up to
:data:`CACHE_BYTES` of entry files; what does not fit is read from disk each time.

What may be recorded: answers are, failures are not. A snapshot freezes what the web *answered*.
A failed search (a bad key, a quota, a provider outage) or a transient HTTP failure (408, 429,
5xx) is not an answer: recording it would replay a flake forever, so the store refuses it and
the recorder tries again later. A definitive HTTP answer such as 404 or 410 is data and is
recorded like a 200. A failed search is recognised by the provider's own error markers:

    serpapi     search_metadata.status other than "Success" (a "Success" with a top-level "error"
                only means the engine found nothing, which is an answer)
    bing        "_type": "ErrorResponse", "errors": [...]
    brave       "type": "ErrorResponse", "error": {...}
    anthropic   "type": "web_search_tool_result_error", "error_code": ...
    tavily      "detail": {"error": ...}
    any         a top-level "error" or "errors"
"""

from __future__ import annotations

import os
import re
import stat
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from gate.errors import InputError, SnapshotMiss
from gate.files.jsonio import dump_json, load_json, validate
from gate.files.outputs import write_file
from gate.load.golden import SNAPSHOT_DIR
from gate.snapshot.contents import CONTENTS_APIS
from gate.snapshot.records import (
    CONTENTS,
    EXCHANGES,
    EXTRACTIONS,
    LAYERS,
    PAGES,
    SEARCH,
    ContentsRecord,
    ExchangeRecord,
    ExtractionRecord,
    Layer,
    PageRecord,
    SearchRecord,
    contents_entry,
    contents_key,
    contents_record,
    entry_key,
    exchange_entry,
    exchange_key,
    exchange_record,
    exchange_url,
    extraction_entry,
    extraction_record,
    normalise_query,
    page_entry,
    page_record,
    search_entry,
    search_key,
    search_record,
    url_key,
)
from gate.urls import canonical

_T = TypeVar("_T")

PROVIDER = re.compile(r"^[a-z][a-z0-9_.-]*$")
_ERROR_TYPES = frozenset({"ErrorResponse", "web_search_tool_result_error"})
_TRANSIENT = frozenset({408, 429})

CACHE_BYTES = 64 * 2**20
"""The most entry bytes (file sizes) one store keeps read and checked in memory: 64 MiB."""


def provider_problem(provider: str) -> str | None:
    """Why ``provider`` is not a usable provider name, or None."""
    if PROVIDER.match(provider):
        return None
    return f"provider name {provider!r} must be lower-case letters, digits, '_', '.' or '-' (e.g. 'serpapi')"


def search_failure(response: Any) -> str | None:
    """Why a search response is a failure rather than an answer, or None when it may be recorded."""
    if not isinstance(response, dict):
        return None  # a bare list of results (the Anthropic tool result) is an answer
    meta = response.get("search_metadata")
    if isinstance(meta, dict) and "status" in meta:
        # SerpApi states the outcome itself; trust it over the presence of "error".
        status = meta["status"]
        return None if status == "Success" else f"search_metadata.status is {status!r}"
    for field in ("type", "_type"):
        if response.get(field) in _ERROR_TYPES:
            return f"{field} is {response[field]!r}"
    for field in ("error", "errors"):
        if response.get(field):
            return f"it carries {field!r}: {_short(response[field])}"
    detail = response.get("detail")
    if isinstance(detail, dict) and detail.get("error"):
        return f"it carries 'detail.error': {_short(detail['error'])}"
    return None


def page_failure(status: int | None) -> str | None:
    """Why a fetch with this HTTP status is a transient failure, or None when it may be recorded."""
    if status is None:
        return None  # the recording kept no status (a minimal trace): the page was read all the same
    if status in _TRANSIENT or status >= 500:
        return f"HTTP {status} is a transient failure, not the page's answer"
    return None


def _short(value: Any) -> str:
    text = str(value)
    return text if len(text) <= 120 else text[:117] + "..."


def snapshot_dir(golden_root: str) -> str:
    """The snapshot folder of a golden set."""
    return os.path.join(golden_root, SNAPSHOT_DIR)


@dataclass(frozen=True)
class SnapshotIndex:
    """What a snapshot holds: (provider, query) pairs, the keys of its pages and extractions, and the
    URL keys (:func:`url_key`) of the pages a provider read (its contents entries)."""

    searches: frozenset[tuple[str, str]]
    pages: frozenset[str]
    extractions: frozenset[str]
    contents: frozenset[str] = frozenset()

    def has_query(self, query: str, provider: str | None = None) -> bool:
        """Whether ``query`` was recorded (by ``provider``, or by any provider when None)."""
        q = normalise_query(query)
        if provider is not None:
            return (provider, q) in self.searches
        return any(q == recorded for _, recorded in self.searches)

    def has_page(self, url: str) -> bool:
        """Whether a fetch of ``url`` (or of an equivalent URL) was recorded."""
        return url_key(url) in self.pages

    def has_read(self, url: str) -> bool:
        """Whether ``url`` was recorded as a page, or as a provider read it (any provider)."""
        return self.has_page(url) or url_key(url) in self.contents


class SnapshotStore:
    """Read and record the layers under one snapshot folder."""

    def __init__(self, root: str, golden_root: str | None = None) -> None:
        """Use the snapshot folder ``root`` (``<golden set>/snapshot``; created on the first write).

        Entries are read and written only where their real path stays inside ``golden_root``, by
        default the folder that holds ``root``.
        """
        self.root = root
        self.golden_root = os.path.dirname(os.path.abspath(root)) if golden_root is None else golden_root
        self._read = _ReadCache(CACHE_BYTES)

    def path(self, layer: Layer, key: str) -> str:
        """Where the entry with this key lives."""
        return os.path.join(self.root, layer.folder, f"{key}.json")

    # ---------------------------------------------------------------- replay

    def search(self, provider: str, query: str, params: Mapping[str, Any] | None = None) -> SearchRecord:
        """The recorded response of ``provider`` to ``query``; SnapshotMiss when there is none.

        ``params`` (the request's other parameters) are not part of the key: whoever asks compares
        them with the record's own (:mod:`gate.replay.routes`)."""
        what = f"provider {provider!r}, query {normalise_query(query)!r}"
        return self._get(SEARCH, search_key(provider, query), what, search_record)

    def page(self, url: str) -> PageRecord:
        """The recorded fetch of ``url`` (any equivalent spelling); SnapshotMiss when there is none."""
        return self._get(PAGES, url_key(url), f"URL {canonical(url)}", page_record)

    def extraction(self, url: str) -> ExtractionRecord:
        """The recorded extraction of ``url``; SnapshotMiss when there is none."""
        return self._get(EXTRACTIONS, url_key(url), f"URL {canonical(url)}", extraction_record)

    def exchange(self, method: str, url: str, body: bytes, headers: Mapping[str, str] | None = None) -> ExchangeRecord:
        """The recorded response to ``method`` of ``url`` with ``body`` (:func:`exchange_key`; ``headers`` do
        not change the answer); SnapshotMiss when there is none."""
        del headers
        text = body.decode("utf-8", "replace")
        what = f"{method.upper()} {canonical(exchange_url(url))}" + (" with this body" if text else "")
        return self._get(EXCHANGES, exchange_key(method, url, text), what, exchange_record)
    def contents(self, provider: str, urls: Sequence[str],
                 params: Mapping[str, Any] | None = None) -> dict[str, ContentsRecord]:
        """What ``provider`` answered when asked to read each of ``urls``, for those it recorded (a URL it
        never recorded is left out: a miss). ``params``, as for a search, are compared by whoever asks."""
        found: dict[str, ContentsRecord] = {}
        for url in urls:
            what = f"provider {provider!r}, URL {canonical(url)}"
            try:
                found[url] = self._get(CONTENTS, contents_key(provider, url), what, contents_record)
            except SnapshotMiss:
                continue
        return found

    def _get(self, layer: Layer, key: str, what: str, convert: Callable[[Mapping[str, Any], str], _T]) -> _T:
        file = self.path(layer, key)
        try:
            st = os.stat(file)
        except (FileNotFoundError, NotADirectoryError):
            st = None
        if st is None or not stat.S_ISREG(st.st_mode):
            folder = os.path.dirname(file)
            raise SnapshotMiss(
                f"snapshot miss in the {layer.name} layer: nothing recorded for {what} (key {key}) "
                f"in {folder}; replay never goes to the network: record it, or rebuild the snapshot "
                f"from the runs with `sourcegate snapshot build`")
        identity = (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        cached = self._read.get(file, identity)
        if cached is not None:
            return cast(_T, cached)
        record = convert(self._load(layer, file), file)
        self._read.put(file, identity, st.st_size, record)
        return record

    def _load(self, layer: Layer, file: str) -> Mapping[str, Any]:
        data = load_json(file, root=self.golden_root)
        validate(data, layer.schema, file)
        stem = os.path.splitext(os.path.basename(file))[0]
        if data["key"] != stem:
            raise InputError(f"the entry's key {data['key']} is not its file name", file=file, path="$.key")
        if entry_key(layer, data) != stem:
            raise InputError(f"the entry's content gives the key {entry_key(layer, data)}, not its file name "
                             "(edited by hand?)", file=file, path="$.key")
        entry: Mapping[str, Any] = data
        return entry

    # ---------------------------------------------------------------- recording

    def put_search(self, record: SearchRecord) -> bool:
        """Record a search answer; a failed search is refused. True when the file changed."""
        problem = provider_problem(record.provider)
        if problem is None:
            why = search_failure(record.response)
            if why is not None:
                problem = f"refusing to record a failed search ({why}): errors are never cached"
        if problem is not None:
            raise InputError(problem, file=self.path(SEARCH, search_key(record.provider, record.query)))
        return self._put(SEARCH, search_entry(record))

    def put_page(self, record: PageRecord) -> bool:
        """Record a page fetch; a transient failure (408, 429, 5xx) is refused. True when the file changed."""
        why = page_failure(record.status)
        if why is not None:
            raise InputError(f"refusing to record {record.url}: {why}; errors are never cached",
                             file=self.path(PAGES, url_key(record.url)))
        return self._put(PAGES, page_entry(record))

    def put_extraction(self, record: ExtractionRecord) -> bool:
        """Record an extraction. True when the file changed."""
        return self._put(EXTRACTIONS, extraction_entry(record))

    def put_exchange(self, record: ExchangeRecord) -> bool:
        """Record an exchange; a transient failure (408, 429, 5xx) is refused. True when the file changed."""
        why = page_failure(record.status)
        if why is not None:
            raise InputError(f"refusing to record {record.method} {record.url}: {why}; errors are never cached",
                             file=self.path(EXCHANGES, exchange_key(record.method, record.url, record.request_body)))
        return self._put(EXCHANGES, exchange_entry(record))
    def put_contents(self, record: ContentsRecord) -> bool:
        """Record what a provider read of one URL; a URL it did not read is refused. True when the file changed."""
        problem = provider_problem(record.provider)
        api = CONTENTS_APIS.get(record.provider)
        why = api.unread(record.response) if problem is None and api is not None else None
        if why is not None:
            problem = f"refusing to record {record.url}: {why}; errors are never cached"
        if problem is not None:
            raise InputError(problem, file=self.path(CONTENTS, contents_key(record.provider, record.url)))
        return self._put(CONTENTS, contents_entry(record))

    def _put(self, layer: Layer, entry: Mapping[str, Any]) -> bool:
        file = self.path(layer, entry["key"])
        validate(entry, layer.schema, file)  # never write what could not be read back
        text = dump_json(entry)
        if os.path.isfile(file):
            with open(file, encoding="utf-8") as f:
                if f.read() == text:
                    return False
        write_file(file, text, within=self.golden_root)
        return True

    # ---------------------------------------------------------------- listing

    def files(self, layer: Layer) -> Iterator[str]:
        """The entry files of a layer, sorted by name (none when the folder does not exist)."""
        folder = os.path.join(self.root, layer.folder)
        if not os.path.isdir(folder):
            return
        for name in sorted(os.listdir(folder)):
            if name.endswith(".json") and not name.startswith("."):
                yield os.path.join(folder, name)

    def index(self) -> SnapshotIndex:
        """Load and check every entry; what the snapshot holds. A damaged entry is an InputError."""
        searches = set()
        for file in self.files(SEARCH):
            data = self._load(SEARCH, file)
            searches.add((data["provider"], normalise_query(data["query"])))
        keys = {layer.name: frozenset(self._load(layer, f)["key"] for f in self.files(layer))
                for layer in LAYERS if layer not in (SEARCH, CONTENTS)}
        read = frozenset(url_key(self._load(CONTENTS, f)["url"]) for f in self.files(CONTENTS))
        return SnapshotIndex(searches=frozenset(searches), pages=keys[PAGES.name],
                             extractions=keys[EXTRACTIONS.name], contents=read)


class _ReadCache:
    """Entries read and checked, by file, while the file is the same one; least recently used out first.

    Shared by the replay server's connection threads, hence the lock. Failures are never kept: only
    what :meth:`SnapshotStore._get` read and checked without error is put here.
    """

    def __init__(self, budget: int) -> None:
        self._budget = budget
        self._held = 0
        self._entries: OrderedDict[str, tuple[tuple[int, ...], int, object]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, file: str, identity: tuple[int, ...]) -> object | None:
        """The record read from ``file`` when it was the file ``identity`` names, else None."""
        with self._lock:
            found = self._entries.get(file)
            if found is None or found[0] != identity:
                return None
            self._entries.move_to_end(file)
            return found[2]

    def put(self, file: str, identity: tuple[int, ...], size: int, record: object) -> None:
        """Keep ``record`` for ``file`` (as ``identity``), dropping the least recently used to fit."""
        if size > self._budget:
            return
        with self._lock:
            old = self._entries.pop(file, None)
            if old is not None:
                self._held -= old[1]
            self._entries[file] = (identity, size, record)
            self._held += size
            while self._held > self._budget:
                _, (_, dropped, _) = self._entries.popitem(last=False)
                self._held -= dropped
