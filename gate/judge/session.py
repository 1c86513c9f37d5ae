"""One gate run's judging: the judge for the mode, bounded concurrency in case order, SDK warnings.

Modes: ``live`` calls the API and writes the judge cache; ``batch`` sends the requests the cache
misses as message batches at the batch price, writes their replies to the cache and then judges
from it (:mod:`gate.judge.batch`); ``replay`` reads the cache only (a miss leaves claims unscored
with "not in judge cache"; a golden set with no ``judgements/`` folder at all is not judged, and the
report says so); ``off`` does not judge.

Batch mode holds the set's runs in memory for its rounds: the judge passes over them once to learn
its requests, once per round of batches, and once more to judge them from the cache.

Live and batch runs are judged on a thread pool of ``judge.concurrency`` workers. At most twice that
many runs are in flight, and results come back in case order, so memory stays flat however large the
set is. Replay only reads the cache, so its runs are judged one after another in the calling thread:
pure Python work on a pool only contends for the interpreter lock (about a fifth slower).

The provider is the one ``judge.provider`` names (:data:`gate.judge.providers.PROVIDERS`), built only
in live mode, so replay and off never import an SDK; the session closes the provider it built (its
connections) when it ends.

Warnings: an SDK reports a deprecated model with a ``DeprecationWarning``. The session records every
warning raised while it is open (``warnings.catch_warnings(record=True)``, entered once in the thread
that drives the pool: warning filters are process-wide, so a per-thread capture would race). Those
raised by an SDK or a provider module go into the report; any other is re-raised as it was.

Progress: a live session reports to the :class:`gate.term.progress.Progress` it is given (runs done, and
the calls, tokens and cost each judgement spent); the caller chooses where that goes. A refused key
(:class:`gate.errors.JudgeAuthError`) stops the judge after one call, and the report says so once;
so does the progress, as a note (:meth:`Progress.note`), as soon as a run judged after it shows it or
the session ends: a CI log, where the report goes to a file, still shows it on stderr (``-q`` shows
no progress, so no note either). The note is one line of plain text (the API's message in it is
not ours).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
import warnings
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from types import TracebackType
from typing import TypeVar

from gate.checks.base import Subject
from gate.config import CALLING_MODES, JUDGE_MODES, Config
from gate.judge.base import Closing, Judge, JudgeRequest, Provider
from gate.judge.batch.base import Batches
from gate.judge.batch.pending import PendingBatches
from gate.judge.batch.runner import BatchRunner, Polling
from gate.judge.batch.settle import Settler
from gate.judge.cache import NOT_VERIFIED, JudgeCache, TrustedEntries
from gate.judge.providers import build_batches, build_provider
from gate.judgement import RunJudgement
from gate.model import Case, Run
from gate.term.progress import NullProgress, Progress
from gate.text.escape import plain

"""The modes that call the API (and report their progress)."""
NOTE_CHARS = 1000
"""The longest note of a stopped judge on stderr (the API's own message is in it)."""
A = TypeVar("A")
B = TypeVar("B")


def ordered_map(fn: Callable[[A], B], items: Iterable[A], workers: int) -> Iterator[B]:
    """``map(fn, items)`` on ``workers`` threads, in order, with at most ``2 * workers`` in flight."""
    if workers <= 1:
        yield from map(fn, items)
        return
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sourcegate-judge") as pool:
        pending: deque[Future[B]] = deque()
        for item in items:
            pending.append(pool.submit(fn, item))
            if len(pending) >= 2 * workers:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()


SDKS = ("anthropic", "openai")


def _is_sdk(filename: str) -> bool:
    if os.path.join("gate", "judge", "providers", "") in filename:
        return True
    for name in SDKS:
        sdk = sys.modules.get(name)
        root = os.path.dirname(sdk.__file__) if sdk is not None and sdk.__file__ else None
        if root is not None and filename.startswith(root + os.sep):
            return True
    return False


class _Learnt(Exception):
    """Batch mode's first pass stops a run's evaluation once the session knows the run."""


class JudgeSession:
    """Context manager around judging one set: ``with JudgeSession(...) as s: s.judge(run, case)``."""

    def __init__(self, mode: str, config: Config, cache_dir: str | None, expected_runs: int = 1,
                 *, caller: Provider | None = None, trusted: TrustedEntries | None = None,
                 progress: Progress | None = None, api_keys: Mapping[str, str] | None = None,
                 batches: Batches | None = None, polling: Polling | None = None,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> None:
        """Prepare a session; ``caller`` replaces the configured provider (tests, benchmarks).

        ``trusted``: only these judge-cache entries are used as they are (the base revision's).
        ``progress``: where a live or batch session reports how far it got (default: nowhere).
        ``api_keys``: the judge's API keys by provider name, given to the provider only when a live or
        batch session builds it (None, or a provider not in it: its SDK reads the key from the
        environment; an empty key is refused, see :func:`gate.judge.providers.build_provider`).
        ``batches``, ``polling``, ``clock``, ``sleep``: batch mode's Message Batches API (default: the
        configured provider's), how often it polls, and the time it waits by (tests never wait).
        """
        if mode not in JUDGE_MODES:
            raise ValueError(f"judge mode {mode!r} is not one of {JUDGE_MODES}")
        self.mode = mode
        self.config = config
        self._cache_dir = cache_dir
        self._expected = expected_runs
        self._caller = caller
        self._api_keys = api_keys
        self._trusted = trusted
        self._cache: JudgeCache | None = None
        self._judge: Judge | None = None
        self._progress: Progress = NullProgress() if progress is None or mode not in CALLING_MODES else progress
        self._batches = batches
        self._polling = polling
        self._clock = clock
        self._sleep = sleep
        self._built: Batches | None = None
        """the Message Batches client this session built, and closes"""
        self._provider: Provider | None = None
        """the provider this session built, and closes"""
        self._settler: Settler | None = None
        self._learning: list[JudgeRequest] | None = None
        self._settled = False
        self._notes: list[str] = []
        self._catcher: warnings.catch_warnings[list[warnings.WarningMessage]] | None = None
        self._records: list[warnings.WarningMessage] = []
        self._stop_lock = threading.Lock()
        self._stop_noted = False

    def _api_key(self) -> str | None:
        """The key given for the configured provider (None: its SDK reads the environment)."""
        return None if self._api_keys is None else self._api_keys.get(self.config.judge.provider)

    def _open(self) -> Judge | None:
        from gate.judge.llm import LLMJudge

        if self.mode == "off":
            return None
        has_cache = self._cache_dir is not None and os.path.isdir(self._cache_dir)
        if self.mode == "replay":
            if not has_cache:
                where = self._cache_dir or "trace files (no golden set)"
                self._notes.append(f"judge: no judge cache for {where}; judged figures are not computed "
                                   "(record one with --judge live)")
                return None
            self._cache = JudgeCache(str(self._cache_dir), self._trusted)
            return LLMJudge(self.config, cache=self._cache, caller=None, expected_runs=self._expected)
        if self._cache_dir is None:
            self._notes.append("judge: trace files have no golden set, so judge replies are not cached")
        if self._cache_dir is not None:
            self._cache = JudgeCache(self._cache_dir, self._trusted)
        if self.mode == "batch":
            if self._batches is None:
                self._batches = self._built = build_batches(self.config.judge, api_key=self._api_key())
            pending = PendingBatches(self._cache_dir) if self._cache_dir is not None else None
            runner = BatchRunner(self._batches, pending, deadline_seconds=self.config.judge.batch_deadline_seconds,
                                 progress=self._progress, polling=self._polling, clock=self._clock, sleep=self._sleep)
            self._settler = Settler(self.config, self._cache, runner, expected_runs=self._expected, clock=self._clock)
            return self._settler.settle(())
        caller = self._caller
        if caller is None:
            caller = self._provider = build_provider(self.config.judge, api_key=self._api_key())
        return LLMJudge(self.config, cache=self._cache, caller=caller, expected_runs=self._expected)

    def __enter__(self) -> JudgeSession:
        self._catcher = warnings.catch_warnings(record=True)
        self._records = self._catcher.__enter__()
        warnings.simplefilter("always")
        try:
            self._judge = self._open()
        except BaseException:
            self._catcher.__exit__(None, None, None)
            raise
        if self._judge is not None:
            self._progress.start(self._expected, "judging")
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None,
                 tb: TracebackType | None) -> None:
        assert self._catcher is not None
        self._note_stop()
        self._progress.close()
        if self._built is not None:
            self._built.close()
        if isinstance(self._provider, Closing):
            self._provider.close()
        self._catcher.__exit__(et, ev, tb)
        if et is None:
            for w in self._records:
                if not _is_sdk(w.filename):
                    warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)

    @property
    def active(self) -> bool:
        """True when runs are really judged (not off, and replay has a cache)."""
        return self._judge is not None

    def judge(self, run: Run, case: Case, subject: Subject | None = None) -> RunJudgement | None:
        """Judge one run, or None when the session does not judge.

        ``subject`` is the run as the checks will read it (:meth:`Subject.build`): the judge reads the
        pages' normalised text from it, so the checks find it done (None: the judge prepares the run).
        """
        if self._judge is None:
            return None
        request = JudgeRequest(run, case, subject)
        if self._learning is not None:  # batch mode's first pass: only which runs there are
            # Held for the rounds without the subject: the set's normalised pages are not kept for them.
            self._learning.append(JudgeRequest(run, case))
            raise _Learnt
        if self._settler is not None and not self._settled:  # batch mode outside map: this run's own rounds
            self._judge = self._settler.settle([request])
        assert self._judge is not None
        judgement = self._judge.judge(request)
        self._note_stop()
        u = judgement.usage
        self._progress.advance(0, calls=u.calls, cost=u.cost_usd, tokens=u.input_tokens + u.output_tokens
                               + u.cache_read_tokens + u.cache_write_tokens)
        return judgement

    def map(self, fn: Callable[[A], B], items: Iterable[A]) -> Iterator[B]:
        """``fn`` over ``items`` on the judge's thread pool, in order; each item done is progress."""
        def step(item: A) -> B:
            result = fn(item)
            self._progress.advance(1)
            return result

        if self._settler is not None:
            items = self._batch_rounds(fn, items)
        threaded = self.active and self.mode in CALLING_MODES  # replay waits on nothing: no pool
        return ordered_map(step, items, self.config.judge.concurrency if threaded else 1)

    def _batch_rounds(self, fn: Callable[[A], B], items: Iterable[A]) -> list[A]:
        """Batch mode, before the items are judged: learn their runs (``fn`` stops at the judge),
        then settle every request the judge will make."""
        held = list(items)
        self._learning = []
        try:
            for item in held:
                with contextlib.suppress(_Learnt):
                    fn(item)
            requests = self._learning
        finally:
            self._learning = None
        assert self._settler is not None
        self._judge = self._settler.settle(requests)
        self._settled = True
        return held

    def _stopped(self) -> str | None:
        """Why the judge stopped calling the API for good (a refused key), as the report says it; or None."""
        runner = self._settler.runner if self._settler else None
        fatal = getattr(self._judge, "fatal", None) or (runner.fatal if runner else None)
        return f"judge: stopped calling the API: {fatal}" if fatal else None

    def _note_stop(self) -> None:
        """Tell the progress (stderr) once that the judge stopped calling, when it did."""
        stopped = self._stopped()
        if stopped is None:
            return
        with self._stop_lock:
            if self._stop_noted:
                return
            self._stop_noted = True
        self._progress.note(plain(stopped, max_len=NOTE_CHARS))

    @property
    def warnings(self) -> tuple[str, ...]:
        """What the report should say: setup notes, then each distinct SDK warning."""
        sdk = [f"{w.category.__name__}: {w.message}" for w in self._records if _is_sdk(w.filename)]
        runner = self._settler.runner if self._settler else None
        stopped = self._stopped()
        batch = runner.notes if runner else []
        return tuple(dict.fromkeys(([stopped] if stopped else []) + self._notes + batch + self._trust_notes() + sdk))

    @property
    def unverified_keys(self) -> frozenset[str]:
        """The judge-cache entries this session's judge asked for and did not trust (the base revision lacks them)."""
        return self._cache.unverified_keys if self._cache is not None else frozenset()

    def add_unverified(self, keys: Iterable[str]) -> None:
        """Count ``keys`` among the untrusted entries, as another session's judge found them (a worker
        process judging this set's other runs from the same cache)."""
        if self._cache is not None:
            self._cache.add_unverified(keys)

    def _trust_notes(self) -> list[str]:
        """How many judge-cache entries the pull request brought along, and which a fresh judge contradicted."""
        cache = self._cache
        if cache is None or not cache.unverified_keys:
            return []
        n = len(cache.unverified_keys)
        if self.mode == "replay":
            notes = [f"judge: {n} judge-cache entr{'y' if n == 1 else 'ies'} added or changed by this pull "
                     f"request {'was' if n == 1 else 'were'} not used: the claims they would score are "
                     f"unscored ({NOT_VERIFIED})"]
        else:
            notes = [f"judge: {n} judge-cache entr{'y' if n == 1 else 'ies'} added or changed by this pull "
                     "request judged afresh; the fresh judgements are used"]
        notes += [f"judge: the judge-cache entry {d} added by this pull request disagrees with a fresh "
                  "judgement" for d in cache.disagreements]
        return notes
