"""Indented JSON text, exactly as ``json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)``.

The standard library writes indented JSON in pure Python, one generator per nesting level, every
piece of text passed up through each level above it: 2.7 s for the report of 8,000 cases on a
loaded 2-core machine, most of a ``sourcegate merge``. :func:`indented` appends the same pieces to
one list, scalars written by C functions where they stand and only objects and arrays recursing:
0.9 s for the same report. Its text is the standard library's, byte for byte (pinned by
``tests/test_jsontext.py``); data it does not expect (a key that is not a string, a value that is
not JSON or of a subclass, a number that is not finite) goes to the standard library, which writes
it or raises as it always did.

Pure: no I/O.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring
from typing import Any

__all__ = ["indented"]


class _Elsewhere(Exception):
    """Something only the standard library writes (or refuses) the way it always has."""


_STEP = "  "
_FLOAT = float.__repr__
_SCALARS: dict[type, Any] = {
    str: encode_basestring, int: int.__repr__, float: _FLOAT,
    bool: {True: "true", False: "false"}.__getitem__, type(None): {None: "null"}.__getitem__,
}
"""The text of each scalar type, written by a C function (an exact type: a subclass goes elsewhere)."""


def indented(data: Any) -> str:
    """``data`` as JSON text indented by two spaces, non-ASCII kept, NaN and infinities refused."""
    out: list[str] = []
    try:
        _Writer(out).value(data, "\n")
    except (_Elsewhere, RecursionError):
        return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)
    return "".join(out)


def _scalar(value: Any) -> str | None:
    """A scalar's text, or None for an object or array."""
    write = _SCALARS.get(type(value))
    if write is None:
        if type(value) in (dict, list, tuple):
            return None
        raise _Elsewhere  # subclasses, and values json would refuse or convert: its own rules apply
    text: str = write(value)
    if write is _FLOAT and text[-1] in "nf":  # nan, inf, -inf
        raise _Elsewhere
    return text


class _Writer:
    def __init__(self, out: list[str]) -> None:
        self.out = out
        self.keys: dict[str, str] = {}
        """each key's text and separator, written once (a report repeats a few keys many times)"""

    def value(self, value: Any, newline: str) -> None:
        out = self.out
        text = _scalar(value)
        if text is not None:
            out.append(text)
            return
        inner = newline + _STEP
        if not value:
            out.append("{}" if type(value) is dict else "[]")
            return
        opening = ("{" if type(value) is dict else "[") + inner
        if type(value) is dict:
            keys = self.keys
            for key, item in value.items():
                label = keys.get(key)
                if label is None:
                    if type(key) is not str:
                        raise _Elsewhere
                    label = keys[key] = encode_basestring(key) + ": "
                write = _SCALARS.get(type(item))
                if write is not None and (write is not _FLOAT or item - item == 0):  # finite: not nan, not inf
                    out.append(opening + label + write(item))
                else:
                    text = _scalar(item)
                    if text is not None:
                        out.append(opening + label + text)
                    else:
                        out.append(opening + label)
                        self.value(item, inner)
                opening = "," + inner
            out.append(newline + "}")
            return
        for item in value:
            write = _SCALARS.get(type(item))
            if write is not None and (write is not _FLOAT or item - item == 0):
                out.append(opening + write(item))
            else:
                text = _scalar(item)
                if text is not None:
                    out.append(opening + text)
                else:
                    out.append(opening)
                    self.value(item, inner)
            opening = "," + inner
        out.append(newline + "]")
