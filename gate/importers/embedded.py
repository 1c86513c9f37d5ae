"""JSON text in importers: strict parsing that names where a cut-off file broke, stream captures, and
the Python literals some frameworks print where JSON belongs.

A truncated response is the commonest bad input (a capture stopped early, a log cut by a size
limit). ``json`` reports only a character offset; :func:`parse_at` adds the JSON path of the
value it was reading, so the error says ``$.content[2].content.source.data``, not just a column.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import replace
from typing import Any

from gate.errors import InputError
from gate.files.jsonio import (
    check_containers,
    check_depth,
    json_path,
    parse_json_bounded,
    too_deep_offset,
    too_deeply_nested,
)
from gate.files.where import Where, obj
from gate.importers.base import Context


def parsed(data: Any, ctx: Context) -> Any:
    """``data`` as JSON: file text is parsed strictly (no duplicate keys, NaN or Infinity); text or
    objects nested deeper than the limit (:data:`gate.files.jsonio.MAX_DEPTH`) are refused, naming where."""
    if isinstance(data, str):
        return parse_at(data, Where(ctx.source))
    check_depth(data, ctx.source)
    return data


def parse_at(raw: str, at: Where) -> Any:
    """Parse JSON text found at ``at``, nested no deeper than the limit; a cut-off or broken text
    names the path it broke in."""
    try:
        return parse_json_bounded(raw, at.file)
    except InputError as e:
        cause = e.__cause__
        if isinstance(cause, json.JSONDecodeError):
            raise replace(at, path=_inside(at.path, _path_at(raw, cause.pos))).error(e.detail) from None
        if isinstance(cause, RecursionError):  # deeper than the interpreter parses: the path it passes the limit
            offset = too_deep_offset(raw)
            inner = "$" if offset is None else _path_at(raw, offset)
            raise replace(at, path=_inside(at.path, inner)).error(too_deeply_nested()) from None
        if e.path and (at.line is not None or at.path != "$"):
            raise replace(at, path=_inside(at.path, e.path)).error(e.detail) from None
        if at.line is not None or at.path != "$":
            raise at.error(e.detail) from None
        raise


NOT_JSON: Any = object()
"""A value no JSON text parses to: what :func:`embedded` is told to return for text that is not JSON."""


def embedded(raw: str, at: Where, otherwise: Any) -> Any:
    """JSON text held in a string of the record (a tool's output, an attribute), parsed, or
    ``otherwise`` when the text is not JSON (it stays text: the record's own reading is lenient).

    Bounded like a file: more containers than :data:`gate.files.jsonio.MAX_JSON_CONTAINERS`, or nesting
    deeper than :data:`gate.files.jsonio.MAX_DEPTH`, is an input error naming the string, not "not JSON".
    """
    try:
        check_containers(raw, at.file)
        value = json.loads(raw)
    except InputError as e:
        raise at.error(e.detail) from None
    except ValueError:
        return otherwise
    except RecursionError:
        return parse_at(raw, at)  # which refuses it, saying where it passes the limit
    try:
        check_depth(value, at.file)
    except InputError as e:
        raise replace(at, path=_inside(at.path, e.path or "$")).error(e.detail) from None
    return value


def python_literal(raw: str, otherwise: Any) -> Any:
    """A Python literal a framework printed into its record with ``str()`` (``{'query': 'x', 'n': None}``),
    read as data, or ``otherwise`` when the text is not one.

    Only literals are read (:func:`ast.literal_eval`: strings, numbers, lists, tuples, dicts, sets,
    True, False, None), nothing is run. Bounded like embedded JSON: more containers or deeper nesting
    than the limits is not read (it stays text).
    """
    candidate = raw.strip()
    if not candidate.startswith(("{", "[")):
        return otherwise
    try:
        check_containers(candidate, "")
        value = ast.literal_eval(candidate)
        check_depth(value, "")
    except (InputError, ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return otherwise
    return value


def _inside(outer: str, inner: str) -> str:
    """The JSON path ``inner`` (of a text) below ``outer`` (where the text is)."""
    return inner if outer == "$" else outer + inner[1:]


# A string (to its closing quote, or the end of a cut-off text), a bracket or a colon; commas between
# them are counted in C, so a long array costs no Python step per item.
_MARKS = re.compile(r'"[^"\\]*(?:\\.?[^"\\]*)*(?P<closed>")?|[\[\]{}:]')


def _path_at(doc: str, pos: int) -> str:
    """The JSON path of the value being read at character ``pos`` of (possibly cut-off) JSON text."""
    stack: list[list[Any]] = []  # [container, key or index, expecting a key]
    last = 0

    def commas(upto: int) -> None:
        count = doc.count(",", last, upto) if stack else 0
        if count and stack[-1][0] == "{":
            stack[-1][1:] = [None, True]
        elif count:
            stack[-1][1] += count

    end = min(pos, len(doc))
    for mark in _MARKS.finditer(doc):
        start = mark.start()
        if start >= end:
            break
        commas(start)
        last = mark.end()
        token = mark.group()
        if token[0] == '"':
            if stack and stack[-1][0] == "{" and stack[-1][2]:
                try:
                    stack[-1][1] = json.loads(token)
                except ValueError:
                    stack[-1][1] = token[1:-1] if mark.group("closed") else token[1:]
        elif token == "{":
            stack.append(["{", None, True])
        elif token == "[":
            stack.append(["[", 0, False])
        elif token in "]}" and stack:
            stack.pop()
        elif token == ":" and stack:
            stack[-1][2] = False
    if last < end:
        commas(end)
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
    """True when the text is a stream capture: its first line alone is a whole JSON event.

    A first line too large or too deep to be read as JSON is no event: the text is then read whole,
    and refused there with where it broke.
    """
    text = raw.strip()
    first = text.split("\n", 1)[0].strip()
    if first.startswith(("event:", "data:")):
        return True
    if "\n" not in text:
        return False
    try:
        check_containers(first, "")
        event = json.loads(first)
    except (InputError, ValueError, RecursionError):
        return False
    return isinstance(event, dict)
