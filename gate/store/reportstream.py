"""Read a report's JSON a case at a time: a baseline of 8,000 cases is never parsed whole.

:func:`read_report` walks the top-level object of a ``sourcegate-report/1`` text, read from its file
in pieces: each field but ``cases`` is parsed as usual, and each item of ``cases`` is parsed,
validated and handed to ``keep`` (which turns it into what the caller holds, e.g. the few values a
comparison reads) before the next is read. The checks are those of a whole read: each item's text
goes through :func:`gate.files.jsonio.parse_json` (no duplicate keys, no NaN, the container limit) and
is validated against the report schema (the error's path names the item: ``$.cases[12].id``),
the rest of the report too. The file's size limit is the one of any JSON file.

:func:`read_report_items` walks the same way for a reader that checks each case itself (the merge,
:mod:`gate.store.merge`): each item comes with its text as read, and nothing is validated.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, TextIO

from gate.errors import InputError
from gate.files.jsonio import excerpt, inside, json_path, open_json_text, parse_json, validate
from gate.results import CaseResult

__all__ = ["read_report", "read_report_items", "read_report_text"]

TEXT_CHUNK = 1 << 20
"""How much of the file is read at a time."""
_WS = re.compile(r"[ \t\n\r]*")
_SCANNER = json.JSONDecoder()
_STAND_IN = {"format": "sourcegate-report/1", "verdict": "pass", "reasons": [],
             "golden": {"name": "-", "version": None}}
"""A valid report around one case, so that the case is validated against the report schema."""

Keep = Callable[[dict[str, Any]], CaseResult]


class _Reader:
    """The text in pieces, with a position; what was consumed is let go."""

    def __init__(self, f: TextIO | str, source: str) -> None:
        self.f, self.source = f, source
        # a text already in memory (``git show``'s) is its own buffer
        self.buf, self.pos, self.eof = (f, 0, True) if isinstance(f, str) else ("", 0, False)

    def more(self, at_least: int | None = None) -> bool:
        if self.eof or isinstance(self.f, str):
            return False
        chunk = self.f.read(at_least or TEXT_CHUNK)
        if not chunk:
            self.eof = True
            return False
        self.buf = self.buf[self.pos:] + chunk
        self.pos = 0
        return True

    def peek(self) -> str:
        while True:
            self.pos = _WS.match(self.buf, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.buf) or not self.more():
                return self.buf[self.pos:self.pos + 1]

    def expect(self, chars: str, where: str) -> str:
        ch = self.peek()
        if not ch or ch not in chars:
            raise InputError(f"malformed JSON: expected {' or '.join(repr(c) for c in chars)}, found "
                             f"{ch or 'the end of the file'!r}", file=self.source, path=where)
        self.pos += 1
        return ch

    def raw(self, where: str) -> str:
        """The text of the next JSON value (parsed strictly by the caller)."""
        return self.value(where)[1]

    def value(self, where: str) -> tuple[Any, str]:
        """The next JSON value, parsed leniently (a repeated key keeps its last value, NaN is read),
        and its text."""
        self.peek()
        grow = TEXT_CHUNK
        while True:
            try:
                value, end = _SCANNER.raw_decode(self.buf, self.pos)
            except json.JSONDecodeError as e:
                if self.more(grow):  # perhaps cut short by the piece read: read on, in larger pieces
                    grow *= 2
                    continue
                raise InputError(f"malformed JSON: {e.msg}", file=self.source, path=where) from None
            except RecursionError:
                raise InputError("malformed JSON: nested too deep", file=self.source, path=where) from None
            except ValueError as e:  # int() refused a number of more digits than the interpreter converts
                raise InputError(f"malformed JSON: {e}", file=self.source, path=where) from None
            if end == len(self.buf) and self.more():
                continue  # a number at the end of the piece may go on in the next
            text = self.buf[self.pos:end]
            self.pos = end
            return value, text


def _parse(text: str, source: str, where: str) -> Any:
    try:
        return parse_json(text, source)
    except InputError as e:
        raise InputError(e.detail, file=source, path=where + (e.path or "$")[1:]) from None


def read_report_text(f: TextIO | str, source: str, keep: Keep) -> tuple[dict[str, Any], tuple[CaseResult, ...]]:
    """(the report's fields but its cases, each case as ``keep`` made it), read from ``f`` (a file, or
    the text itself)."""
    cases: list[CaseResult] = []

    def item(r: _Reader, where: str) -> None:
        data = _parse(r.raw(where), r.source, where)
        try:
            validate({**_STAND_IN, "cases": [data]}, "report", r.source)
        except InputError as e:
            path = e.path or "$"
            raise InputError(e.detail, file=r.source,
                             path=where + path[len("$.cases[0]"):] if path.startswith("$.cases[0]") else path) from None
        cases.append(keep(data))

    fields = _walk(_Reader(f, source), item)
    validate(fields, "report", source)
    return fields, tuple(cases)


def read_report_items(file: str, take: Callable[[Any, str, int], None]) -> dict[str, Any]:
    """The report's fields but its cases (not validated), each item of ``cases`` handed to ``take``
    as it is read: ``take(value, text, index)``, the value parsed leniently from its text (a repeated
    key keeps its last value, NaN is read): the caller proves the text (the merge compares it with
    the text sourcegate writes for that value) or parses it strictly. The fields are parsed strictly."""
    def item(r: _Reader, where: str) -> None:
        value, text = r.value(where)
        take(value, text, index[0])
        index[0] += 1

    index = [0]
    with open_json_text(file) as f:
        return _walk(_Reader(f, file), item)


def _walk(r: _Reader, item: Callable[[_Reader, str], None]) -> dict[str, Any]:
    """The top-level object's fields, each item of its ``cases`` list handed to ``item`` instead."""
    source = r.source
    fields: dict[str, Any] = {}
    r.expect("{", "$")
    if r.peek() == "}":
        r.pos += 1
    else:
        while True:
            key = _parse(r.raw("$"), source, "$")
            if not isinstance(key, str):
                raise InputError("malformed JSON: expected a key", file=source, path="$")
            if key in fields:
                raise InputError(f"duplicate key {excerpt(repr(key))}", file=source, path="$")
            where = json_path([key])
            r.expect(":", where)
            if key == "cases" and r.peek() == "[":
                fields[key] = []
                _cases(r, item)
            else:
                fields[key] = _parse(r.raw(where), source, where)
            if r.expect(",}", "$") == "}":
                break
    if r.peek():
        raise InputError("malformed JSON: text after the report", file=source, path="$")
    return fields


def _cases(r: _Reader, item: Callable[[_Reader, str], None]) -> None:
    r.expect("[", "$.cases")
    if r.peek() == "]":
        r.pos += 1
        return
    n = 0
    while True:
        item(r, f"$.cases[{n}]")
        n += 1
        if r.expect(",]", "$.cases") == "]":
            return


def read_report(file: str, keep: Keep, root: str | None = None) -> tuple[dict[str, Any], tuple[CaseResult, ...]]:
    """:func:`read_report_text` of a file (inside ``root``, when given), within the JSON size limit."""
    if root is not None:
        inside(root, file)
    with open_json_text(file) as f:
        return read_report_text(f, file, keep)
