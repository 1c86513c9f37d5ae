"""``langfuse``: a Langfuse trace export ``{trace, observations[]}``.

    trace.input                  -> the question: a string, its ``message``/``question``/``input``
                                    /``query``/``content`` member, or the last human message of its
                                    ``messages`` (LangGraph); Langfuse often stores it JSON-encoded, twice
    trace.output                 -> the answer: a string, its ``content``/``output``/``answer``/``text``
                                    /``result`` member, or the last AI message with words
    web-search tool calls        -> a query each and its results (:mod:`gate.importers.langfuse_tools`:
                                    OpenInference TOOL spans, BeeAI's event spans, LangChain tool spans)
    trace.timestamp              -> started_at; the first model named by a span -> agent.model
    startTime, endTime           -> when each search ran and how long it took (BeeAI's events: from
                                    the start event to the finish event)
    GENERATION observations      -> model calls: start, duration, model, usageDetails (input, output,
                                    cache reads and writes) and costDetails.total as Langfuse priced
                                    it; a generation that holds another (a framework's wrapper around
                                    the SDK's call) is not counted twice: the innermost ones are the calls

Spans are read in start-time order. Citations are left to the gate's extraction from the answer
(links, bare URLs, numbered sources). No fetch tool is read: a span that fetched a page is not
recognised, so a run whose agent did read pages shows them as unread (docs/importers.md).
"""

from __future__ import annotations

from typing import Any

from gate.files.where import Where, arr, need, obj, timestamp
from gate.importers.base import Context, TraceBuilder, last_message
from gate.importers.embedded import parsed
from gate.importers.langfuse_tools import Observation, decoded, read_searches, span_times
from gate.usage.tokens import Tokens

_QUESTION_KEYS = ("message", "question", "input", "query", "content")
_ANSWER_KEYS = ("content", "output", "answer", "text", "result")
_HUMAN = ("human", "user")
_AI = ("ai", "assistant")


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
        question = _text_of(recorded.get("input"), _QUESTION_KEYS, trace_at.key("input"), _HUMAN)
        if question is None and ctx.question is None:
            raise trace_at.key("input").error(
                "no question found (expected a string, an object with one of "
                f"{', '.join(_QUESTION_KEYS)}, or messages with a human one): pass --question")
        answer = _text_of(recorded.get("output"), _ANSWER_KEYS, trace_at.key("output"), _AI)
        if answer is None:
            raise trace_at.key("output").error(
                f"no answer found (expected a string, an object with one of {', '.join(_ANSWER_KEYS)}, "
                "or messages with an AI one)")
        spans = [_observation(i, span, at.key("observations").item(i))
                 for i, span in _in_start_order(observations, at.key("observations"))]
        model = next((m for m in (_model(s.data, s.attributes) for s in spans) if m is not None), None)
        trace = TraceBuilder()
        read_searches(spans, trace)
        wrappers = _wrapping_generations([s.data for s in spans])
        for s in spans:
            if s.data.get("type") == "GENERATION" and s.data.get("id") not in wrappers:
                _generation(s.data, s.at, trace)
        stamp = recorded.get("timestamp")
        return trace.build(ctx, question=question, answer=answer, model=model, cited=False,
                           started_at=None if stamp is None else timestamp(stamp, trace_at.key("timestamp")))


def _text_of(value: Any, keys: tuple[str, ...], at: Where, speakers: tuple[str, ...]) -> str | None:
    """The text of a trace's input or output: a string, a member named by ``keys``, or the last message
    of ``speakers`` in a ``messages`` list (LangGraph's state: the question is the last human turn,
    the answer the last AI turn with words)."""
    found = decoded(value, at)
    if isinstance(found, str):
        return found
    if not isinstance(found, dict):
        return None
    for key in keys:
        if isinstance(found.get(key), str):
            return str(found[key])
    return last_message(found.get("messages"), speakers)


def _in_start_order(observations: list[Any], at: Where) -> list[tuple[int, dict[str, Any]]]:
    spans = [(i, obj(o, at.item(i))) for i, o in enumerate(observations)]
    return sorted(spans, key=lambda pair: (str(pair[1].get("startTime") or ""), pair[0]))


def _observation(index: int, span: dict[str, Any], at: Where) -> Observation:
    """One span with its metadata decoded (Langfuse may store it as JSON text) and its attributes."""
    metadata = decoded(span.get("metadata"), at.key("metadata"))
    if not isinstance(metadata, dict):
        metadata = {}
    attributes = metadata.get("attributes")
    found = obj(attributes, at.key("metadata").key("attributes")) if attributes is not None else {}
    return Observation(index, span, metadata, found, at)


def _model(span: dict[str, Any], attributes: dict[str, Any]) -> str | None:
    for value in (span.get("model"), attributes.get("llm.model_name")):
        if isinstance(value, str) and value:
            return value
    return None


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
    start, took = span_times(span, at)
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
