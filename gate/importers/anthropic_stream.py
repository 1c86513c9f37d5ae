"""Put a streamed Anthropic Messages response back together from its events.

    message_start          -> the message, content empty
    content_block_start    -> block ``index`` as first sent (a search result arrives whole here)
    content_block_delta    -> text_delta appends text, input_json_delta appends to the tool input's
                              JSON (parsed at content_block_stop), citations_delta appends a citation
    message_delta          -> stop_reason, and the usage it reports (the output tokens, counted up)
    message_stop           -> the end: a capture without it was cut short and is refused
    error                  -> the API failed mid-stream: refused, with its message

Thinking and signature deltas are dropped: they hold no search, page or answer text.
"""

from __future__ import annotations

import copy
from typing import Any

from gate.errors import InputError
from gate.files.jsonio import parse_json_bounded
from gate.files.where import Where, arr, need, obj, text


def _index(event: dict[str, Any], at: Where) -> int:
    index = need(event, "index", at)
    if not isinstance(index, int) or isinstance(index, bool) or index < 0:
        raise at.key("index").error(f"expected a block index (an integer >= 0), got {index!r}")
    return index


class _Assembly:
    """The message so far: its blocks by index and the tool-input JSON still arriving."""

    def __init__(self) -> None:
        self.message: dict[str, Any] | None = None
        self.blocks: dict[int, dict[str, Any]] = {}
        self.partial: dict[int, list[str]] = {}
        self.stopped = False

    def block(self, event: dict[str, Any], at: Where) -> tuple[int, dict[str, Any]]:
        index = _index(event, at)
        if index not in self.blocks:
            raise at.key("index").error(f"block {index} was never started (no content_block_start)")
        return index, self.blocks[index]

    def start(self, event: dict[str, Any], at: Where) -> None:
        index = _index(event, at)
        block = copy.deepcopy(obj(need(event, "content_block", at), at.key("content_block")))
        self.blocks[index] = block
        if block.get("type") in ("server_tool_use", "tool_use"):
            self.partial[index] = []

    def delta(self, event: dict[str, Any], at: Where) -> None:
        index, block = self.block(event, at)
        delta_at = at.key("delta")
        delta = obj(need(event, "delta", at), delta_at)
        kind = delta.get("type")
        if kind == "text_delta":
            piece = text(need(delta, "text", delta_at), delta_at.key("text"))
            block["text"] = text(block.get("text", ""), at.key("delta")) + piece
        elif kind == "input_json_delta":
            piece = text(need(delta, "partial_json", delta_at), delta_at.key("partial_json"))
            self.partial.setdefault(index, []).append(piece)
        elif kind == "citations_delta":
            cite = obj(need(delta, "citation", delta_at), delta_at.key("citation"))
            block["citations"] = [*arr(block.get("citations") or [], delta_at), cite]

    def stop(self, event: dict[str, Any], at: Where) -> None:
        index, block = self.block(event, at)
        pieces = self.partial.pop(index, None)
        if pieces and "".join(pieces).strip():
            try:
                block["input"] = parse_json_bounded("".join(pieces), at.file)
            except InputError as e:
                raise at.error(f"the streamed tool input of block {index} is not JSON: {e.detail}") from None


def reassemble(events: list[tuple[Where, dict[str, Any]]], file: str) -> dict[str, Any]:
    """The complete message a stream carried, as the non-streamed API would have returned it."""
    work = _Assembly()
    last = Where(file)
    for at, event in events:
        last = at
        kind = text(need(event, "type", at), at.key("type"))
        if kind == "message_start":
            work.message = copy.deepcopy(obj(need(event, "message", at), at.key("message")))
        elif kind == "error":
            error = obj(need(event, "error", at), at.key("error"))
            raise at.error(f"the stream ended with an API error ({error.get('type')}: "
                           f"{error.get('message')})")
        elif work.message is None:
            raise at.error(f"{kind!r} before message_start (expected an Anthropic Messages stream)")
        elif kind == "content_block_start":
            work.start(event, at)
        elif kind == "content_block_delta":
            work.delta(event, at)
        elif kind == "content_block_stop":
            work.stop(event, at)
        elif kind == "message_delta":
            delta = obj(need(event, "delta", at), at.key("delta"))
            work.message["stop_reason"] = delta.get("stop_reason")
            usage = event.get("usage")
            if isinstance(usage, dict):  # cumulative: it completes message_start's usage
                known = work.message.get("usage")
                work.message["usage"] = {**(known if isinstance(known, dict) else {}),
                                         **{k: v for k, v in usage.items() if v is not None}}
        elif kind == "message_stop":
            work.stopped = True
    if work.message is None:
        raise last.error("no message_start event (expected an Anthropic Messages stream)")
    if not work.stopped:
        raise last.error("the stream ends before message_stop (the capture was cut short)")
    work.message["content"] = [work.blocks[i] for i in sorted(work.blocks)]
    return work.message
