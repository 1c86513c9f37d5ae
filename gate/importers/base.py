"""What every importer shares: where it is in the input, strict shape checks, and the trace it builds.

An importer reads someone else's record of an agent run and returns a ``sourcegate-trace/1`` dict.
Every shape check goes through :class:`Where`, so a wrong input fails with the file and the JSON
path of the offending value (``$.content[3].input.query``; ``line 12, $.delta`` in a stream), never
with a ``KeyError``. Nothing here touches the network, the clock or the file system.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from gate.model import TRACE_FORMAT
from gate.urls import canonical, extract_urls
from gate.usage.tokens import Tokens, price_tokens


@dataclass(frozen=True)
class Context:
    """The input's name (for error messages) and what the user said on the command line."""

    source: str = "<input>"
    case: str | None = None
    question: str | None = None


class Importer(Protocol):
    """One input format: a stable id, a one-line description, and a pure ``convert``."""

    id: str
    description: str

    def convert(self, data: Any, ctx: Context) -> dict[str, Any]:
        """The trace recorded in ``data`` (file text, or the already-parsed JSON)."""
        ...


@dataclass
class TraceBuilder:
    """Collects a run in the order it happened, then writes it as a ``sourcegate-trace/1`` dict."""

    queries: list[str] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    pages: list[dict[str, Any]] = field(default_factory=list)
    citations: list[dict[str, Any]] = field(default_factory=list)
    searches: list[dict[str, Any]] = field(default_factory=list)
    model_calls: list[dict[str, Any]] = field(default_factory=list)
    attempts: list[dict[str, Any]] = field(default_factory=list)
    _positions: dict[int | None, int] = field(default_factory=dict)

    def query(self, sent: str) -> int:
        """Record a query; its index, for :meth:`result`."""
        self.queries.append(sent)
        return len(self.queries) - 1

    def result(self, query: int | None, link: str, title: str | None = None,
               snippet: str | None = None, published: str | None = None) -> None:
        """Record a search result; positions count from 1 within each query."""
        position = self._positions.get(query, 0) + 1
        self._positions[query] = position
        entry: dict[str, Any] = {"query": query, "position": position, "url": link}
        if title is not None:
            entry["title"] = title
        if snippet is not None:
            entry["snippet"] = snippet
        if published is not None:
            entry["published"] = published
        self.results.append(entry)

    def page(self, link: str, body: str, *, truncated: bool = False, fetched_at: str | None = None) -> None:
        """Record a page read; a second read of the same URL adds nothing unless it recorded more text."""
        entry: dict[str, Any] = {"url": link, "final_url": None, "status": None, "text": body,
                                 "truncated": truncated, "fetched_at": fetched_at}
        for i, known in enumerate(self.pages):
            if known["url"] == link:
                if not known["text"] and body:
                    self.pages[i] = entry
                return
        self.pages.append(entry)

    def timed_search(self, query: int, started_at: str | None, duration_ms: float | None,
                     cost_usd: float | None = None, provider: str | None = None, depth: str | None = None) -> None:
        """Record when the search of query ``query`` ran (RFC 3339 start, milliseconds), what its provider
        billed for it and which provider answered it at which depth, where the record says."""
        entry = _given({"query": query, "started_at": started_at, "duration_ms": duration_ms, "cost_usd": cost_usd,
                        "provider": provider, "depth": depth})
        if len(entry) > 1:
            self.searches.append(entry)

    def timed_page(self, link: str, started_at: str | None, duration_ms: float | None) -> None:
        """Record when the read of ``link`` (recorded by :meth:`page`) ran, if the record says."""
        for entry in self.pages:
            if entry["url"] == link and "started_at" not in entry and started_at is not None:
                entry.update(_given({"started_at": started_at, "duration_ms": duration_ms}))
                return

    def model_call(self, *, started_at: str | None = None, duration_ms: float | None = None,
                   model: str | None = None, tokens: Tokens | None = None, cost_usd: float | None = None) -> None:
        """Record one model call: when, how long, which model, its tokens, and its cost (as recorded,
        else priced from the gate's table)."""
        if cost_usd is None and tokens is not None:
            cost_usd = price_tokens(model, tokens)
        entry = _given({"started_at": started_at, "duration_ms": duration_ms, "model": model or None,
                        "cost_usd": cost_usd})
        if tokens is not None:
            entry.update(input_tokens=tokens.input_tokens, output_tokens=tokens.output_tokens,
                         cache_read_tokens=tokens.cache_read_tokens, cache_write_tokens=tokens.cache_write_tokens)
        if entry:
            self.model_calls.append(entry)

    def attempt(self, rejected: list[str], findings: list[dict[str, Any]], kept: bool, started_at: str | None,
                duration_ms: float | None) -> None:
        """Record one draft the agent guarded: the URLs rejected, the findings, whether it became the answer."""
        self.attempts.append({"rejected": rejected, "findings": findings, **_given(
            {"kept": kept or None, "started_at": started_at, "duration_ms": duration_ms})})

    def cite(self, link: str, quote: str | None = None) -> None:
        """Record a citation (the same URL may be cited again with another quote)."""
        entry = {"url": link, "quote": quote}
        if entry not in self.citations:
            self.citations.append(entry)

    def cite_answer_links(self, answer: str) -> None:
        """Also cite the URLs written in the answer that no structured citation already names.

        A reader follows a link in the text whether or not the API annotated it, so it counts.
        """
        known = {canonical(c["url"]) for c in self.citations}
        for link in extract_urls(answer):
            if canonical(link) not in known:
                known.add(canonical(link))
                self.cite(link)

    def build(self, ctx: Context, *, question: str | None, answer: str, started_at: str | None = None,
              model: str | None = None, cited: bool = True) -> dict[str, Any]:
        """The trace: the command line's ``--case`` and ``--question`` win over what was recorded.

        ``cited=False`` leaves ``citations`` out, so the gate extracts them from the answer itself.
        """
        trace: dict[str, Any] = {"format": TRACE_FORMAT}
        if ctx.case is not None:
            trace["case"] = ctx.case
        trace["question"] = ctx.question if ctx.question is not None else (question or "")
        if started_at is not None:
            trace["started_at"] = started_at
        trace.update(queries=self.queries, results=self.results, pages=self.pages)
        if self.searches:
            trace["searches"] = sorted(self.searches, key=lambda c: int(c["query"]))
        if self.model_calls:
            trace["model_calls"] = self.model_calls
        trace["answer"] = answer
        if cited:
            trace["citations"] = self.citations
        if self.attempts:
            trace["attempts"] = self.attempts
        if model:
            trace["agent"] = {"model": model}
        return trace


def _given(pairs: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in pairs.items() if v is not None}


def duration_ms(start: str | None, end: str | None) -> float | None:
    """Milliseconds from ``start`` to ``end`` (RFC 3339, as :func:`timestamp` writes them); None when
    either is missing or the end comes first."""
    if start is None or end is None:
        return None
    took = (datetime.fromisoformat(end.replace("Z", "+00:00"))
            - datetime.fromisoformat(start.replace("Z", "+00:00"))).total_seconds() * 1000
    return round(took, 3) if took >= 0 else None


def last_message(messages: Any, speakers: tuple[str, ...]) -> str | None:
    """The words of the last message of ``speakers`` in a chat's ``messages``, or None.

    A message names its speaker by ``role`` (``user``, ``assistant``) or LangChain's ``type``
    (``human``, ``ai``), also inside a serialised message's ``kwargs``; one with no words (an AI turn
    that only called tools) is passed over. A LangChain batch (a list of message lists) is read by
    its last list.
    """
    if isinstance(messages, list) and messages and isinstance(messages[0], list):
        messages = messages[-1]
    if not isinstance(messages, list):
        return None
    for m in reversed(messages):
        if isinstance(m, dict):
            kwargs = m.get("kwargs")
            inner: dict[str, Any] = kwargs if isinstance(kwargs, dict) else {}
            speaker = m.get("role") or m.get("type") or inner.get("type")
            content = m.get("content", inner.get("content"))
            if speaker in speakers and isinstance(content, str) and content.strip():
                return content
    return None


def strip_elision(quote: str) -> str | None:
    """A quoted passage without the trailing ``...`` an API adds when it cut the passage short.

    The cut marks where the quote stops, not text on the page; kept, it would be searched for.
    """
    cut = quote.rstrip()
    for marker in ("...", "\u2026"):
        if cut.endswith(marker):
            cut = cut[: -len(marker)].rstrip()
            break
    return cut or None
