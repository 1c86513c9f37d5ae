"""``perplexity``: a Perplexity chat completion with top-level ``citations`` and ``[n]`` markers.

    citations[]                 -> the results (position n), under no recorded query
    [n] markers in the answer   -> a citation of citations[n-1]; links written in the text too
    created                     -> started_at; model -> agent.model

The record shows which URLs the model was given, nothing of what it read: Perplexity searches
and reads on its side and returns only the list. So the trace has no pages, and every cited URL
is ``unread_citation`` under the gate. That is what the record can prove, not a verdict on
Perplexity: a team that wants its reads checked has to record them. A marker past the end of the
list cites nothing that can be named: the record is refused, with the marker's place.
"""

from __future__ import annotations

import re
from typing import Any

from gate.files.where import Where, arr, need, obj, opt_text, text, timestamp, url
from gate.importers.base import Context, TraceBuilder
from gate.importers.embedded import parsed

# [3] and [2, 3]; not a markdown link "[3](...)" or a reference definition "[3]: ..."
_MARKER = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\](?![(:])")


class PerplexityImporter:
    """A Perplexity chat completion (``sonar`` models) with its citations list."""

    id = "perplexity"
    description = "Perplexity chat completion with citations[] and [n] markers (no page reads recorded)"

    def convert(self, data: Any, ctx: Context) -> dict[str, Any]:
        """The trace of one completion."""
        at = Where(ctx.source)
        completion = obj(parsed(data, ctx), at)
        if completion.get("object") != "chat.completion":
            raise at.key("object").error(
                "expected 'chat.completion' (a Perplexity chat completion), "
                f"got {completion.get('object')!r}")
        urls = [url(u, at.key("citations").item(i))
                for i, u in enumerate(arr(need(completion, "citations", at), at.key("citations")))]
        choices = arr(need(completion, "choices", at), at.key("choices"))
        if len(choices) != 1:
            raise at.key("choices").error(
                f"expected one choice (a trace holds one answer), got {len(choices)}")
        choice_at = at.key("choices").item(0)
        message_at = choice_at.key("message")
        message = obj(need(obj(choices[0], choice_at), "message", choice_at), message_at)
        answer = text(need(message, "content", message_at), message_at.key("content"))
        trace = TraceBuilder()
        for link in urls:
            trace.result(None, link)
        for number in _markers(answer, len(urls), message_at.key("content")):
            trace.cite(urls[number - 1])
        trace.cite_answer_links(answer)
        created = completion.get("created")
        return trace.build(ctx, question=None, answer=answer, model=opt_text(completion, "model", at),
                           started_at=None if created is None else timestamp(created, at.key("created")))


def _markers(answer: str, count: int, at: Where) -> list[int]:
    """The citation numbers the answer uses, in first-use order."""
    seen: list[int] = []
    for m in _MARKER.finditer(answer):
        for part in m.group(1).split(","):
            number = int(part)
            if not 1 <= number <= count:
                raise at.error(f"marker [{number}] at character {m.start()} but $.citations has "
                               f"{count} URL(s): it cites nothing the record names")
            if number not in seen:
                seen.append(number)
    return seen
