"""``check --jobs N``: a set's runs read, judged from the judge cache and checked in worker processes.

What runs where:

- **judge off or replay**: nothing waits on a network, so every run is work for a core. Each worker
  process takes a chunk of the trace files (consecutive, in the run's order), reads and validates
  each, judges it from the judge cache (replay) and runs every check, exactly as the one-process
  loop does (:class:`gate.load.golden.TraceReader`, :func:`judge_and_evaluate`). The parent takes
  the chunks back in order, refuses a second run of a case there (:func:`gate.load.golden.in_run_order`),
  and hands the case results on as they come: the report is the same, byte for byte, whatever the
  number of workers.
- **live or batch**: the runs stay in the one process whose threads wait on the API
  (``judge.concurrency``): what such a run spends its time on is the wait, not a core, and one
  judge keeps one breaker, one deadline, one first call that learns whether the key is refused.

Memory stays flat: a worker holds one run at a time, and at most two chunks per worker are in flight.
A set too small to share (:data:`MIN_RUNS_PER_WORKER` runs a worker) is checked in the one process:
starting a worker costs more than it saves. Workers start from a fork server (``forkserver``, or
``spawn`` where there is none), never by forking a process that may hold threads; each takes the
parent's working directory and environment, ignores Ctrl-C (the parent stops them), and hands back
the judge-cache entries it did not trust (the report's note counts them all) and the blob ids of the
files it read (:mod:`gate.files.digests`: a comparison with the base revision reads none again).
"""

from __future__ import annotations

import copyreg
import multiprocessing
import os
import pickle
import signal
import traceback
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, NamedTuple

from gate.checks import Check
from gate.checks.base import Subject
from gate.config import Config
from gate.errors import GateError
from gate.files.digests import FileKey, ReadId, add_recorded, recorded_ids, recorded_reads
from gate.judge.cache import TrustedEntries
from gate.judge.session import JudgeSession
from gate.load.golden import OTHER_SHARD, Pairing, TraceReader
from gate.results import CaseResult
from gate.score.evaluate import evaluate_pairing, evaluate_run

__all__ = ["CHUNK", "JUDGED_IN_WORKERS", "MIN_RUNS_PER_WORKER", "Checked", "Raised", "SetWork", "WorkerTraceback",
           "available_cores", "evaluate_in_workers", "judge_and_evaluate", "worker_count"]

MIN_RUNS_PER_WORKER = 100
"""A worker is started for every this many runs at most: a smaller share costs more to start than it saves."""
CHUNK = 8
"""Trace files per task sent to a worker."""
JUDGED_IN_WORKERS = ("off", "replay")
"""The judge modes whose runs workers check; a live or batch judge checks in the process its threads wait in."""


def _mapping_proxy(items: dict[Any, Any]) -> MappingProxyType[Any, Any]:
    return MappingProxyType(items)


# Results and configurations hold read-only mappings: they cross to and from the workers as dicts.
copyreg.pickle(MappingProxyType, lambda m: (_mapping_proxy, (dict(m),)))


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS says, else every core)."""
    counted = getattr(os, "process_cpu_count", None)  # Python 3.13
    if counted is not None:
        return int(counted() or 1)
    try:
        return len(os.sched_getaffinity(0)) or 1
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def worker_count(jobs: int | None, runs: int, judge_mode: str) -> int:
    """How many worker processes check a set of ``runs`` runs: ``jobs`` (None: :func:`available_cores`),
    no more than one per :data:`MIN_RUNS_PER_WORKER` runs; 1 means the runs are checked in this process."""
    if judge_mode not in JUDGED_IN_WORKERS:
        return 1
    wanted = available_cores() if jobs is None else jobs
    return max(1, min(wanted, runs // MIN_RUNS_PER_WORKER))


def judge_and_evaluate(p: Pairing, config: Config, session: JudgeSession | None,
                       checks: Mapping[str, Check]) -> CaseResult:
    """One pairing judged (unless ``session`` is None or does not judge) and evaluated: the case result."""
    if p.problem is not None or p.run is None or session is None or not session.active:
        return evaluate_pairing(p, config, checks)
    if p.run.replay is not None and p.run.replay.agent_error is not None:
        # no answer to judge: its agent_error says so
        return evaluate_run(p.run, p.case, config, checks=checks, frozen=p.frozen)
    subject = Subject.build(p.run, p.case, config)  # once: the judge and then the checks read it
    return evaluate_run(p.run, p.case, config, judgement=session.judge(p.run, p.case, subject), checks=checks,
                        subject=subject, frozen=p.frozen)


@dataclass(frozen=True)
class SetWork:
    """What every worker needs, sent once when it starts: how to read the set's traces and judge them."""

    reader: TraceReader
    config: Config
    judge_mode: str
    """``off`` or ``replay``"""
    judgements: str | None
    """the set's judge cache (None: trace files)"""
    expected_runs: int
    trusted: TrustedEntries | None
    checks: Mapping[str, Check]
    record: Callable[[CaseResult], str] | None = None
    """writes a case as the report's text holds it (a module-level function: it crosses by name), so the
    parent only copies it (None: the parent writes it)"""


class Checked(NamedTuple):
    """One trace file as a worker gives it back. Reading it may have raised instead: see :class:`Raised`."""

    file: str
    pairing: Pairing
    """its pairing, without the run"""
    result: CaseResult | None
    """its case result (None: another shard's)"""
    record: str | None
    """the case as the report writes it, made in the worker too (:attr:`SetWork.record`), or None"""


class WorkerTraceback(Exception):
    """Where a worker raised what was not a :class:`gate.errors.GateError` (our bug): its trace, as text."""


@dataclass(frozen=True)
class Raised:
    """What reading or checking one trace file raised in a worker, to be raised in the parent in its turn."""

    error: BaseException
    trace: str

    def reraise(self) -> None:
        """Raise the error here; our bug keeps the worker's trace as its cause."""
        if isinstance(self.error, GateError):
            raise self.error
        raise self.error from WorkerTraceback(self.trace)


_work: SetWork | None = None
_session: JudgeSession | None = None


def _start(work: SetWork, cwd: str, environ: Mapping[str, str]) -> None:
    """A worker's set-up: the parent's folder and environment, and its own judge reading the cache."""
    global _work, _session
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C stops the parent, which stops the workers
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(environ)
    _work = work
    if work.judge_mode == "replay":
        _session = JudgeSession("replay", work.config, work.judgements, work.expected_runs,
                                trusted=work.trusted).__enter__()  # open for the worker's life


def _raised(e: Exception) -> Raised:
    trace = traceback.format_exc()
    try:
        pickle.dumps(e)
    except Exception:  # an exception that cannot cross back is said as our bug, with its trace
        return Raised(RuntimeError(f"{type(e).__name__}: {e}"), trace)
    return Raised(e, trace)


_Done = tuple[list[Checked | Raised], frozenset[str], dict[FileKey, ReadId]]
"""A chunk's outcomes, the judge-cache entries the worker did not trust so far, and what it read."""


def _chunk(files: Sequence[str]) -> _Done:
    """The outcome of each file, in order, the judge-cache entries this worker did not trust so far, and
    the blob ids of the files it read for them: the parent records them with its own reads
    (:mod:`gate.files.digests`), so a comparison with the base revision reads no file again."""
    work = _work
    assert work is not None
    with recorded_reads():
        out: list[Checked | Raised] = []
        for file in files:
            try:
                p = work.reader(file)
                result = None if p.problem == OTHER_SHARD else judge_and_evaluate(p, work.config, _session,
                                                                                  work.checks)
                record = work.record(result) if result is not None and work.record is not None else None
                out.append(Checked(file, Pairing(p.case, None, p.problem), result, record))
            except Exception as e:  # raised in the parent in the files' order, as the one process raises it
                out.append(_raised(e))
        reads = recorded_ids()
    return out, (_session.unverified_keys if _session is not None else frozenset()), reads


def _context() -> multiprocessing.context.BaseContext:
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    ctx = multiprocessing.get_context(method)
    if method == "forkserver":
        ctx.set_forkserver_preload([__name__])  # the server imports the checks once; each worker forks ready
    return ctx


def evaluate_in_workers(work: SetWork, files: Sequence[str], workers: int,
                        session: JudgeSession | None = None) -> Iterator[Checked]:
    """The outcome of every file, in order, from ``workers`` processes; what a file raised is raised
    when its turn comes. ``session`` (the parent's, in replay) learns which judge-cache entries the
    workers did not trust."""
    chunks = [files[i:i + CHUNK] for i in range(0, len(files), CHUNK)]
    with _context().Pool(workers, initializer=_start, initargs=(work, os.getcwd(), dict(os.environ))) as pool:
        pending: deque[Any] = deque()
        for chunk in chunks:
            pending.append(pool.apply_async(_chunk, (chunk,)))
            if len(pending) >= 2 * workers:
                yield from _taken(pending.popleft().get(), session)
        while pending:
            yield from _taken(pending.popleft().get(), session)


def _taken(done: _Done, session: JudgeSession | None) -> Iterator[Checked]:
    outcomes, unverified, reads = done
    if session is not None and unverified:
        session.add_unverified(unverified)
    add_recorded(reads)
    for outcome in outcomes:
        if isinstance(outcome, Raised):
            outcome.reraise()
        else:
            yield outcome
