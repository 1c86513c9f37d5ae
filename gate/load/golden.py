"""Read golden sets and traces: parse strictly, validate against the schema, convert to values.

Two trace shapes are read: ``sourcegate-trace/1`` and the minimal shape many teams already
record (``{question, queries, results: [{position, title, link, description}], pages: {url:
text}, answer}``), converted unchanged on load.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from types import MappingProxyType
from typing import Any, Protocol, TypeVar

import yaml

from gate.errors import InputError
from gate.files.jsonio import inside, load_yaml, parse_json, parse_time, read_text, validate
from gate.model import (
    Attempt,
    Case,
    Citation,
    Confinement,
    Finding,
    FrozenPages,
    GoldenSet,
    LiveRequest,
    ModelCall,
    Page,
    Replay,
    ReplayMiss,
    Run,
    SearchCall,
    SearchResult,
)
from gate.text.redact import holds_secret, scrub
from gate.urls.hosts import usv

GOLDEN_NAME = "golden.yaml"
RUNS_DIR = "runs"
SNAPSHOT_DIR = "snapshot"
"""A golden set's folder of recorded web answers (:mod:`gate.snapshot`)."""


def _datetime(value: str | None) -> datetime | None:
    # The schema has checked the RFC 3339 shape with this same function, so it cannot fail here.
    return parse_time(value) if value else None


def _date(value: str | None) -> date | None:
    return date.fromisoformat(value) if value else None


def _native(data: Mapping[str, Any], file: str, default_case: str) -> Run:
    queries = tuple(data["queries"])
    results = []
    for i, r in enumerate(data["results"]):
        q = r.get("query")
        if q is not None and q >= len(queries):
            raise InputError(f"query index {q} but the trace has {len(queries)} queries",
                             file=file, path=f"$.results[{i}].query")
        results.append(SearchResult(
            query=q, position=r.get("position", i + 1), title=r.get("title", ""), url=r["url"],
            snippet=r.get("snippet", ""), published=_date(r.get("published")),
        ))
    pages = tuple(
        Page(url=p["url"], text=p["text"], final_url=p.get("final_url"), status=p.get("status"),
             truncated=p.get("truncated", False), fetched_at=_datetime(p.get("fetched_at")),
             published=_date(p.get("published")), started_at=_datetime(p.get("started_at")),
             duration_ms=p.get("duration_ms"), links=tuple(p.get("links", ())), provider=p.get("provider"),
             depth=p.get("depth"))
        for p in data["pages"]
    )
    searches = []
    for i, c in enumerate(data.get("searches", ())):
        if c["query"] >= len(queries):
            raise InputError(f"query index {c['query']} but the trace has {len(queries)} queries",
                             file=file, path=f"$.searches[{i}].query")
        searches.append(SearchCall(query=c["query"], started_at=_datetime(c.get("started_at")),
                                   duration_ms=c.get("duration_ms"), cost_usd=c.get("cost_usd"),
                                   provider=c.get("provider"), depth=c.get("depth")))
    model_calls = tuple(
        ModelCall(started_at=_datetime(c.get("started_at")), duration_ms=c.get("duration_ms"), model=c.get("model"),
                  input_tokens=c.get("input_tokens"), output_tokens=c.get("output_tokens"),
                  cache_read_tokens=c.get("cache_read_tokens"), cache_write_tokens=c.get("cache_write_tokens"),
                  cost_usd=c.get("cost_usd"))
        for c in data.get("model_calls", ()))
    citations = None
    if "citations" in data:
        citations = tuple(Citation(url=c["url"], quote=c.get("quote")) for c in data["citations"])
    agent = tuple(sorted((k, str(v)) for k, v in data.get("agent", {}).items()))
    attempts = tuple(
        Attempt(rejected=tuple(a["rejected"]), kept=a.get("kept", False),
                findings=tuple(Finding(f["check"], f["message"], f.get("url")) for f in a["findings"]),
                started_at=_datetime(a.get("started_at")), duration_ms=a.get("duration_ms"))
        for a in data.get("attempts", ()))
    if sum(a.kept for a in attempts) > 1:
        raise InputError("more than one attempt is kept (at most one draft became the answer)", file=file,
                         path="$.attempts")
    return Run(
        case=data.get("case", default_case), question=data["question"], answer=data["answer"],
        queries=queries, results=tuple(results), pages=pages, citations=citations,
        started_at=_datetime(data.get("started_at")), agent=agent, shape="native", source=file,
        replay=_replay(data["replay"]) if "replay" in data else None,
        searches=tuple(searches), model_calls=model_calls, attempts=attempts,
    )


def _replay(data: Mapping[str, Any]) -> Replay:
    misses = tuple(ReplayMiss(layer=m["layer"], key=m["key"], provider=m.get("provider"), request=m.get("request"),
                              reason=m.get("reason")) for m in data["misses"])
    return Replay(command=tuple(data["command"]), served=data["served"], misses=misses,
                  agent_error=data.get("agent_error"), stdout_dropped=data.get("stdout_dropped", 0),
                  stderr_dropped=data.get("stderr_dropped", 0), left_running=data.get("left_running", 0),
                  cross_case=tuple(data.get("cross_case", ())),
                  outside_connections=data.get("outside_connections", 0),
                  golden=data.get("golden"),
                  live_requests=tuple(LiveRequest(r["host"], r["request"], r["count"])
                                      for r in data.get("live_requests", ())),
                  unserved_searches=tuple(data.get("unserved_searches", ())),
                  network=_network(data.get("network")), unserved_pages=tuple(data.get("unserved_pages", ())))


def _network(data: Mapping[str, Any] | None) -> Confinement | None:
    return None if data is None else Confinement(data["confined"], data.get("reason"))


def _minimal(data: Mapping[str, Any], file: str, default_case: str) -> Run:
    results = tuple(
        SearchResult(query=None, position=r.get("position", r.get("realPosition", i + 1)),
                     title=r.get("title", ""), url=r["link"], snippet=r.get("description", ""))
        for i, r in enumerate(data.get("results", []))
    )
    pages = tuple(Page(url=u, text=t) for u, t in data.get("pages", {}).items())
    return Run(
        case=default_case, question=data["question"], answer=data["answer"],
        queries=tuple(data.get("queries", [])), results=results, pages=pages, shape="minimal", source=file,
    )


def _usv(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings (keys too) replaced by U+FFFD.

    JSON can escape one (``"\\ud800"``), but no UTF-8 text can hold it: a title, a snippet, a quote,
    an answer or a page that kept it would stop every report that quotes it. A browser reads such
    a string the same way. Called on validated data, so the depth is bounded.
    """
    if isinstance(value, str):
        return usv(value)
    if isinstance(value, list):
        return [_usv(v) for v in value]
    if isinstance(value, dict):
        return {usv(k): _usv(v) for k, v in value.items()}
    return value


def parse_trace(data: Any, file: str, default_case: str, *, surrogates: bool = True) -> Run:
    """Validate a parsed trace of either shape and convert it to a Run (lone surrogates read as U+FFFD).

    ``surrogates=False`` says the JSON text held no escape of a surrogate (:func:`may_hold_surrogates`),
    so no string of ``data`` can hold a lone one and none is looked for.
    """
    if not isinstance(data, dict):
        raise InputError(f"expected a JSON object, got {type(data).__name__}", file=file, path="$")
    clean = _usv if surrogates else _same
    try:
        if "format" in data:
            validate(data, "trace", file)
            return _native(clean(data), file, default_case)
        validate(data, "trace-minimal", file)
        return _minimal(clean(data), file, default_case)
    except InputError as e:
        if e.case is not None or e.file != file or type(e) is not InputError:
            raise
        case = data.get("case")
        raise InputError(e.detail, file=file, path=e.path,
                         case=case if isinstance(case, str) and case else default_case) from e


def _same(value: Any) -> Any:
    return value


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def may_hold_surrogates(text: str) -> bool:
    """Whether JSON ``text`` may parse into a string with a lone surrogate: only an escape can write
    one (``\\ud800``; UTF-8 text cannot hold a surrogate), so without such an escape none can."""
    return _SURROGATE_ESCAPE.search(text) is not None


def _read_json(file: str, root: str | None, secrets: Sequence[str] = ()) -> tuple[Any, bool]:
    """A JSON file read and parsed (inside ``root``), and whether it may hold a lone surrogate; each of
    ``secrets`` its text holds is redacted wherever it is (:func:`gate.text.redact.scrub`)."""
    text = read_text(file, root=root)
    data = parse_json(text, file)
    if secrets and holds_secret(text, secrets):
        data = scrub(data, secrets)
    return data, may_hold_surrogates(text)


def load_trace(file: str, root: str | None = None) -> Run:
    """Load one trace file; the case id defaults to the file name without ``.json``.

    With ``root`` (the golden set it belongs to), the file must stay inside it.
    """
    stem = os.path.splitext(os.path.basename(file))[0]
    data, surrogates = _read_json(file, root)
    return parse_trace(data, file, stem, surrogates=surrogates)


def case_from_definition(c: Mapping[str, Any]) -> Case:
    """A case from its definition in a ``golden.yaml`` that passed its schema (the working tree's, or
    a base revision's)."""
    return Case(id=c["id"], question=c["question"], cls=c.get("class"), freshness=c.get("freshness"),
                about_domains=tuple(c.get("about_domains", ())), constraints=tuple(c.get("constraints", ())),
                entities=tuple(c.get("entities", ())))


def missing_run(golden: GoldenSet, case: Case, *, expected: bool = True) -> str:
    """The problem of a case of ``golden`` no trace ran: which file was ``expected`` (when the traces
    are files), and, for a case the pull request removes (:attr:`GoldenSet.kept_from_base`), why it is
    checked at all."""
    where = RUNS_DIR if golden.runs_dir is None else golden.runs_dir
    problem = f"no run recorded for case {case.id!r}" + (f" (expected {where}/{case.id}.json)" if expected else "")
    if case.id not in golden.kept_from_base:
        return problem
    return (f"{problem}; this pull request removes the case from golden.yaml, and until the merge it is "
            "checked as the base revision defines it: keep its run to retire it")


def load_golden(root: str) -> GoldenSet:
    """Load ``golden.yaml`` from a golden-set folder (a link that leaves the folder is refused)."""
    file = os.path.join(root, GOLDEN_NAME)
    if not os.path.isfile(file):
        raise InputError(f"no {GOLDEN_NAME} in this folder (expected a golden set)", file=root)
    data = load_yaml(file, root=root)
    validate(data, "golden", file)
    cases = []
    seen: set[str] = set()
    for i, c in enumerate(data["cases"]):
        if c["id"] in seen:
            raise InputError(f"duplicate case id {c['id']!r}", file=file, path=f"$.cases[{i}].id")
        seen.add(c["id"])
        cases.append(case_from_definition(c))
    snapshot_at = data.get("snapshot_at")
    return GoldenSet(name=data["name"], version=data["version"], cases=tuple(cases), root=root,
                     snapshot_at=str(snapshot_at) if snapshot_at is not None else None,
                     resnapshot_days=data.get("resnapshot_days"),
                     definitions=MappingProxyType({c["id"]: c for c in data["cases"]}))


def golden_identity(root: str) -> tuple[str, int]:
    """The name and version of the golden set in ``root``, without reading its cases when it can.

    ``sourcegate merge`` needs only these two (each shard read and validated the whole file). They
    are read from the top of ``golden.yaml``, event by event, when both come before ``cases`` as
    sourcegate writes them: a set of tens of thousands of cases is not parsed for two values.
    Anything else (``cases`` first, an anchor, a value of another type, malformed YAML) is read
    by :func:`load_golden`, which says what is wrong.
    """
    file = os.path.join(root, GOLDEN_NAME)
    if os.path.isfile(file):
        head = _golden_head(read_text(file, root=root, kind="YAML"))
        if head is not None:
            return head
    golden = load_golden(root)
    return golden.name, golden.version


_HEAD_KEYS = ("name", "version")
_EventLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _golden_head(text: str) -> tuple[str, int] | None:
    """``name`` and ``version`` from the top-level keys before ``cases``, or None (read it all)."""
    loader = _EventLoader(text)
    found: dict[str, object] = {}
    try:
        for start in (yaml.StreamStartEvent, yaml.DocumentStartEvent, yaml.MappingStartEvent):
            if not loader.check_event(start):
                return None
            loader.get_event()  # type: ignore[no-untyped-call]
        while len(found) < len(_HEAD_KEYS):
            key, value = loader.get_event(), loader.get_event()  # type: ignore[no-untyped-call]
            if not isinstance(key, yaml.ScalarEvent) or key.tag is not None or key.anchor is not None \
                    or key.value == "cases" or key.value in found:
                return None
            if not isinstance(value, yaml.ScalarEvent) or value.anchor is not None:
                return None  # a collection or an alias before the name and version: read it all
            if key.value in _HEAD_KEYS:
                tag = value.tag if value.tag not in (None, "!") else loader.resolve(  # type: ignore[no-untyped-call]
                    yaml.ScalarNode, value.value, value.implicit)
                node = yaml.ScalarNode(tag, value.value, style=value.style)
                found[key.value] = loader.construct_object(node)
    except yaml.YAMLError:
        return None
    finally:
        loader.dispose()
    name, version = found["name"], found["version"]
    if not (isinstance(name, str) and re.fullmatch(r"[A-Za-z0-9._-]+", name)
            and type(version) is int and version >= 1):
        return None
    return name, version


@dataclass(frozen=True)
class Pairing:
    """A case and its run, or the input error that stands in for the missing side."""

    case: Case
    run: Run | None
    problem: str | None = None
    frozen: FrozenPages | None = None
    """what the base revision's snapshot recorded for the pages the run read (None: nothing to compare
    with: no base revision, or it has no snapshot of the set)"""


class BasePages(Protocol):
    """The frozen web the runs' pages are compared with: a base revision's snapshot
    (:class:`gate.snapshot.revision.BaseSnapshot`)."""

    def pages_of(self, run: Run) -> FrozenPages:
        """What the snapshot recorded for the pages ``run`` read."""
        ...


def _with_frozen(pairing: Pairing, frozen: BasePages | None) -> Pairing:
    if frozen is None or pairing.run is None:
        return pairing
    return replace(pairing, frozen=frozen.pages_of(pairing.run))


def run_files(root: str, folder: str | None = None) -> list[str]:
    """The trace files of a golden set, sorted by name: in its ``runs/``, or in ``folder`` (traces kept
    outside the set); a set without its folder of traces is an input error.

    ``runs/`` must stay inside the set (a link out of it is refused before it is listed).
    """
    if folder is not None:
        if not os.path.isdir(folder):
            raise InputError("no such folder of traces (expected <case-id>.json, one trace per case)", file=folder)
        return sorted(os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".json"))
    folder = os.path.join(root, RUNS_DIR)
    if not os.path.isdir(folder):
        # Every case would fail as "no run recorded" (and a snapshot would "cover all 0 runs"): the
        # folder is misplaced or was never committed, which is the set's error, not the agent's.
        raise InputError(f"no {RUNS_DIR}/ folder in this golden set (expected {RUNS_DIR}/<case-id>.json, "
                         "one trace per case)", file=root)
    inside(root, folder)
    return sorted(os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".json"))


def trace_case_id(data: Any, default_case: str) -> str | None:
    """The case id a parsed trace will have, read without validating it (None: it cannot be told)."""
    if not isinstance(data, dict):
        return None
    if "format" not in data:
        return default_case
    case = data.get("case", default_case)
    return case if isinstance(case, str) else None


def held_pairings(golden: GoldenSet, runs: Sequence[Run], frozen: BasePages | None = None) -> Iterator[Pairing]:
    """Each case with its run, from runs already in memory (``sourcegate run --check``: the traces it
    has just written are not read back), in the order :func:`iter_pairings` gives them from files;
    with ``frozen``, each run's pages as the frozen web recorded them."""
    by_id = {c.id: c for c in golden.cases}
    ran: set[str] = set()
    for run in sorted(runs, key=lambda r: f"{r.case}.json"):
        ran.add(run.case)
        case = by_id.get(run.case)
        if case is None:
            yield Pairing(Case(id=run.case, question=run.question), run,
                          f"run for case {run.case!r}, which golden.yaml does not list")
        else:
            yield _with_frozen(Pairing(case, run), frozen)
    for case in golden.cases:
        if case.id not in ran:
            yield Pairing(case, None, missing_run(golden, case, expected=False))


OTHER_SHARD = "in another shard"
"""The problem of a pairing :func:`iter_pairings` passes over unvalidated, because ``keep`` refused it."""

_T = TypeVar("_T")


class TraceReader:
    """Reads one trace file into its :class:`Pairing`: the run with its case of ``golden`` (None: a loose
    trace file, its own case), the file's part of :func:`iter_pairings` (a second run of a case is
    :func:`in_run_order`'s to refuse, once the files are in order).

    With ``keep`` (a shard's), a run whose case id it refuses is not validated or converted: its
    pairing has no run and the problem :data:`OTHER_SHARD`. With ``frozen``, a run of a case of the set
    comes with what the frozen web recorded for the pages it read (:attr:`Pairing.frozen`). Each of
    ``secrets`` (the values of the environment's secret-named variables) a trace holds is redacted as
    it is read: nothing that leaves the gate shows it.
    """

    def __init__(self, golden: GoldenSet | None = None, keep: Callable[[str], bool] | None = None,
                 frozen: BasePages | None = None, secrets: tuple[str, ...] = ()) -> None:
        """Read the traces of ``golden`` (None: loose trace files), passing over what ``keep`` refuses."""
        self.golden = golden
        self.keep = keep
        self.frozen = frozen
        self.secrets = secrets
        self._by_id = {c.id: c for c in golden.cases} if golden is not None else {}
        # Traces kept outside the set are read only inside their own folder, as runs/ only inside the set.
        self._within = (golden.runs_dir if golden.runs_dir is not None else golden.root) if golden else None

    def __call__(self, file: str) -> Pairing:
        """The pairing of one trace file."""
        stem = os.path.splitext(os.path.basename(file))[0]
        if self.golden is None:
            data, surrogates = _read_json(file, None, self.secrets)
            run = parse_trace(data, file, stem, surrogates=surrogates)
            return Pairing(Case(id=run.case, question=run.question), run)
        data, surrogates = _read_json(file, self._within, self.secrets)
        if self.keep is not None:
            cid = trace_case_id(data, stem)
            if cid is not None and not self.keep(cid):
                return Pairing(self._by_id.get(cid) or Case(id=cid, question=""), None, OTHER_SHARD)
        run = parse_trace(data, file, stem, surrogates=surrogates)
        case = self._by_id.get(run.case)
        if case is None:
            return Pairing(Case(id=run.case, question=run.question), run,
                           f"{file}: run for case {run.case!r}, which golden.yaml does not list")
        return _with_frozen(Pairing(case, run), self.frozen)


def in_run_order(golden: GoldenSet | None, read: Iterable[tuple[str, Pairing, _T]],
                 missing: Callable[[Pairing], _T]) -> Iterator[_T]:
    """The values of the trace files as ``read`` gives them (file, its pairing, a value), in the files'
    order: a second run of a case is refused, naming its file; then, for a golden set, ``missing`` of
    the pairing of each case no file ran (its problem says which file was expected)."""
    ran: set[str] = set()
    for file, pairing, value in read:
        if pairing.case.id in ran:
            raise InputError(f"a second run for case {pairing.case.id!r}", file=file, path="$.case")
        ran.add(pairing.case.id)
        yield value
    if golden is None:
        return
    for case in golden.cases:
        if case.id not in ran:
            yield missing(Pairing(case, None, missing_run(golden, case)))


def iter_pairings(golden: GoldenSet, keep: Callable[[str], bool] | None = None,
                  frozen: BasePages | None = None, secrets: tuple[str, ...] = ()) -> Iterator[Pairing]:
    """Each case with its run, streamed one file at a time (memory does not grow with the set).

    A run for an unknown case, or a case with no run, is a problem for that case, never skipped.
    With ``keep`` (a shard's), a run whose case id it refuses is not validated or converted: it is
    yielded as a pairing without a run (problem :data:`OTHER_SHARD`), so the order stays whole.
    """
    read = TraceReader(golden, keep, frozen, secrets)
    pairings = ((f, p, p) for f in run_files(golden.root, golden.runs_dir) for p in (read(f),))
    yield from in_run_order(golden, pairings, lambda p: p)
