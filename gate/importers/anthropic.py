"""``anthropic``: a Messages API response that used the ``web_search`` and ``web_fetch`` server tools.

    server_tool_use web_search (input.query)  -> a query
    web_search_tool_result (web_search_result) -> its results: url, title, page_age when it is a date
    web_fetch_tool_result (web_fetch_result)  -> a page read: url, retrieved_at, the document's text
    text blocks                               -> the answer; each run of text between tool calls
                                                 is one paragraph
    citations (web_search_result_location)    -> a citation: url, cited_text as the quote
    model, usage                              -> the model call: its tokens, priced from the gate's
                                                 table (a response does not say when it was made)

A search result's ``encrypted_content`` is opaque to everyone but the API: it is not page text, so
a search alone reads no page. The streamed form (``.chunks.txt``: one event per line) is put back
together by :mod:`gate.importers.anthropic_stream` first, then read the same way.
"""

from __future__ import annotations

from typing import Any

from gate.files.where import Where, arr, need, obj, opt_text, publication_date, text, timestamp, url
from gate.importers.base import Context, TraceBuilder, strip_elision
from gate.importers.embedded import looks_like_stream, parsed, stream_events
from gate.usage.tokens import tokens_of

# Document citations point into documents by index, and the response does not say which
# document an index means: refused, so a trace never silently loses a citation.
_CITATION = "web_search_result_location"


class AnthropicImporter:
    """An Anthropic Messages API response (JSON, or its stream of events)."""

    id = "anthropic"
    description = "Anthropic Messages API response with the web_search / web_fetch server tools"

    def convert(self, data: Any, ctx: Context) -> dict[str, Any]:
        """The trace of one response; a stream capture is reassembled first."""
        if isinstance(data, str) and looks_like_stream(data):
            from gate.importers.anthropic_stream import reassemble

            message = reassemble(stream_events(data, ctx.source), ctx.source)
            at = Where(f"{ctx.source} (reassembled from its stream)")
        else:
            message, at = parsed(data, ctx), Where(ctx.source)
        return from_message(message, at, ctx)


def from_message(message: Any, at: Where, ctx: Context) -> dict[str, Any]:
    """The trace recorded in one Messages API response."""
    msg = obj(message, at)
    kind = msg.get("type")
    if kind == "error":
        error = obj(need(msg, "error", at), at.key("error"))
        raise at.key("type").error(f"the recorded response is an API error ({error.get('type')}: "
                                   f"{error.get('message')}), not a message")
    if kind != "message":
        raise at.key("type").error(f"expected 'message' (an Anthropic Messages API response), got {kind!r}")
    content = arr(need(msg, "content", at), at.key("content"))
    trace = TraceBuilder()
    searches: dict[str, int] = {}
    paragraphs: list[list[str]] = []
    previous = ""
    for i, raw in enumerate(content):
        here = at.key("content").item(i)
        block = obj(raw, here)
        kind = text(need(block, "type", here), here.key("type"))
        if kind == "server_tool_use":
            _tool_use(block, here, trace, searches)
        elif kind == "web_search_tool_result":
            _search_result(block, here, trace, searches)
        elif kind == "web_fetch_tool_result":
            _fetch_result(block, here, trace)
        elif kind == "text":
            if previous != "text":
                paragraphs.append([])
            paragraphs[-1].append(text(need(block, "text", here), here.key("text")))
            _citations(block, here, trace)
        # thinking, client tool_use and other blocks hold no search, page or answer text
        previous = kind
    answer = "\n\n".join(p for p in ("".join(parts).strip() for parts in paragraphs) if p)
    trace.cite_answer_links(answer)
    model = opt_text(msg, "model", at)
    tokens = tokens_of(msg.get("usage"))
    if tokens is not None:
        trace.model_call(model=model, tokens=tokens)
    return trace.build(ctx, question=None, answer=answer, model=model)


def _tool_use(block: dict[str, Any], at: Where, trace: TraceBuilder, searches: dict[str, int]) -> None:
    if block.get("name") != "web_search":
        return  # web_fetch's URL is read from its result; other server tools are not web reads
    tool_id = text(need(block, "id", at), at.key("id"))
    tool_input = obj(need(block, "input", at), at.key("input"))
    query = text(need(tool_input, "query", at.key("input")), at.key("input").key("query"))
    searches[tool_id] = trace.query(query)


def _search_result(block: dict[str, Any], at: Where, trace: TraceBuilder, searches: dict[str, int]) -> None:
    tool_id = text(need(block, "tool_use_id", at), at.key("tool_use_id"))
    if tool_id not in searches:
        raise at.key("tool_use_id").error(f"no web_search server_tool_use with id {tool_id!r} before it")
    content = need(block, "content", at)
    if isinstance(content, dict) and content.get("type") == "web_search_tool_result_error":
        return  # the search failed: it showed the model nothing
    for j, raw in enumerate(arr(content, at.key("content"))):
        here = at.key("content").item(j)
        item = obj(raw, here)
        trace.result(searches[tool_id], url(need(item, "url", here), here.key("url")),
                     title=opt_text(item, "title", here),
                     published=publication_date(opt_text(item, "page_age", here)))


def _fetch_result(block: dict[str, Any], at: Where, trace: TraceBuilder) -> None:
    here = at.key("content")
    result = obj(need(block, "content", at), here)
    if result.get("type") == "web_fetch_tool_result_error":
        return  # the fetch failed: nothing was read
    if result.get("type") != "web_fetch_result":
        raise here.key("type").error(f"expected 'web_fetch_result' or 'web_fetch_tool_result_error', "
                                     f"got {result.get('type')!r}")
    link = url(need(result, "url", here), here.key("url"))
    retrieved = result.get("retrieved_at")
    fetched_at = None if retrieved is None else timestamp(retrieved, here.key("retrieved_at"))
    doc_at = here.key("content")
    document = obj(need(result, "content", here), doc_at)
    source = obj(need(document, "source", doc_at), doc_at.key("source"))
    if source.get("type") == "text":
        body = text(need(source, "data", doc_at.key("source")), doc_at.key("source").key("data"))
        trace.page(link, body, fetched_at=fetched_at)
    else:
        # A PDF arrives base64-encoded: the model read it, but its text is not in the record.
        trace.page(link, "", truncated=True, fetched_at=fetched_at)


def _citations(block: dict[str, Any], at: Where, trace: TraceBuilder) -> None:
    cites = block.get("citations")
    if cites is None:
        return
    for k, raw in enumerate(arr(cites, at.key("citations"))):
        here = at.key("citations").item(k)
        cite = obj(raw, here)
        kind = cite.get("type")
        if kind != _CITATION:
            raise here.key("type").error(
                f"citation type {kind!r} is not supported (only {_CITATION!r}): a document citation "
                "names a document by index, and the response does not say which page that is")
        quote = opt_text(cite, "cited_text", here)
        trace.cite(url(need(cite, "url", here), here.key("url")),
                   strip_elision(quote) if quote is not None else None)
