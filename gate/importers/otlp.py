"""``otlp``: OpenTelemetry spans with OpenInference conventions (OTLP/JSON, or a JSON span list).

    root span (no parent)          -> the question (``input.value``) and the answer (``output.value``);
                                      its start -> started_at
    RETRIEVER spans                -> a query each (``input.value``, or its ``query`` member when JSON)
                                      and its results: ``retrieval.documents.N.document.*``; the URL is
                                      ``metadata.url``, else the document id when it is an http(s) URL;
                                      title and published date from the metadata, snippet = content
    TOOL spans named fetch_page    -> pages read: ``url.full``, ``output.value`` (the text),
                                      ``http.response.status_code``, fetched at the span's start
    LLM spans                      -> agent.model (``llm.model_name``); the answer when the root has
                                      none (``output.value`` or the first output message); a model call
                                      each: ``llm.token_count.*``, ``llm.cost.total``, the model
    span start and end             -> when each search, page read and model call ran and how long it
                                      took (not for a span that says ``sourcegate.timing`` not_recorded;
                                      a trace moved to its export time, ``sourcegate.recorded_at``, is
                                      moved back)
    sourcegate.citations           -> the citations (as ``sourcegate check --otlp-json`` writes them);
                                      otherwise the gate extracts them from the answer
    sourcegate.search.provider, .depth, sourcegate.cost_usd (basis ``billed``) of a web_search or a
                                   -> the search's provider, depth and billed cost; a page's provider
      fetch_page span                 (read through its extraction API); a cost the gate priced from
                                      its table is left out: the table prices the trace again
    GUARDRAIL spans with           -> the drafts the agent guarded (as sourcegate writes them): the
    sourcegate.attempt.index          rejected URLs, the findings (``output.value``, JSON), kept, times

A file may hold several traces (one per line, as sourcegate writes one per case): ``--case`` then
picks the one whose root says ``sourcegate.case.id``. A span id recorded twice is one span, read
from its first record. Documents without a web URL (a vector store's
chunks) are not web sources and are left out. Spans are read in start-time order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from gate.files.jsonio import check_depth
from gate.files.where import Where, publication_date
from gate.importers.base import Context, TraceBuilder, duration_ms
from gate.importers.embedded import embedded
from gate.importers.spanfile import Span, read_spans
from gate.usage.tokens import Tokens

_KIND = "openinference.span.kind"
_QUERY_KEYS = ("query", "q", "input", "question")


class OtlpImporter:
    """OTLP/JSON span files (or JSON span lists) following the OpenInference conventions."""

    id = "otlp"
    description = "OpenTelemetry spans, OTLP/JSON or a span list, with OpenInference conventions"

    def convert(self, data: Any, ctx: Context) -> dict[str, Any]:
        """The run of the one trace in the file (or the one ``--case`` names)."""
        if not isinstance(data, str):
            check_depth(data, ctx.source)  # before it is written out as text again
        raw = data if isinstance(data, str) else json.dumps(data)
        spans = _first_records(_one_trace(read_spans(raw, ctx.source), ctx))
        root = _root(spans)
        ordered = [s for _, s in sorted(enumerate(spans), key=lambda pair: (pair[1].start or "", pair[0]))]
        clock = _Clock.of(root)
        calls = {s.parent: s for s in spans if s.attributes.get("tool.name") == "web_search"}  # under its search
        trace = TraceBuilder()
        models = _ModelCalls(answer=_text(root.attributes.get("output.value")))
        for span in ordered:
            kind = span.attributes.get(_KIND)
            if kind == "RETRIEVER":
                _retriever(span, trace, clock, calls.get(span.id))
            elif kind == "TOOL" and span.attributes.get("tool.name") == "fetch_page":
                _page(span, trace, clock)
            elif kind == "LLM":
                _model_call(span, trace, clock)
                models.read(span)
            elif kind == "GUARDRAIL" and "sourcegate.attempt.index" in span.attributes:
                _attempt(span, trace, clock)
        question = _query_text(root, "input.value")
        if question is None and ctx.question is None:
            raise root.at.key("attributes").error("the root span has no input.value (the question): "
                                                  "pass --question")
        if models.answer is None:
            raise root.at.key("attributes").error("no answer found (output.value of the root span or of "
                                                  "an LLM span)")
        for link in models.citations or ():
            trace.cite(link)
        return trace.build(ctx, question=question, answer=models.answer, started_at=clock.moved(root.start),
                           model=models.model, cited=models.citations is not None)


def _root(spans: list[Span]) -> Span:
    """The trace's one root span: no parent, or a parent the file does not hold."""
    ids = {s.id for s in spans}
    roots = [s for s in spans if s.parent is None or s.parent not in ids]
    if len(roots) != 1:
        raise spans[0].at.error(f"expected one root span in trace {spans[0].trace}, found {len(roots)}")
    return roots[0]


@dataclass
class _ModelCalls:
    """What the LLM spans say, read in start order: the first model named, the answer when the root
    has none, and the first citations list."""

    answer: str | None
    model: str | None = None
    citations: list[str] | None = None

    def read(self, span: Span) -> None:
        attributes = span.attributes
        self.model = self.model or _text(attributes.get("llm.model_name"))
        if self.answer is None:
            self.answer = _text(attributes.get("output.value")) or _text(
                attributes.get("llm.output_messages.0.message.content"))
        cited = attributes.get("sourcegate.citations")
        if isinstance(cited, list) and self.citations is None:
            self.citations = [str(u) for u in cited]


@dataclass(frozen=True)
class _Clock:
    """How far a trace was moved to its export time (``sourcegate.recorded_at`` on its root), to move back."""

    shift: timedelta

    @classmethod
    def of(cls, root: Span) -> _Clock:
        recorded = _text(root.attributes.get("sourcegate.recorded_at"))
        if recorded is None or root.start is None:
            return cls(timedelta(0))
        try:
            return cls(_moment(root.start) - _moment(recorded))
        except ValueError:
            return cls(timedelta(0))

    def moved(self, iso: str | None) -> str | None:
        """``iso`` as it was recorded."""
        if iso is None or not self.shift:
            return iso
        return (_moment(iso) - self.shift).isoformat().replace("+00:00", "Z")

    def times(self, span: Span) -> tuple[str | None, float | None]:
        """The span's recorded start and duration; none when it says its times were not recorded."""
        if span.attributes.get("sourcegate.timing") == "not_recorded":
            return None, None
        return self.moved(span.start), duration_ms(span.start, span.end)


def _moment(iso: str) -> datetime:
    return datetime.fromisoformat(iso.replace("Z", "+00:00"))


def _count(span: Span, name: str) -> int | None:
    value = span.attributes.get(name)
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _model_call(span: Span, trace: TraceBuilder, clock: _Clock) -> None:
    """A model call from an LLM span's token counts and cost, or its times alone."""
    start, took = clock.times(span)
    prompt, completion = _count(span, "llm.token_count.prompt"), _count(span, "llm.token_count.completion")
    read = _count(span, "llm.token_count.prompt_details.cache_read") or 0
    write = _count(span, "llm.token_count.prompt_details.cache_write") or 0
    tokens = None
    if prompt is not None or completion is not None:
        tokens = Tokens(max(0, (prompt or 0) - read - write), completion or 0, read, write)
    cost = _cost(span, "llm.cost.total")
    if tokens is None and start is None and cost is None:
        return  # an answer alone: no call was recorded
    trace.model_call(started_at=start, duration_ms=took, model=_text(span.attributes.get("llm.model_name")),
                     tokens=tokens, cost_usd=cost)


def _attempt(span: Span, trace: TraceBuilder, clock: _Clock) -> None:
    """A draft the agent guarded, from sourcegate's own attempt span."""
    attributes = span.attributes
    found = embedded(_text(attributes.get("output.value")) or "[]", _attribute_at(span, "output.value"), [])
    findings = [f for f in found if isinstance(f, dict) and isinstance(f.get("check"), str)
                and isinstance(f.get("message"), str)] if isinstance(found, list) else []
    rejected = attributes.get("sourcegate.attempt.rejected")
    trace.attempt([str(u) for u in rejected] if isinstance(rejected, list) else [],
                  [{"check": f["check"], "url": f.get("url") if isinstance(f.get("url"), str) else None,
                    "message": f["message"]} for f in findings],
                  attributes.get("sourcegate.attempt.kept") is True, *clock.times(span))


def _one_trace(spans: list[Span], ctx: Context) -> list[Span]:
    """The spans of the file's only trace, or of the trace whose root names case ``ctx.case``."""
    traces: dict[str, list[Span]] = {}
    for s in spans:
        traces.setdefault(s.trace, []).append(s)
    if not traces:
        from gate.files.where import Where

        raise Where(ctx.source).error("no spans in the file")
    if len(traces) == 1:
        return next(iter(traces.values()))
    named = [t for t in traces.values()
             if any(s.attributes.get("sourcegate.case.id") == ctx.case for s in t)]
    if ctx.case is not None and len(named) == 1:
        return named[0]
    first = spans[0]
    raise first.at.error(f"the file holds {len(traces)} traces and none is case {ctx.case!r} "
                         "(sourcegate.case.id): pass --case, or one trace per file")


def _first_records(spans: list[Span]) -> list[Span]:
    """One record per span id, the first: an id names one span, so a second record of it is the same
    span recorded again (an exporter that retried; the OpenInference spec's page, whose next example
    reuses the first one's ids), not a second root."""
    seen: set[str] = set()
    out = []
    for span in spans:
        if span.id not in seen:
            seen.add(span.id)
            out.append(span)
    return out


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _attribute_at(span: Span, name: str) -> Where:
    return span.at.key("attributes").key(name)


def _query_text(span: Span, name: str) -> str | None:
    """The attribute ``name`` (``input.value``) as text: a plain string, or the query member of a JSON object."""
    found = _text(span.attributes.get(name))
    if found is None or not found.lstrip().startswith("{"):
        return found
    decoded = embedded(found, _attribute_at(span, name), found)
    if isinstance(decoded, dict):
        for key in _QUERY_KEYS:
            if isinstance(decoded.get(key), str):
                return str(decoded[key])
    return found


def _cost(span: Span, name: str) -> float | None:
    value = span.attributes.get(name)
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0 else None


def _retriever(span: Span, trace: TraceBuilder, clock: _Clock, call: Span | None) -> None:
    query = _query_text(span, "input.value")
    index = None if query is None else trace.query(query)
    if index is not None:
        said = {} if call is None else call.attributes
        # a cost the gate priced from its table is not what the API billed: the table prices it again
        billed = _cost(call, "sourcegate.cost_usd") if call is not None and said.get(
            "sourcegate.cost_basis") in (None, "billed") else None
        trace.timed_search(index, *clock.times(span), cost_usd=billed,
                           provider=_text(said.get("sourcegate.search.provider")),
                           depth=_text(said.get("sourcegate.search.depth")))
    n = 0
    while f"retrieval.documents.{n}.document.id" in span.attributes or \
            f"retrieval.documents.{n}.document.content" in span.attributes:
        doc = f"retrieval.documents.{n}.document"
        n += 1
        metadata = _metadata(span, f"{doc}.metadata")
        link = metadata.get("url") or span.attributes.get(f"{doc}.id")
        if not isinstance(link, str) or not link.startswith(("http://", "https://")):
            continue  # not a web source
        content = _text(span.attributes.get(f"{doc}.content"))
        title = _text(metadata.get("title"))
        published = metadata.get("published")
        trace.result(index, link, title=title, snippet=None if content == title else content,
                     published=publication_date(published) if isinstance(published, str) else None)
        position = metadata.get("position")
        if isinstance(position, int) and not isinstance(position, bool) and position >= 0:
            trace.results[-1]["position"] = position  # as recorded (sourcegate's own spans keep it)


def _metadata(span: Span, name: str) -> dict[str, Any]:
    value = span.attributes.get(name)
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        decoded = embedded(value, _attribute_at(span, name), None)
        return decoded if isinstance(decoded, dict) else {}
    return {}


def _page(span: Span, trace: TraceBuilder, clock: _Clock) -> None:
    link = _text(span.attributes.get("url.full")) or _text(span.attributes.get("input.value"))
    if link is None:
        return
    _read(span, trace, link)
    trace.timed_page(link, *clock.times(span))


def _read(span: Span, trace: TraceBuilder, link: str) -> None:
    # sourcegate's own spans say when the page was fetched (a span without it took the run's start)
    ours = "sourcegate.page.truncated" in span.attributes
    fetched = _text(span.attributes.get("sourcegate.page.fetched_at")) if ours else span.start
    trace.page(link, _text(span.attributes.get("output.value")) or "",
               truncated=span.attributes.get("sourcegate.page.truncated") is True, fetched_at=fetched)
    entry = next(p for p in trace.pages if p["url"] == link)
    status = span.attributes.get("http.response.status_code")
    if isinstance(status, int) and entry["status"] is None:
        entry["status"] = status
    final = _text(span.attributes.get("sourcegate.page.final_url"))
    if final is not None and entry["final_url"] is None:
        entry["final_url"] = final
    published = publication_date(_text(span.attributes.get("sourcegate.page.published")))
    if published is not None and "published" not in entry:
        entry["published"] = published
    provider = _text(span.attributes.get("sourcegate.search.provider"))  # read through a provider's extraction
    if provider is not None and "provider" not in entry:
        entry["provider"] = provider
        depth = _text(span.attributes.get("sourcegate.search.depth"))
        if depth is not None:
            entry["depth"] = depth
