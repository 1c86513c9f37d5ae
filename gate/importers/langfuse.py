"""``langfuse``: a Langfuse trace export ``{trace, observations[]}`` with OpenInference span kinds.

    trace.input                  -> the question (a string, or its ``message``/``question``/``input``
                                    /``query`` member; Langfuse often stores it JSON-encoded, twice)
    trace.output                 -> the answer (a string, or its ``content``/``output``/``answer``)
    TOOL spans named *search* or *news* (duckduckgo_search, duckduckgo_news, tavily_search...)
                                 -> a query (input ``query``) and its results: a list of objects
                                    with ``href``/``url``/``link``, ``title``, ``body``/``snippet``
    trace.timestamp              -> started_at; the first model named by a span -> agent.model
    startTime, endTime           -> when each search ran and how long it took
    GENERATION observations      -> model calls: start, duration, model, usageDetails (input, output,
                                    cache reads and writes) and costDetails.total as Langfuse priced
                                    it; a generation that holds another (a framework's wrapper around
                                    the SDK's call) is not counted twice: the innermost ones are the calls

Spans are read in start-time order. Citations are left to the gate's extraction from the answer
(links, bare URLs, numbered sources). No fetch tool is read: a span that fetched a page is not
recognised, so a run whose agent did read pages shows them as unread (docs/importers.md).
A search span whose output is not a list of results is refused rather than read as "no results".
"""

from __future__ import annotations

from typing import Any

from gate.importers.base import (
    Context,
    TraceBuilder,
    Where,
    arr,
    duration_ms,
    need,
    obj,
    publication_date,
    text,
    timestamp,
)
from gate.importers.embedded import NOT_JSON, embedded, parsed
from gate.importers.usage import Tokens

_QUESTION_KEYS = ("message", "question", "input", "query", "content")
_ANSWER_KEYS = ("content", "output", "answer", "text", "result")
_QUERY_KEYS = ("query", "q", "keywords", "search_query")
_URL_KEYS = ("href", "url", "link")
_SNIPPET_KEYS = ("body", "snippet", "content", "description")
_DATE_KEYS = ("date", "published_date", "publishedDate", "published")


class LangfuseImporter:
    """A Langfuse trace export with OpenInference-instrumented spans."""

    id = "langfuse"
    description = "Langfuse trace export {trace, observations[]}: web-search TOOL spans, input, output"

    def convert(self, data: Any, ctx: Context) -> dict[str, Any]:
        """The trace of one exported Langfuse trace."""
        at = Where(ctx.source)
        doc = obj(parsed(data, ctx), at)
        trace_at = at.key("trace")
        recorded = obj(need(doc, "trace", at), trace_at)
        observations = arr(need(doc, "observations", at), at.key("observations"))
        question = _text_of(recorded.get("input"), _QUESTION_KEYS, trace_at.key("input"))
        if question is None and ctx.question is None:
            raise trace_at.key("input").error(
                "no question found (expected a string, or an object with one of "
                f"{', '.join(_QUESTION_KEYS)}): pass --question")
        answer = _text_of(recorded.get("output"), _ANSWER_KEYS, trace_at.key("output"))
        if answer is None:
            raise trace_at.key("output").error(
                f"no answer found (expected a string, or an object with one of {', '.join(_ANSWER_KEYS)})")
        trace = TraceBuilder()
        model = None
        ordered = _in_start_order(observations, at.key("observations"))
        wrappers = _wrapping_generations([span for _, span in ordered])
        for i, span in ordered:
            here = at.key("observations").item(i)
            attributes = _attributes(span, here)
            model = model or _model(span, attributes)
            if span.get("type") == "GENERATION" and span.get("id") not in wrappers:
                _generation(span, here, trace)
            if attributes.get("openinference.span.kind") != "TOOL":
                continue
            name = attributes.get("tool.name") or span.get("name")
            if isinstance(name, str) and ("search" in name.lower() or "news" in name.lower()):
                _search_span(span, here, trace)
        stamp = recorded.get("timestamp")
        return trace.build(ctx, question=question, answer=answer, model=model, cited=False,
                           started_at=None if stamp is None else timestamp(stamp, trace_at.key("timestamp")))


def _decoded(value: Any, at: Where) -> Any:
    """A value Langfuse stored as JSON text (sometimes JSON text of JSON text), decoded."""
    for _ in range(3):
        if not isinstance(value, str) or not value.strip().startswith(("{", "[", '"')):
            return value
        decoded = embedded(value, at, NOT_JSON)
        if decoded is NOT_JSON:
            return value
        value = decoded
    return value


def _text_of(value: Any, keys: tuple[str, ...], at: Where) -> str | None:
    found = _decoded(value, at)
    if isinstance(found, str):
        return found
    if isinstance(found, dict):
        for key in keys:
            if isinstance(found.get(key), str):
                return str(found[key])
    return None


def _in_start_order(observations: list[Any], at: Where) -> list[tuple[int, dict[str, Any]]]:
    spans = [(i, obj(o, at.item(i))) for i, o in enumerate(observations)]
    return sorted(spans, key=lambda pair: (str(pair[1].get("startTime") or ""), pair[0]))


def _attributes(span: dict[str, Any], at: Where) -> dict[str, Any]:
    metadata = _decoded(span.get("metadata"), at.key("metadata"))
    if not isinstance(metadata, dict):
        return {}
    attributes = metadata.get("attributes")
    return obj(attributes, at.key("metadata").key("attributes")) if attributes is not None else {}


def _model(span: dict[str, Any], attributes: dict[str, Any]) -> str | None:
    for value in (span.get("model"), attributes.get("llm.model_name")):
        if isinstance(value, str) and value:
            return value
    return None


def _times(span: dict[str, Any], at: Where) -> tuple[str | None, float | None]:
    start = None if span.get("startTime") is None else timestamp(span["startTime"], at.key("startTime"))
    end = None if span.get("endTime") is None else timestamp(span["endTime"], at.key("endTime"))
    return start, duration_ms(start, end)


def _wrapping_generations(spans: list[dict[str, Any]]) -> set[Any]:
    """The ids of generations that hold another generation (a wrapper, not the call itself)."""
    parent = {s.get("id"): s.get("parentObservationId") for s in spans}
    kind = {s.get("id"): s.get("type") for s in spans}
    out: set[Any] = set()
    for s in spans:
        if s.get("type") != "GENERATION":
            continue
        seen, up = {s.get("id")}, parent.get(s.get("id"))
        while up is not None and up not in seen:
            seen.add(up)
            if kind.get(up) == "GENERATION":
                out.add(up)
            up = parent.get(up)
    return out


_CACHE_READ_KEYS = ("input_cached_tokens", "cache_read_input_tokens", "input_cache_read")
_CACHE_WRITE_KEYS = ("cache_creation_input_tokens", "input_cache_creation")


def _count(details: dict[str, Any], keys: tuple[str, ...]) -> int:
    return sum(v for k in keys if isinstance(v := details.get(k), int) and not isinstance(v, bool) and v >= 0)


def _generation(span: dict[str, Any], at: Where, trace: TraceBuilder) -> None:
    """A model call: its times, model, tokens (``usageDetails``) and cost (``costDetails.total``)."""
    start, took = _times(span, at)
    details = span.get("usageDetails")
    tokens = None
    if isinstance(details, dict) and ("input" in details or "output" in details):
        tokens = Tokens(_count(details, ("input",)), _count(details, ("output",)),
                        _count(details, _CACHE_READ_KEYS), _count(details, _CACHE_WRITE_KEYS))
    costs = span.get("costDetails")
    cost = costs.get("total") if isinstance(costs, dict) else None
    if not isinstance(cost, int | float) or isinstance(cost, bool) or cost < 0:
        cost = None
    model = span.get("model")
    trace.model_call(started_at=start, duration_ms=took, model=model if isinstance(model, str) else None,
                     tokens=tokens, cost_usd=None if cost is None else float(cost))


def _search_span(span: dict[str, Any], at: Where, trace: TraceBuilder) -> None:
    arguments = _decoded(span.get("input"), at.key("input"))
    query = next((arguments[k] for k in _QUERY_KEYS
                  if isinstance(arguments, dict) and isinstance(arguments.get(k), str)), None)
    if query is None:
        raise at.key("input").error(f"a web-search tool span without a query (expected one of "
                                    f"{', '.join(_QUERY_KEYS)})")
    index = trace.query(query)
    trace.timed_search(index, *_times(span, at))
    output = _decoded(span.get("output"), at.key("output"))
    if output is None:
        return  # the tool failed: the search showed nothing
    out_at = at.key("output")
    for j, raw in enumerate(arr(output, out_at)):
        here = out_at.item(j)
        item = obj(raw, here)
        link = next((item[k] for k in _URL_KEYS if isinstance(item.get(k), str) and item[k].strip()), None)
        if link is None:
            raise here.error(f"a search result without a URL (expected one of {', '.join(_URL_KEYS)})")
        trace.result(index, link.strip(), title=_first(item, ("title", "name"), here),
                     snippet=_first(item, _SNIPPET_KEYS, here),
                     published=publication_date(_first(item, _DATE_KEYS, here)))


def _first(item: dict[str, Any], keys: tuple[str, ...], at: Where) -> str | None:
    for key in keys:
        if item.get(key) is not None:
            return text(item[key], at.key(key))
    return None
