"""``openai-responses``: an OpenAI Responses API response that used the ``web_search`` tool.

    web_search_call, action search       -> a query, and its ``sources[].url`` as the results
    web_search_call, action open_page    -> a page read, its text not recorded (see below)
    web_search_call, action find_in_page -> the same: the model searched inside that page
    message output_text                  -> the answer (several messages: one paragraph each)
    url_citation annotations             -> citations, with no quote
    model, usage, created_at             -> the model call: its tokens (cached ones apart), priced from
                                            the gate's table, and when it was made (not how long it took)

What the record cannot show, said in the trace rather than guessed:

* **The text of an opened page.** The API keeps that the page was opened, not what it said. The
  page is recorded with empty text and ``truncated: true``: it counts as read (it was), and it
  can support no quote or claim (nothing of it was kept).
* **Quotes.** ``start_index``/``end_index`` mark the span of the *answer* a citation covers, not
  a passage of the page, so no quote is recorded.
* **Results without sources.** ``sources`` is only in the response when it was requested
  (``include=["web_search_call.action.sources"]``). Without it the results are unknown, and an
  empty list would turn every citation into ``fabricated_url``: such a record is refused.

The streamed form is read from its ``response.completed`` (or ``response.incomplete``) event,
which carries the whole response.
"""

from __future__ import annotations

from typing import Any

from gate.files.where import Where, arr, need, obj, opt_text, text, timestamp, url
from gate.importers.base import Context, TraceBuilder
from gate.importers.embedded import looks_like_stream, parsed, stream_events
from gate.usage.tokens import tokens_of

_FINAL_EVENTS = ("response.completed", "response.incomplete")


class OpenAIResponsesImporter:
    """An OpenAI Responses API response (JSON, or its stream of events)."""

    id = "openai-responses"
    description = "OpenAI Responses API response with web_search_call items and url_citation annotations"

    def convert(self, data: Any, ctx: Context) -> dict[str, Any]:
        """The trace of one response; from a stream, the final event's response."""
        if isinstance(data, str) and looks_like_stream(data):
            return from_response(*_final_response(data, ctx.source), ctx)
        return from_response(parsed(data, ctx), Where(ctx.source), ctx)


def _final_response(raw: str, file: str) -> tuple[Any, Where]:
    last = Where(file)
    for at, event in stream_events(raw, file):
        last = at
        kind = event.get("type")
        if kind in _FINAL_EVENTS:
            return need(event, "response", at), at.key("response")
        if kind in ("response.failed", "error"):
            raise at.error(f"the stream ended with {kind!r}: the response failed")
    raise last.error(f"no {' or '.join(_FINAL_EVENTS)} event: the capture was cut short")


def from_response(response: Any, at: Where, ctx: Context) -> dict[str, Any]:
    """The trace recorded in one Responses API response."""
    resp = obj(response, at)
    if resp.get("object") != "response":
        raise at.key("object").error(
            f"expected 'response' (an OpenAI Responses API response), got {resp.get('object')!r}")
    trace = TraceBuilder()
    answer: list[str] = []
    for i, raw in enumerate(arr(need(resp, "output", at), at.key("output"))):
        here = at.key("output").item(i)
        item = obj(raw, here)
        kind = item.get("type")
        if kind == "web_search_call":
            _web_search_call(item, here, trace)
        elif kind == "message":
            answer.extend(_message(item, here, trace))
        # reasoning items and other tools' calls hold no search, page or answer text
    text_out = "\n\n".join(part.strip() for part in answer if part.strip())
    trace.cite_answer_links(text_out)
    created = resp.get("created_at")
    started = None if created is None else timestamp(created, at.key("created_at"))
    model = opt_text(resp, "model", at)
    tokens = tokens_of(resp.get("usage"))
    if tokens is not None:
        trace.model_call(started_at=started, model=model, tokens=tokens)
    return trace.build(ctx, question=None, answer=text_out, model=model, started_at=started)


def _web_search_call(item: dict[str, Any], at: Where, trace: TraceBuilder) -> None:
    action_at = at.key("action")
    action = obj(need(item, "action", at), action_at)
    kind = action.get("type")
    if kind == "search":
        query = trace.query(text(need(action, "query", action_at), action_at.key("query")))
        if "sources" not in action:
            if item.get("status") == "failed":
                return  # a failed search showed nothing
            raise action_at.error(
                "a search without 'sources': the results the model saw were not recorded (request "
                "include=['web_search_call.action.sources'] when recording), so citations cannot be checked")
        for j, raw in enumerate(arr(action["sources"], action_at.key("sources"))):
            here = action_at.key("sources").item(j)
            source = obj(raw, here)
            if source.get("type", "url") == "url":
                trace.result(query, url(need(source, "url", here), here.key("url")))
    elif kind in ("open_page", "find_in_page"):
        link = url(need(action, "url", action_at), action_at.key("url"))
        trace.page(link, "", truncated=True)
    else:
        raise action_at.key("type").error(
            f"unknown web_search_call action {kind!r} (expected search, open_page or find_in_page)")


def _message(item: dict[str, Any], at: Where, trace: TraceBuilder) -> list[str]:
    parts = []
    for j, raw in enumerate(arr(need(item, "content", at), at.key("content"))):
        here = at.key("content").item(j)
        part = obj(raw, here)
        if part.get("type") != "output_text":
            continue  # a refusal or other part: no answer text
        parts.append(text(need(part, "text", here), here.key("text")))
        for k, note in enumerate(arr(part.get("annotations") or [], here.key("annotations"))):
            note_at = here.key("annotations").item(k)
            annotation = obj(note, note_at)
            if annotation.get("type") == "url_citation":
                trace.cite(url(need(annotation, "url", note_at), note_at.key("url")))
    return parts
