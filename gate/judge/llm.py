"""The LLM judge: at most three tool calls per run, the cache in front of them, the code's checks after.

Per run: ``extract_claims`` (the answer), then ``grade_claims`` (all claims in one call, each source's
relevant passages sent once), then ``assess_run`` (query quality, regime and the source types no rule
decides, together; skipped when there is nothing to ask). Every reply is validated, every quote is
verified (:mod:`gate.judge.verify`), and anything the judge could not answer is unscored with a reason.

Cost controls, all here: the judge cache (a second live run makes no call); the static prefix (tool and
system prompt) is marked for prompt caching only when it is long enough to be cached and
will be reused by other runs, and the first call with that prefix goes alone so the others can read
it; an overall deadline; and after ``BREAKER_AFTER`` failed calls in a row (the SDK having retried each)
the judge stops calling, so an outage costs seconds, not the deadline. A refused key (401, 403:
:class:`gate.errors.JudgeAuthError`) opens the breaker at once, and until one call has succeeded the
calls go out one at a time, so a wrong key costs one call however many runs and workers there are.

In judge mode ``batch`` the provider answers from message batches (:mod:`gate.judge.batch`): its
replies are priced at the batch price, its :class:`gate.judge.base.Settled` failures (a request a
batch could not answer) leave claims unscored without tripping the breaker, and ``billed`` charges a
batched reply the last pass reads back from the cache.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from gate.checks.base import Subject
from gate.checks.source_rules import rule_source_type
from gate.config import Config
from gate.errors import JudgeAuthError, JudgeUnavailable
from gate.judge.base import JudgeRequest, Provider, Settled, ToolCall, ToolReply, worth_caching
from gate.judge.cache import NOT_VERIFIED, JudgeCache
from gate.judge.evidence import select_snippets, select_sources
from gate.judge.parse import Assessment, parse_assessment, parse_claims, parse_verdicts
from gate.judge.render import assess_user, claims_user, grade_user, run_marker
from gate.judge.tools import ASSESS_RUN, EXTRACT_CLAIMS, GRADE_CLAIMS, TOOLS, Tool
from gate.judge.verify import Material, check
from gate.judgement import NOT_IN_CACHE, Claim, ClaimVerdict, RunJudgement, SourceType, Usage
from gate.usage.cost import priced

_T = TypeVar("_T")
BREAKER_AFTER = 3
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def estimate_claims(answer: str) -> int:
    """Sentences of three words or more: how many claims an answer whose claims are unknown counts as."""
    return max(1, sum(1 for s in _SENTENCE.split(answer) if len(s.split()) >= 3))


class _PrefixGate:
    """The first call with a given cached prefix goes alone; the others wait so they can read it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._done: dict[str, threading.Event] = {}

    def run(self, prefix: str, fn: Callable[[], _T], timeout: float) -> _T:
        with self._lock:
            event = self._done.get(prefix)
            first = event is None
            if event is None:
                event = self._done[prefix] = threading.Event()
        if not first:
            event.wait(timeout)
            return fn()
        try:
            return fn()
        finally:
            event.set()


@dataclass
class _Tally:
    usage: Usage = field(default_factory=Usage)
    warnings: list[str] = field(default_factory=list)


class LLMJudge:
    """Implements the ``Judge`` seam with forced tool calls through a :class:`Provider`.

    ``caller`` None means replay: a reply missing from ``cache`` leaves its claims unscored with the
    reason "not in judge cache". ``expected_runs`` says how many runs this judge will see, which
    decides whether a static prefix is reused enough to be worth caching.
    """

    def __init__(self, config: Config, *, cache: JudgeCache | None, caller: Provider | None,
                 expected_runs: int = 1, clock: Callable[[], float] = time.monotonic,
                 billed: Callable[[ToolCall], Usage | None] | None = None) -> None:
        """Set up the judge; the overall deadline starts now.

        ``billed``: for a reply read from the cache, what it cost if this run paid for it (a message
        batch's result, written to the cache before this judge read it), else None: a cache hit.
        """
        self._config = config
        self._billed = billed
        self._cfg = config.judge
        self._cache = cache
        self._caller = caller
        self._clock = clock
        self._deadline = clock() + self._cfg.deadline_seconds
        model = self._cfg.model
        self._cache_prefix = {
            name: worth_caching(ToolCall(tool, model, "").prefix_chars, model, expected_runs)
            for name, tool in TOOLS.items()
        }
        self._gate = _PrefixGate()
        self._lock = threading.Lock()
        self._failures = 0
        self._last_failure = ""
        self._fatal: str | None = None
        self._first = threading.Lock()  # held by the one call in flight until a call has succeeded
        self._proven = False

    @property
    def fatal(self) -> str | None:
        """Why the judge stopped calling for good (a refused key), or None."""
        with self._lock:
            return self._fatal

    def _call(self, tool: Tool, user: str) -> ToolCall:
        return ToolCall(tool, self._cfg.model, user, self._cfg.max_tokens, self._cache_prefix[tool.name],
                        self._cfg.provider)

    def _send(self, call: ToolCall) -> ToolReply:
        with self._lock:
            proven = self._proven
        if proven:
            return self._send_now(call)
        with self._first:  # the first calls go alone: a refused key is learnt from one call
            return self._send_now(call)

    def _send_now(self, call: ToolCall) -> ToolReply:
        assert self._caller is not None
        caller = self._caller
        with self._lock:
            if self._fatal is not None:
                raise JudgeUnavailable(f"not sent: {self._fatal}")
            if self._failures >= BREAKER_AFTER:
                raise JudgeUnavailable(f"not sent: the judge API failed {self._failures} times in a row "
                                       f"(last: {self._last_failure})")

        def send() -> ToolReply:
            # Measured when the call goes out (it may have waited for the prefix's first call): the
            # caller holds the whole call, retries and a trickling reply included, to what is left.
            remaining = self._deadline - self._clock()
            if remaining <= 0:
                raise JudgeUnavailable(f"the judge's deadline of {self._cfg.deadline_seconds:g} s has passed")
            return caller.call(call, remaining)

        try:
            if call.cache_prefix:
                reply = self._gate.run(call.tool.prompt, send, max(0.0, self._deadline - self._clock()))
            else:
                reply = send()
        except JudgeAuthError as e:
            with self._lock:
                self._fatal = self._fatal or str(e)
            raise
        except Settled:
            raise
        except JudgeUnavailable as e:
            with self._lock:
                self._failures += 1
                self._last_failure = str(e)
            raise
        with self._lock:
            self._failures = 0
            self._proven = True
        return reply

    def _ask(self, call: ToolCall, parse: Callable[[Mapping[str, Any]], tuple[_T, bool]], tally: _Tally) -> _T:
        unverified = False
        if self._cache is not None:
            hit = self._cache.get(call)
            if hit is not None:
                billed = self._billed(call) if self._billed is not None else None
                tally.usage += billed or Usage(judge_cache_hits=1)
                return parse(hit)[0]
            unverified = call.key in self._cache.unverified_keys
        if self._caller is None:
            tally.usage += Usage(judge_cache_misses=1)
            # An entry the pull request brought along is not evidence: its claims stay unscored.
            raise JudgeUnavailable(NOT_VERIFIED if unverified else NOT_IN_CACHE)
        reply = self._send(call)
        # A batch's reply counts the one call it was; served again (no judge cache to read it from), none.
        calls = reply.usage.calls if reply.batched else 1
        tally.usage += priced(replace(reply.usage, calls=calls), call.model, self._cfg.prices, batch=reply.batched)
        if reply.stop_reason == "refusal":
            raise JudgeUnavailable("the model refused to answer")
        if reply.tool_input is None:
            raise JudgeUnavailable(f"the reply has no {call.tool.name} call "
                                   f"(stop reason {reply.stop_reason})")
        if reply.stop_reason == "max_tokens":
            raise JudgeUnavailable(f"the reply was cut off at max_tokens ({call.max_tokens})")
        value, complete = parse(reply.tool_input)
        if unverified and self._cache is not None:
            claimed = self._cache.unverified(call)
            if claimed is not None and dict(claimed) != dict(reply.tool_input):
                self._cache.disagrees(call)
        if complete and self._cache is not None:
            self._cache.put(call, reply.tool_input, reply.usage)
        return value

    def _grade(self, subject: Subject, claims: tuple[Claim, ...], mark: str,
               tally: _Tally) -> tuple[ClaimVerdict, ...]:
        run = subject.run
        sources = select_sources(run.pages, claims, self._cfg.max_evidence_chars)
        snippets = select_snippets(run.results)
        call = self._call(GRADE_CLAIMS, grade_user(claims, sources, mark, snippets))
        graded: Mapping[int, Any]
        try:
            graded, warnings = self._ask(call, lambda i: parse_verdicts(i, claims), tally)
            tally.warnings += warnings
        except JudgeUnavailable as e:
            graded = {c.id: str(e) for c in claims}
        material = Material(run.pages, snippets, subject.index)
        return tuple(check(c, graded[c.id], material) for c in claims)

    def _assess(self, subject: Subject, classify: list[str], mark: str, tally: _Tally) -> Assessment | None:
        """Query scores, regime and source types in one call; None when there is nothing to ask."""
        run, case = subject.run, subject.case
        if not run.queries and not run.results and case.freshness is not None and not classify:
            return None
        seen = {r.url: f"{r.title}\n{r.snippet}" for r in run.results}
        seen.update((p.url, p.text) for p in run.pages)
        call = self._call(ASSESS_RUN, assess_user(run, case, mark, [(u, seen.get(u, "")) for u in classify]))
        return self._ask(call, lambda i: parse_assessment(i, run.queries, classify), tally)

    def judge(self, request: JudgeRequest) -> RunJudgement:
        """Judge one run; the judge's failures are unscored claims and problems, never exceptions."""
        run, case = request.run, request.case
        subject = request.prepared(self._config)
        mark = run_marker(run)
        tally = _Tally()
        notes: list[str] = []
        problems: list[str] = []
        claims: tuple[Claim, ...] = ()
        claims_error = None
        try:
            call = self._call(EXTRACT_CLAIMS, claims_user(run, mark, list(subject.cited.values())))
            claims, warnings = self._ask(call, lambda i: parse_claims(i, subject.cited), tally)
            tally.warnings += warnings
        except JudgeUnavailable as e:
            claims_error = f"claims could not be extracted: {e}"
        if claims_error is None and not claims:
            notes.append("the answer makes no factual claims: grounding is not measured (which is not 100%)")
        verdicts = self._grade(subject, claims, mark, tally) if claims else ()

        rules = {u: rule_source_type(u, case.about_domains) for u in subject.cited.values()}
        classify = [u for u, rule in rules.items() if rule is None]
        assessment: Assessment | None = None
        try:
            assessment = self._assess(subject, classify, mark, tally)
        except JudgeUnavailable as e:
            problems.append(f"query quality, regime and source types: {e}")
        kinds = assessment[2] if assessment else {}
        typed = [rule or SourceType(u, kinds.get(u), "judge" if u in kinds else None,
                                    None if u in kinds else "not judged")
                 for u, rule in rules.items()]
        if assessment:
            tally.warnings += assessment[3]
        if not run.queries:
            notes.append("no queries recorded: query quality not measured")
        return RunJudgement(
            claims=claims,
            verdicts=verdicts,
            regime=assessment[1] if assessment and case.freshness is None else None,
            query_scores=assessment[0] if assessment else (),
            retrieval_relevance=assessment[4] if assessment else None,
            source_types=tuple(typed),
            usage=tally.usage,
            warnings=tuple(tally.warnings),
            notes=tuple(notes),
            problems=tuple(problems),
            claims_error=claims_error,
            estimated_claims=estimate_claims(run.answer) if claims_error else 0,
        )
