"""The values the gate works on: golden-set cases, recorded runs, findings.

Everything here is a frozen dataclass built once by ``gate.load.golden`` and never changed after:
checks and judges read these and return new values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Literal

Freshness = Literal["insensitive", "slow", "fast", "realtime"]
FRESHNESS_REGIMES: tuple[Freshness, ...] = ("insensitive", "slow", "fast", "realtime")
Verdict = Literal["pass", "fail", "inconclusive"]
"""The gate's verdict on a golden set."""


Clock = Callable[[], datetime]
"""Where the time comes from: the wall clock in production, a fixed or recorded time in replay and tests."""

TRACE_FORMAT = "sourcegate-trace/1"
"""The format id of a trace file (gate/schemas/trace.json), as the Recorder, ``sourcegate run`` and the
importers write it."""


@dataclass(frozen=True)
class SearchResult:
    """One result the agent saw for one of its queries."""

    query: int | None
    position: int
    title: str
    url: str
    snippet: str
    published: date | None = None


@dataclass(frozen=True)
class Page:
    """One page the agent read, exactly as the model saw it."""

    url: str
    text: str
    final_url: str | None = None
    status: int | None = None
    truncated: bool = False
    fetched_at: datetime | None = None
    published: date | None = None
    started_at: datetime | None = None
    """when this read began in this run (``fetched_at`` may be the snapshot's time), if recorded"""
    duration_ms: float | None = None
    """how long the read took, if recorded"""
    links: tuple[str, ...] = ()
    """links the reader showed beside the text (an extraction's anchors, a scraper's link list); the
    links written in the text itself are found in it (:func:`gate.urls.anchors.extract_anchors`)"""
    provider: str | None = None
    """the search provider whose extraction API read the page (``tavily``: its extract), if one did;
    None for a page the agent fetched itself"""
    depth: str | None = None
    """the extraction's depth as the provider bills it (Tavily's ``extract_depth``: ``basic`` or ``advanced``)"""


@dataclass(frozen=True)
class SearchCall:
    """When the search of query ``query`` (its index) ran, how long it took, and what the provider
    billed for it when its response says so."""

    query: int
    started_at: datetime | None = None
    duration_ms: float | None = None
    cost_usd: float | None = None
    """what the provider billed for the call, when its response says (Exa's ``costDollars.total``)"""
    provider: str | None = None
    """the search provider that answered it (``tavily``, ``brave``, ``serpapi``, ...), if recorded"""
    depth: str | None = None
    """the search's depth as the provider bills it (Tavily's ``search_depth``: ``basic`` or ``advanced``)"""


@dataclass(frozen=True)
class ModelCall:
    """One call of the agent's model: when, how long, which model, its tokens and, where priced, its cost.

    Tokens are counted as the judge's usage counts them: ``input_tokens`` read neither from nor into
    the prompt cache, ``cache_read_tokens`` and ``cache_write_tokens`` apart, so their sum is the prompt.
    """

    started_at: datetime | None = None
    duration_ms: float | None = None
    model: str | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    cost_usd: float | None = None


@dataclass(frozen=True)
class Citation:
    """A URL the answer cites, with the passage it attributes to it when there is one."""

    url: str
    quote: str | None = None


@dataclass(frozen=True)
class ReplayMiss:
    """A request the agent made that the snapshot does not hold (``sourcegate run``)."""

    layer: str
    """``search``, ``pages``, ``extractions``, ``exchanges`` (any other request at a host's real address), or
    ``route`` (a request no route of the server answers)"""
    key: str
    """the query (for a search) or the URL; the request, for a route"""
    provider: str | None = None
    request: str | None = None
    """the method and path asked (``POST /search``), when the trace says"""
    reason: str | None = None
    """why it was not answered: :data:`NOT_IN_SNAPSHOT`, :data:`NOT_RECORDED` and the live web's error (record
    mode), or what keeps a recording from answering it (a parameter that differs from the recording's, ...)"""


NOT_IN_SNAPSHOT = "not in the snapshot"
"""The reason of a miss for what nothing recorded."""
NOT_RECORDED = "not recorded"
"""The start of the reason of a miss in record mode when the live web gave nothing to record (its message follows)."""


@dataclass(frozen=True)
class LiveRequest:
    """Requests of a case that reached past the frozen web to one host, refused (``sourcegate run``)."""

    host: str
    request: str
    """the first of them, as the proxy read it (``CONNECT api.tavily.com:443``, ``GET http://...``)"""
    count: int = 1


@dataclass(frozen=True)
class Confinement:
    """Whether a case's agent ran in a network namespace whose only way out is the replay server
    (``sourcegate run`` on Linux), and when it did not, why (``--network proxy``, no namespace could be made)."""

    confined: bool
    reason: str | None = None


STDOUT_KEPT = 8 * 1024 * 1024
"""Bytes of the end of an agent's stdout kept for its answer (8 MiB; an answer needing more can be
saved as a trace, ``$SOURCEGATE_TRACE_FILE``, read within the JSON limits)."""
STDERR_KEPT = 4 * 1024
"""Bytes of the end of an agent's stderr kept for its ``agent_error``."""


@dataclass(frozen=True)
class Replay:
    """How ``sourcegate run`` produced a trace: the command, what it missed, how it failed.

    ``served`` is True when the agent wrote no trace and its queries, results and pages were
    assembled from what the replay server answered for its case (what was served to the agent,
    not necessarily what its model read).
    """

    command: tuple[str, ...] = ()
    served: bool = False
    misses: tuple[ReplayMiss, ...] = ()
    agent_error: str | None = None
    stdout_dropped: int = 0
    """bytes at the start of the agent's stdout counted and not kept (the gate keeps its end)"""
    stderr_dropped: int = 0
    """the same for stderr"""
    left_running: int = 0
    """processes the agent left running when it exited, which the gate ended"""
    cross_case: tuple[str, ...] = ()
    """requests refused because they crossed from one case to another, each said in one line"""
    outside_connections: int = 0
    """connections with the case's URL from a process of no running case, served (Linux)"""
    golden: str | None = None
    """the golden set as ``sourcegate run`` was given it, kept when the run missed something: the command
    that records it names the set (:func:`gate.checks.run_findings.record_command`)"""
    live_requests: tuple[LiveRequest, ...] = ()
    """requests past the frozen web (another host than the replay server's), refused, by host"""
    unserved_searches: tuple[str, ...] = ()
    """queries the agent's own trace records that the replay server never answered"""
    network: Confinement | None = None
    """whether the agent ran confined to the replay server (None: a trace written before runs said)"""
    unserved_pages: tuple[str, ...] = ()
    """URLs of pages the agent's own trace records that the replay server never served (as a page or
    an extraction)"""


@dataclass(frozen=True)
class FrozenPages:
    """What a base revision's snapshot recorded for the pages one run read: the texts it holds for each
    URL (its page's body, its extraction's text), by canonical URL; a URL it never recorded is absent.
    Read at the edge (:class:`gate.snapshot.revision.BaseSnapshot`), compared in the pure core
    (:mod:`gate.checks.frozen_web`)."""

    ref: str
    """the revision, as the user named it"""
    texts: Mapping[str, tuple[str, ...]]


@dataclass(frozen=True)
class Attempt:
    """One draft answer the agent guarded before its final answer (:meth:`gate.Recorder.regenerate`, or the
    replay server's ``POST /guard``): what the guard rejected in it, and why.

    An attempt runs from the end of the one before it (the run's start, for the first) to the end of
    its guard; the draft that became the answer is the ``kept`` one (none: the agent gave up, or
    answered something it never guarded)."""

    rejected: tuple[str, ...] = ()
    """the URLs the guard rejected, each once, in the order its findings name them"""
    findings: tuple[Finding, ...] = ()
    """every finding of the guard on this draft (``no_citations`` names no URL)"""
    kept: bool = False
    started_at: datetime | None = None
    duration_ms: float | None = None


@dataclass(frozen=True)
class Run:
    """One recorded agent run: what it searched, saw, read and answered.

    ``shape`` is ``"native"`` for sourcegate-trace/1 files and ``"minimal"`` for the
    ``{question, queries, results, pages, answer}`` shape; a minimal run lacks dates and
    statuses, so the checks that need them report "not checked".
    """

    case: str
    question: str
    answer: str
    queries: tuple[str, ...] = ()
    results: tuple[SearchResult, ...] = ()
    pages: tuple[Page, ...] = ()
    citations: tuple[Citation, ...] | None = None
    started_at: datetime | None = None
    agent: tuple[tuple[str, str], ...] = ()
    shape: Literal["native", "minimal"] = "native"
    source: str = ""
    replay: Replay | None = None
    searches: tuple[SearchCall, ...] = ()
    """when each query's search ran (by query index), where recorded"""
    model_calls: tuple[ModelCall, ...] = ()
    """the agent's model calls, in the order they were made, where recorded"""
    attempts: tuple[Attempt, ...] = ()
    """the drafts the agent guarded before its answer, in order, where recorded"""


@dataclass(frozen=True)
class Case:
    """One question of the golden set, with what the gate should know about it."""

    id: str
    question: str
    cls: str | None = None
    freshness: Freshness | None = None
    about_domains: tuple[str, ...] = ()
    constraints: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()


@dataclass(frozen=True)
class GoldenSet:
    """A versioned golden set: ``golden.yaml`` plus where its runs and caches live."""

    name: str
    version: int
    cases: tuple[Case, ...]
    root: str = ""
    snapshot_at: str | None = None
    resnapshot_days: float | None = None
    """the re-snapshot interval ``golden.yaml`` sets, if any"""
    runs_dir: str | None = None
    """where its traces are read from: a folder outside the set (``check --runs DIR``, traces an agent's
    job uploaded), or None for the set's own ``runs/``"""
    definitions: Mapping[str, object] = field(default_factory=dict, compare=False, repr=False)
    """each case's definition as ``golden.yaml`` gives it, by id: what a base revision's is compared
    with (a case redefined by the pull request is listed)"""
    kept_from_base: frozenset[str] = frozenset()
    """cases of the base revision's ``golden.yaml`` that this one removes, checked as the base defines
    them until the merge (:func:`gate.load.basecases.under_base`); empty without a base revision"""

    @property
    def snapshot_time(self) -> datetime | None:
        """``snapshot_at`` as an aware time (UTC when it names no zone); None without one, or when it
        cannot be read (the schema checked its form: an unreadable stamp says nothing rather than guess)."""
        if self.snapshot_at is None:
            return None
        try:
            taken = datetime.fromisoformat(self.snapshot_at.replace("Z", "+00:00"))
        except ValueError:
            return None
        return taken if taken.tzinfo is not None else taken.replace(tzinfo=UTC)

    def case(self, case_id: str) -> Case | None:
        """The case with this id, or None."""
        for c in self.cases:
            if c.id == case_id:
                return c
        return None


@dataclass(frozen=True)
class Finding:
    """One hard-check failure: which check, which URL, and what is wrong, in a sentence."""

    check: str
    message: str
    url: str | None = None
    sentence: str | None = None
    """the sentence of the answer that cites ``url`` (the first one, at most :data:`SENTENCE_KEPT`
    characters), when the answer has one: what a reviewer reads first"""


SENTENCE_KEPT = 300
"""Characters of the citing sentence a finding keeps (a longer one is cut, ending in ``…``)."""


@dataclass(frozen=True)
class Outcome:
    """What one check says of one run: its findings, or why it could not check."""

    findings: tuple[Finding, ...] = ()
    not_checked: str | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def status(self) -> str:
        """``fail``, ``pass`` or ``not_checked``."""
        if self.findings:
            return "fail"
        return "not_checked" if self.not_checked else "pass"
