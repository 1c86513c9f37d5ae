"""``Recorder``: one agent run recorded from inside the agent, by wrapping the tools it already has.

    rec = Recorder("Which EU member states adopted the euro after 2010?")

    @rec.search(provider="serpapi")      # returns the provider's JSON: kept whole, results parsed
    def web_search(query: str) -> dict: ...

    @rec.read(max_chars=8000)            # returns the text the model reads: cut here, marked truncated
    def read_page(url: str) -> str: ...

    create = rec.model(client.messages.create)   # optional: each model call's time, tokens and cost

    rec.answer(text, citations)          # then rec.guard() before the user sees it, and rec.save()

    outcome = rec.regenerate(draft, attempts=3)   # or: each draft guarded until one passes

Sync and async functions alike; the wrapper returns what the function returned (a page cut to
``max_chars`` comes back cut, which is what the model then reads). The query is the function's
first parameter (the URL, for a reader) unless ``arg`` names another. Every wrapped call is timed:
its start (the run's ``started_at`` plus the time since, on ``timer``) and its duration. The clock
and the timer are injected, so the recording is testable; the environment (``SOURCEGATE_CASE``, ``SOURCEGATE_QUESTION``,
``SOURCEGATE_TRACE_FILE``) is read only where the recorder starts and where it saves.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar, overload

from gate.config import Config
from gate.errors import RecordError
from gate.files.jsonio import dump_json, validate, write_atomic
from gate.model import Attempt, Case, Citation, Clock, Finding, ModelCall, Page, Run, SearchCall, SearchResult
from gate.record.clock import agent_clock
from gate.record.freeze import Searched, freeze
from gate.record.regenerate import Regenerated, Rejection, attempt_of
from gate.record.trace import trace_dict
from gate.record.wrap import Took, argument_of, duration_of, model_call_of, wrapped
from gate.snapshot.parsers import detect, parse_results
from gate.snapshot.store import search_failure
from gate.usage.tokens import search_cost

if TYPE_CHECKING:  # the checks load with the first guard(): an agent that never calls it never loads them
    from gate.checks.passage import PageIndex

P = ParamSpec("P")
_R = TypeVar("_R")

Cited = Iterable[Citation | Mapping[str, Any] | str]
"""Citations as an agent gives them: URLs, :class:`gate.Citation`s or ``{"url", "quote"}`` mappings."""
Draft = str | tuple[str, Cited | None]
"""A draft answer: its text, or its text and citations (None: its links are what it cites)."""

TRACE_FILE_ENV = "SOURCEGATE_TRACE_FILE"
CASE_ENV = "SOURCEGATE_CASE"
QUESTION_ENV = "SOURCEGATE_QUESTION"
SOURCE = "<recording>"


class Recorder:
    """The record of one agent run on one question: queries, results, pages read, the answer."""

    def __init__(self, question: str | None = None, *, case: str | None = None,
                 about_domains: Iterable[str] = (), config: Config | None = None,
                 agent: Mapping[str, str] | None = None, clock: Clock | None = None,
                 environ: Mapping[str, str] | None = None, timer: Callable[[], float] = time.perf_counter) -> None:
        """Start a recording; ``question`` and ``case`` default to ``SOURCEGATE_QUESTION`` / ``SOURCEGATE_CASE``.

        ``about_domains`` and ``config`` are what :meth:`guard` checks with (the golden set's case
        and ``sourcegate.yaml``; the defaults otherwise). ``clock`` returns aware datetimes (default:
        the recording's time under ``sourcegate run``, ``$SOURCEGATE_NOW``, else the wall clock:
        :func:`gate.record.clock.agent_clock`); ``timer`` (seconds, monotonic) times each wrapped call
        from the start of the recording, so a call's start is ``started_at`` plus the timer's reading.
        """
        env = os.environ if environ is None else environ
        asked = question if question is not None else env.get(QUESTION_ENV)
        if asked is None:
            raise RecordError(f"no question: pass Recorder(question=...) or set {QUESTION_ENV}")
        self.question = asked
        self.case = case if case is not None else (env.get(CASE_ENV) or None)
        self._config = config or Config()
        self._case = Case(id=self.case or "recording", question=asked, about_domains=tuple(about_domains))
        self._agent = dict(agent or {})
        self._clock = clock if clock is not None else agent_clock(env)
        self.started_at = self._now()
        self._timer = timer
        self._zero = timer()
        self._lock = threading.Lock()
        self._queries: list[str] = []
        self._results: list[SearchResult] = []
        self._pages: list[Page] = []
        self._searched: list[Searched] = []
        self._search_calls: list[SearchCall] = []
        self._model_calls: list[ModelCall] = []
        self._indexes: dict[int, PageIndex] = {}
        self._answer: str | None = None
        self._citations: tuple[Citation, ...] | None = None
        self._notes: list[str] = []
        self._attempts: list[Attempt] = []
        self._drafts: list[str] = []
        self._attempted = self._zero
        """when the last attempt ended, on the timer (the recording's start before the first)"""

    def _now(self) -> datetime:
        moment = self._clock()
        if moment.tzinfo is None:
            raise RecordError("the recorder's clock returned a time without a time zone (expected an aware "
                              "datetime, e.g. datetime.now(UTC))")
        return moment

    # ---------------------------------------------------------------- wrapping the agent's tools

    @overload
    def search(self, fn: Callable[P, _R], *, provider: str | None = None, arg: str | None = None,
               ) -> Callable[P, _R]: ...

    @overload
    def search(self, fn: None = None, *, provider: str | None = None, arg: str | None = None,
               ) -> Callable[[Callable[P, _R]], Callable[P, _R]]: ...

    def search(self, fn: Callable[P, _R] | None = None, *, provider: str | None = None,
               arg: str | None = None) -> Any:
        """Record every call of a search function: the literal query, the full response, its results.

        The function returns the search API's JSON (a dict, the Anthropic result block, or an SDK
        object with ``model_dump``); ``provider`` is an id of :data:`gate.record.PARSERS`, or
        None to tell it by its shape. Use as ``@rec.search`` or ``@rec.search(provider="brave")``.
        Each call records the provider, and its ``search_depth`` keyword (Tavily's), which price it.
        """
        def wrap(f: Callable[P, _R]) -> Callable[P, _R]:
            query_of = argument_of(f, arg, "query")

            def before(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[int, str | None]:
                query = query_of(args, kwargs)
                with self._lock:
                    self._queries.append(query)
                    return len(self._queries) - 1, _depth(kwargs, "search_depth")

            def after(asked: tuple[int, str | None], returned: Any, took: Took) -> Any:
                self._record_search(asked, returned, provider, took)
                return returned

            return wrapped(f, before, after, self._timer)

        return wrap if fn is None else wrap(fn)

    @overload
    def read(self, fn: Callable[P, _R], *, max_chars: int | None = None, arg: str | None = None,
             provider: str | None = None) -> Callable[P, _R]: ...

    @overload
    def read(self, fn: None = None, *, max_chars: int | None = None, arg: str | None = None,
             provider: str | None = None) -> Callable[[Callable[P, _R]], Callable[P, _R]]: ...

    def read(self, fn: Callable[P, _R] | None = None, *, max_chars: int | None = None,
             arg: str | None = None, provider: str | None = None) -> Any:
        """Record every call of a page-reading function: what the model read, and whether it was cut.

        The function returns the text the model reads, or a mapping with ``text`` and any of
        ``status``, ``final_url``, ``truncated``, ``published``, ``links`` (the URLs the page showed
        beside its text, as a scraper lists them), or a :class:`gate.model.Page`.
        With ``max_chars`` a longer text is cut here, recorded as truncated, and returned cut.
        ``provider`` names the search provider whose extraction API reads the page (``tavily``:
        its extract, billed per page read, with the call's ``extract_depth``); None: the agent
        fetches pages itself.
        """
        if max_chars is not None and max_chars < 0:
            raise RecordError(f"max_chars must be 0 or more, got {max_chars}")

        def wrap(f: Callable[P, _R]) -> Callable[P, _R]:
            url_of = argument_of(f, arg, "URL")

            def before(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[str, str | None]:
                return url_of(args, kwargs), _depth(kwargs, "extract_depth")

            def after(asked: tuple[str, str | None], returned: Any, took: Took) -> Any:
                link, depth = asked
                page, out = _page(link, returned, max_chars, self._now())
                page = replace(page, started_at=self._at(took[0]), duration_ms=duration_of(took),
                               provider=provider, depth=depth if provider is not None else None)
                with self._lock:
                    self._pages.append(page)
                return out

            return wrapped(f, before, after, self._timer)

        return wrap if fn is None else wrap(fn)

    @overload
    def model(self, fn: Callable[P, _R]) -> Callable[P, _R]: ...

    @overload
    def model(self, fn: None = None) -> Callable[[Callable[P, _R]], Callable[P, _R]]: ...

    def model(self, fn: Callable[P, _R] | None = None) -> Any:
        """Record every call of a model-calling function: when, how long, the model, its tokens and cost.

        Wrap the SDK's own method (``rec.model(client.messages.create)``, ``rec.model(client.responses.create)``,
        ``rec.model(client.chat.completions.create)``) or a function of the agent that returns the
        response. The response is returned unchanged; its ``model`` and ``usage`` are read when it has
        them (an Anthropic message, an OpenAI chat completion or response, a dict of one of those), and
        priced from ``judge.prices`` of the configuration. A response of another shape (a stream) is
        timed only.
        """
        def wrap(f: Callable[P, _R]) -> Callable[P, _R]:
            def before(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
                return None

            def after(_: None, returned: Any, took: Took) -> Any:
                response = returned.model_dump(mode="json") if hasattr(returned, "model_dump") else returned
                call = model_call_of(response, self._at(took[0]), duration_of(took), self._config.judge.prices)
                with self._lock:
                    self._model_calls.append(call)
                return returned

            return wrapped(f, before, after, self._timer)

        return wrap if fn is None else wrap(fn)

    def _at(self, moment: float) -> datetime:
        """The time ``moment`` of the timer stands for: the recording's start plus the time since."""
        return self.started_at + timedelta(seconds=moment - self._zero)

    def _record_search(self, asked: tuple[int, str | None], returned: Any, provider: str | None, took: Took) -> None:
        index, depth = asked
        response = returned.model_dump(mode="json") if hasattr(returned, "model_dump") else returned
        query = self._queries[index]
        timed = SearchCall(query=index, started_at=self._at(took[0]), duration_ms=duration_of(took),
                           cost_usd=search_cost(response), provider=provider, depth=depth)
        with self._lock:
            self._search_calls.append(timed)
        why = search_failure(response) or _block_failure(response)
        if why is not None:
            with self._lock:
                self._notes.append(f"search {query!r} failed ({why}): no results recorded")
            return
        chosen = provider or detect(response)
        if provider is None:  # told by the response's shape: the call is priced as that provider's
            with self._lock:
                at = next(i for i, c in enumerate(self._search_calls) if c is timed)
                self._search_calls[at] = replace(timed, provider=chosen)
        parsed = parse_results(response, chosen)
        with self._lock:
            self._results.extend(SearchResult(query=index, position=r.position, title=r.title, url=r.url,
                                              snippet=r.snippet, published=r.published) for r in parsed)
            self._searched.append(Searched(chosen, query, response, self._now()))

    @property
    def notes(self) -> tuple[str, ...]:
        """What the recording has to say: failed searches, pages a snapshot does not keep."""
        with self._lock:
            return tuple(self._notes)

    # ---------------------------------------------------------------- the answer

    def answer(self, text: str, citations: Cited | None = None) -> None:
        """Record the final answer; without ``citations`` the gate extracts them from the text."""
        self._answer = text
        self._citations = None if citations is None else _citations(citations)

    def guard(self, answer: str | None = None, citations: Cited | None = None) -> tuple[Finding, ...]:
        """What in an answer fails a hard check so far: each finding with its check, URL and reason.

        Checks ``answer`` (a draft) or the answer recorded by :meth:`answer`, against what was
        searched and read until now, with every hard check of the gate that a draft decides
        (:data:`gate.record.GUARD_CHECKS`: ``fabricated_url``, ``unread_citation``, ``url_unresolved``,
        ``passage_missing``, ``domain_cap``, ``no_citations``, ``domain_floor``, and ``rejected_url_kept``
        for a URL an earlier :meth:`attempt` rejected). ``citations`` are
        checked together with the links of the answer's text: a link the list leaves out is checked
        all the same (without a list, and with a draft, the links are all there is). Nothing is read
        or written.
        """
        if answer is None and self._answer is None:
            raise RecordError("guard() needs an answer: pass the draft, or call answer() first")
        if citations is not None:
            cited: tuple[Citation, ...] | None = _citations(citations)
        else:
            cited = self._citations if answer is None else None
        run = self._run(answer if answer is not None else self._answer or "", cited)
        from gate.record.guard import guard  # noqa: PLC0415 (see the TYPE_CHECKING block)

        return guard(run, self._case, self._config, self._indexes)

    def attempt(self, answer: str, citations: Cited | None = None) -> Attempt:
        """Guard a draft (:meth:`guard`) and record it as an attempt of the run: the URLs rejected, the
        findings, its time (from the end of the attempt before, or the start of the recording).

        The building block of :meth:`regenerate`, for a loop of the agent's own (an async one, say).
        The draft that becomes the answer (:meth:`answer` with its text) is the trace's kept attempt.
        """
        found = attempt_of(self.guard(answer, citations))
        ended = self._timer()
        with self._lock:
            began, self._attempted = self._attempted, ended
            found = replace(found, started_at=self._at(began), duration_ms=duration_of((began, ended)))
            self._attempts.append(found)
            self._drafts.append(answer)
        return found

    def regenerate(self, draft: Callable[[Rejection | None], Draft], *, attempts: int = 3) -> Regenerated:
        """Draft, guard, and draft again without what was rejected, up to ``attempts`` drafts.

        ``draft(rejection)`` is the agent's own model call, on any SDK: given None the first time,
        then the :class:`gate.record.Rejection` of the draft before (its findings, every URL rejected
        so far, and :meth:`~gate.record.Rejection.message` to tell the model), it returns the answer's
        text, or its text and citations. Every draft is recorded (:meth:`attempt`). The result holds
        the first draft the guard let through, or says the loop gave up (``gave_up``, with the last
        draft beside it); the agent then records its answer (:meth:`answer`).
        """
        if attempts < 1:
            raise RecordError(f"attempts must be 1 or more, got {attempts}")
        rejection: Rejection | None = None
        done: list[Attempt] = []
        urls: tuple[str, ...] = ()
        text, cited = "", None
        for n in range(1, attempts + 1):
            text, cited = _draft(draft(rejection))
            done.append(self.attempt(text, cited))
            if not done[-1].findings:
                return Regenerated(text, cited, tuple(done), (text, cited))
            urls = tuple(dict.fromkeys((*urls, *done[-1].rejected)))
            rejection = Rejection(n, done[-1].findings, urls)
        return Regenerated(None, None, tuple(done), (text, cited))

    # ---------------------------------------------------------------- the record

    def run(self) -> Run:
        """The recording as the gate's value (the answer must have been given)."""
        if self._answer is None:
            raise RecordError("no answer recorded: call answer(text, citations) before saving")
        return self._run(self._answer, self._citations, final=True)

    def _run(self, answer: str, citations: tuple[Citation, ...] | None, *, final: bool = False) -> Run:
        with self._lock:
            attempts = tuple(self._attempts)
            if final and answer in self._drafts:  # the last draft with the answer's text became the answer
                kept = len(self._drafts) - 1 - self._drafts[::-1].index(answer)
                attempts = (*attempts[:kept], replace(attempts[kept], kept=True), *attempts[kept + 1:])
            return Run(case=self.case or "", question=self.question, answer=answer,
                       queries=tuple(self._queries), results=tuple(self._results), pages=tuple(self._pages),
                       citations=citations, started_at=self.started_at,
                       agent=tuple(sorted(self._agent.items())), source=SOURCE,
                       searches=tuple(sorted(self._search_calls, key=lambda c: c.query)),
                       model_calls=tuple(self._model_calls), attempts=attempts)

    def trace(self) -> dict[str, Any]:
        """The recording as a ``sourcegate-trace/1`` document, validated."""
        data = trace_dict(self.run())
        validate(data, "trace", SOURCE)
        return data

    def save(self, path: str | None = None, *, snapshot: str | None = None,
             environ: Mapping[str, str] | None = None) -> str:
        """Write the trace (to ``path``, else ``$SOURCEGATE_TRACE_FILE``); the file written.

        With ``snapshot`` (a golden-set folder), the searches, pages and extractions recorded go
        into its ``snapshot/`` too, so recording a golden set and freezing its web are one step.
        """
        env = os.environ if environ is None else environ
        target = path or env.get(TRACE_FILE_ENV)
        if not target:
            raise RecordError(f"no file to save the trace to: pass a path or set {TRACE_FILE_ENV}")
        text = dump_json(self.trace())
        if snapshot is not None:
            with self._lock:
                searched = tuple(self._searched)
            notes = freeze(self.run(), searched, snapshot)
            with self._lock:
                self._notes.extend(notes)
        write_atomic(target, text)
        return target


# -------------------------------------------------------------------- the pure parts

def _block_failure(response: Any) -> str | None:
    """An Anthropic ``web_search_tool_result`` whose content is an error object."""
    if isinstance(response, dict) and response.get("type") == "web_search_tool_result":
        content = response.get("content")
        if isinstance(content, dict) and content.get("type") == "web_search_tool_result_error":
            return f"web_search_tool_result_error {content.get('error_code')!r}"
    return None


_PAGE_KEYS = frozenset({"text", "status", "final_url", "truncated", "published", "links"})


def _depth(kwargs: Mapping[str, Any], name: str) -> str | None:
    """The depth a call asked its provider for (``search_depth``, ``extract_depth``), when it says one."""
    value = kwargs.get(name)
    return value if isinstance(value, str) and value else None


def _page(link: str, returned: Any, max_chars: int | None, now: datetime) -> tuple[Page, Any]:
    """The page recorded for what a reader returned, and what the wrapper hands back to the model."""
    if isinstance(returned, str):
        page = Page(url=link, text=returned, fetched_at=now)
    elif isinstance(returned, Page):
        page = replace(returned, url=link, fetched_at=returned.fetched_at or now)
    elif isinstance(returned, Mapping) and isinstance(returned.get("text"), str):
        extra = set(returned) - _PAGE_KEYS
        if extra:
            raise RecordError(f"unknown key(s) {sorted(extra)} in what the reader returned for {link} "
                              f"(expected {sorted(_PAGE_KEYS)})")
        published = returned.get("published")
        page = Page(url=link, text=returned["text"], final_url=returned.get("final_url"),
                    status=returned.get("status"), truncated=bool(returned.get("truncated", False)),
                    fetched_at=now,
                    published=date.fromisoformat(published) if isinstance(published, str) else published,
                    links=_links(link, returned.get("links")))
    else:
        raise RecordError(f"the page reader returned {type(returned).__name__} for {link}; expected the text "
                          "the model reads, a mapping with 'text', or a gate.Page")
    if max_chars is None or len(page.text) <= max_chars:
        return page, returned
    cut = replace(page, text=page.text[:max_chars], truncated=True)
    if isinstance(returned, str):
        return cut, cut.text
    if isinstance(returned, Page):
        return cut, replace(returned, text=cut.text, truncated=True)
    return cut, {**returned, "text": cut.text, "truncated": True}


def _links(link: str, given: Any) -> tuple[str, ...]:
    """The ``links`` a reader returned beside the text: URLs the model was shown (a scraper's link list)."""
    if given is None:
        return ()
    if isinstance(given, str) or not isinstance(given, Iterable) or \
            not all(isinstance(u, str) and u for u in given):
        raise RecordError(f"'links' of what the reader returned for {link} must be a list of URLs")
    return tuple(given)


def _draft(given: Draft) -> tuple[str, tuple[Citation, ...] | None]:
    """A draft as the agent's function returned it: its text, or its text and citations."""
    if isinstance(given, str):
        return given, None
    if isinstance(given, tuple) and len(given) == 2 and isinstance(given[0], str):
        return given[0], None if given[1] is None else _citations(given[1])
    raise RecordError(f"the draft function returned {type(given).__name__}; expected the answer's text, or "
                      "(text, citations)")


def _citations(given: Cited) -> tuple[Citation, ...]:
    out = []
    for i, c in enumerate(given):
        if isinstance(c, Citation):
            out.append(c)
        elif isinstance(c, str):
            out.append(Citation(url=c))
        elif isinstance(c, Mapping) and isinstance(c.get("url"), str):
            quote = c.get("quote")
            if quote is not None and not isinstance(quote, str):
                raise RecordError(f"citation {i}: 'quote' must be a string or None")
            out.append(Citation(url=c["url"], quote=quote))
        else:
            raise RecordError(f"citation {i}: expected a URL, a gate.Citation or a mapping with 'url', "
                              f"got {type(c).__name__}")
    return tuple(out)
