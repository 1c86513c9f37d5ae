"""JSON text in importers: strict parsing that names where a cut-off file broke, and stream captures.

A truncated response is the commonest bad input (a capture stopped early, a log cut by a size
limit). ``json`` reports only a character offset; :func:`parse_at` adds the JSON path of the
value it was reading, so the error says ``$.content[2].content.source.data``, not just a column.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from gate.errors import InputError
from gate.importers.base import Context, Where, obj
from gate.jsonio import json_path, parse_json


def parsed(data: Any, ctx: Context) -> Any:
    """``data`` as JSON: file text is parsed strictly (no duplicate keys, NaN or Infinity)."""
    return parse_at(data, Where(ctx.source)) if isinstance(data, str) else data


def parse_at(raw: str, at: Where) -> Any:
    """Parse JSON text found at ``at``; a cut-off or broken text names the path it broke in."""
    try:
        return parse_json(raw, at.file)
    except InputError as e:
        cause = e.__cause__
        if isinstance(cause, json.JSONDecodeError):
            inner = _path_at(raw, cause.pos)
            path = at.path + inner[1:] if at.path != "$" else inner
            raise replace(at, path=path).error(e.detail) from None
        if e.path and at.line is not None:
            raise replace(at, path=e.path).error(e.detail) from None
        raise


def _path_at(doc: str, pos: int) -> str:
    """The JSON path of the value being read at character ``pos`` of (possibly cut-off) JSON text."""
    stack: list[list[Any]] = []  # [container, key or index, expecting a key]
    i = 0
    while i < min(pos, len(doc)):
        ch = doc[i]
        if ch == '"':
            end = i + 1
            while end < len(doc) and doc[end] != '"':
                end += 2 if doc[end] == "\\" else 1
            if stack and stack[-1][0] == "{" and stack[-1][2]:
                try:
                    stack[-1][1] = json.loads(doc[i:end + 1])
                except ValueError:
                    stack[-1][1] = doc[i + 1:end]
            i = end + 1
            continue
        if ch == "{":
            stack.append(["{", None, True])
        elif ch == "[":
            stack.append(["[", 0, False])
        elif ch in "}]" and stack:
            stack.pop()
        elif ch == ":" and stack:
            stack[-1][2] = False
        elif ch == "," and stack:
            if stack[-1][0] == "{":
                stack[-1][1:] = [None, True]
            else:
                stack[-1][1] += 1
        i += 1
    return json_path(entry[1] for entry in stack if entry[1] is not None)


def stream_events(raw: str, file: str) -> list[tuple[Where, dict[str, Any]]]:
    """The events of a stream capture, each with its place (line number) in the file.

    Accepts the ``data:`` payloads one per line (as SDK test fixtures store them) or a raw
    server-sent-events capture: ``event:`` and comment lines, blank lines and ``[DONE]`` are skipped.
    """
    events = []
    for number, line in enumerate(raw.splitlines(), start=1):
        payload = line.strip()
        if not payload or payload.startswith((":", "event:", "id:", "retry:")):
            continue
        if payload.startswith("data:"):
            payload = payload[len("data:"):].strip()
        if not payload or payload == "[DONE]":
            continue
        at = Where(file, "$", number)
        events.append((at, obj(parse_at(payload, at), at)))
    return events


def looks_like_stream(raw: str) -> bool:
    """True when the text is a stream capture: its first line alone is a whole JSON event."""
    first = raw.lstrip().split("\n", 1)[0].strip()
    if first.startswith(("event:", "data:")):
        return True
    try:
        event = json.loads(first)
    except ValueError:
        return False
    return isinstance(event, dict) and "\n" in raw.strip()
