"""The web-search tool calls of a Langfuse export, in the three shapes the frameworks record them.

    one span per call       a TOOL span (OpenInference ``openinference.span.kind``, or Langfuse's own
                            observation ``type``) named *search* or *news*: the query in its input (or
                            the ``input.value``/``tool.parameters`` attribute), the results in its
                            output (or the ``output.value`` attribute)  -- Agno, most OpenInference
    a span per event        BeeAI emits ``<tool>.start-N``, ``.success-N``, ``.error-N``, ``.finish-N``
                            as sibling spans: the query on the start (``tool.parameters``, input null),
                            the results on the success; an error is a search that showed nothing
    a LangChain tool span   a span whose output is a ToolMessage (``type: tool``, LangGraph's callback
                            handler): the query in its input or ``metadata.inputs``, the results in
                            the message's ``content``

A tool's values are often JSON text, or a Python literal printed with ``str()`` (``{'query': 'x'}``);
both are decoded. A search whose results are not a list of items with URLs is refused rather than
read as "no results", which would make every citation look fabricated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gate.files.where import Where, arr, obj, publication_date, text, timestamp
from gate.importers.base import TraceBuilder, duration_ms
from gate.importers.embedded import NOT_JSON, embedded, python_literal

_QUERY_KEYS = ("query", "q", "keywords", "search_query")
_URL_KEYS = ("href", "url", "link")
_SNIPPET_KEYS = ("body", "snippet", "content", "description")
_DATE_KEYS = ("date", "published_date", "publishedDate", "published")
_EVENT = re.compile(r"^(?P<tool>.+)\.(?P<event>start|success|error|finish)-(?P<n>\d+)$")


@dataclass(frozen=True)
class Observation:
    """One observation of the export: its own fields, its metadata decoded, the metadata's attributes,
    and where it is."""

    index: int
    data: dict[str, Any]
    metadata: dict[str, Any]
    attributes: dict[str, Any]
    at: Where


def decoded(value: Any, at: Where) -> Any:
    """A value stored as text, decoded: JSON (sometimes JSON text of JSON text), or a printed Python literal."""
    for _ in range(3):
        if not isinstance(value, str) or not value.strip().startswith(("{", "[", '"')):
            return value
        found = embedded(value, at, NOT_JSON)
        if found is NOT_JSON:
            return python_literal(value, value)
        value = found
    return value


def read_searches(spans: list[Observation], trace: TraceBuilder) -> None:
    """Record every web-search call of ``spans`` (in start-time order): its query, then its results."""
    events: dict[tuple[Any, str, str], dict[str, Observation]] = {}
    for span in spans:
        event = _event(span)
        if event is not None:
            events.setdefault(event[0], {})[event[1]] = span
    for span in spans:
        event = _event(span)
        if event is not None:
            group = events[event[0]]
            if event[1] == "start":
                _call(group["start"], group.get("success"), trace, failed="error" in group,
                      last=group.get("finish") or group.get("success") or group.get("error"))
            elif "start" not in group and event[1] in ("success", "error"):
                raise span.at.error(f"a {event[0][1]} {event[1]} event with no start event beside it "
                                    "(the start holds the query)")
        elif _is_search(span) or _langchain_search(span):
            _call(span, span, trace, failed=False)


def _event(span: Observation) -> tuple[tuple[Any, str, str], str] | None:
    """``((parent, tool, N), event)`` for a BeeAI event span of a search tool, else None."""
    name = span.data.get("name")
    match = _EVENT.match(name) if isinstance(name, str) and _is_tool(span) else None
    if match is None or not _searching(match.group("tool")):
        return None
    return (span.data.get("parentObservationId"), match.group("tool"), match.group("n")), match.group("event")


def _searching(name: object) -> bool:
    return isinstance(name, str) and ("search" in name.lower() or "news" in name.lower())


def _is_tool(span: Observation) -> bool:
    return span.attributes.get("openinference.span.kind") == "TOOL" or span.data.get("type") == "TOOL"


def _is_search(span: Observation) -> bool:
    return _is_tool(span) and _searching(span.attributes.get("tool.name") or span.data.get("name"))


def _langchain_search(span: Observation) -> bool:
    """Whether a span returned a LangChain ToolMessage of a search tool."""
    message = decoded(span.data.get("output"), span.at.key("output"))
    return isinstance(message, dict) and message.get("type") == "tool" and (
        _searching(message.get("name")) or _searching(span.data.get("name")))


def span_times(span: dict[str, Any], at: Where) -> tuple[str | None, float | None]:
    """An observation's ``startTime`` and its length to ``endTime`` in milliseconds (None: not recorded)."""
    start, end = _edge(span, "startTime", at), _edge(span, "endTime", at)
    return start, duration_ms(start, end)


def _edge(span: dict[str, Any], key: str, at: Where) -> str | None:
    return None if span.get(key) is None else timestamp(span[key], at.key(key))


def _call(asked: Observation, answered: Observation | None, trace: TraceBuilder, *, failed: bool,
          last: Observation | None = None) -> None:
    """One search: the query of ``asked``, the results of ``answered`` (None or ``failed``: it showed nothing);
    it ran from the start of ``asked`` to its end, or to when ``last`` happened (BeeAI's events are moments:
    the call ran from its start event to its finish event, and every event span ends with the whole run)."""
    query, at = _query(asked)
    if query is None:
        raise at.error(f"a web-search tool span without a query (expected one of {', '.join(_QUERY_KEYS)})")
    index = trace.query(query)
    start, took = span_times(asked.data, asked.at)
    if last is not None and last is not asked:
        took = duration_ms(start, _edge(last.data, "startTime", last.at))
    trace.timed_search(index, start, took)
    if answered is None or failed:
        return
    output, out_at = _output(answered)
    if output is None:
        return  # the tool failed: the search showed nothing
    for j, raw in enumerate(arr(output, out_at)):
        here = out_at.item(j)
        item = obj(raw, here)
        link = next((item[k] for k in _URL_KEYS if isinstance(item.get(k), str) and item[k].strip()), None)
        if link is None:
            raise here.error(f"a search result without a URL (expected one of {', '.join(_URL_KEYS)})")
        trace.result(index, link.strip(), title=_first(item, ("title", "name"), here),
                     snippet=_first(item, _SNIPPET_KEYS, here),
                     published=publication_date(_first(item, _DATE_KEYS, here)))


def _query(span: Observation) -> tuple[str | None, Where]:
    """The query a search span was asked, and where it was looked for (the input, when none is found)."""
    metadata = span.at.key("metadata")
    places = [(span.data.get("input"), span.at.key("input")),
              (span.attributes.get("input.value"), metadata.key("attributes").key("input.value")),
              (span.attributes.get("tool.parameters"), metadata.key("attributes").key("tool.parameters"))]
    if "inputs" in span.metadata:
        places.append((span.metadata["inputs"], metadata.key("inputs")))
    for value, at in places:
        arguments = decoded(value, at)
        if isinstance(arguments, dict):
            for key in _QUERY_KEYS:
                if isinstance(arguments.get(key), str):
                    return str(arguments[key]), at
    return None, span.at.key("input")


def _output(span: Observation) -> tuple[Any, Where]:
    """The results a search span returned (a ToolMessage's content), and where they are."""
    at = span.at.key("output")
    output = decoded(span.data.get("output"), at)
    if output is None and "output.value" in span.attributes:
        at = span.at.key("metadata").key("attributes").key("output.value")
        output = decoded(span.attributes["output.value"], at)
    if isinstance(output, dict) and output.get("type") == "tool":
        if output.get("status") == "error":
            return None, at  # the tool raised: LangChain wraps the error as the message
        at = at.key("content")
        output = decoded(output.get("content"), at)
    return output, at


def _first(item: dict[str, Any], keys: tuple[str, ...], at: Where) -> str | None:
    for key in keys:
        if item.get(key) is not None:
            return text(item[key], at.key(key))
    return None
