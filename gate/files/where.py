"""JSON read by shape, each error naming its file and JSON path: ``obj``, ``arr``, ``text``, ``need``,
``opt_text``, ``url``, ``timestamp`` and ``publication_date`` read one value at a :class:`Where`.

Shared by the importers (other recorded shapes) and the snapshot's result parsers, which read what a
search API answered; neither imports the other.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from gate.errors import InputError

__all__ = ["Where", "arr", "need", "obj", "opt_text", "publication_date", "text", "timestamp", "url"]


@dataclass(frozen=True)
class Where:
    """A place in an input: the file, an optional line (JSON-lines and logs) and a JSON path."""

    file: str
    path: str = "$"
    line: int | None = None

    # Built directly, not with dataclasses.replace: an importer makes one for every value it reads.
    def key(self, name: str) -> Where:
        """The member ``name`` of the object here."""
        return Where(self.file, f"{self.path}.{name}", self.line)

    def item(self, index: int) -> Where:
        """Item ``index`` of the array here."""
        return Where(self.file, f"{self.path}[{index}]", self.line)

    def error(self, message: str) -> InputError:
        """An input error naming this file and place."""
        where = self.path if self.line is None else f"line {self.line}, {self.path}"
        return InputError(message, file=self.file, path=where)


_KINDS: dict[type, str] = {dict: "an object", list: "an array", str: "a string", int: "an integer"}


def _kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    return _KINDS.get(type(value), type(value).__name__)


def obj(value: Any, at: Where) -> dict[str, Any]:
    """``value`` as a JSON object, or an input error at ``at``."""
    if not isinstance(value, dict):
        raise at.error(f"expected an object, got {_kind(value)}")
    return value


def arr(value: Any, at: Where) -> list[Any]:
    """``value`` as a JSON array, or an input error at ``at``."""
    if not isinstance(value, list):
        raise at.error(f"expected an array, got {_kind(value)}")
    return value


def text(value: Any, at: Where) -> str:
    """``value`` as a string, or an input error at ``at``."""
    if not isinstance(value, str):
        raise at.error(f"expected a string, got {_kind(value)}")
    return value


def need(data: dict[str, Any], name: str, at: Where) -> Any:
    """The member ``name`` of ``data`` (the object at ``at``), which must be there."""
    if name not in data:
        raise at.error(f"missing key {name!r}")
    return data[name]


def opt_text(data: dict[str, Any], name: str, at: Where) -> str | None:
    """The member ``name`` as a string, or None when it is absent or null."""
    value = data.get(name)
    return None if value is None else text(value, at.key(name))


def url(value: Any, at: Where) -> str:
    """A non-empty URL string."""
    found = text(value, at).strip()
    if not found:
        raise at.error("expected a URL, got an empty string")
    return found


def timestamp(value: Any, at: Where) -> str:
    """An RFC 3339 time with a zone (ISO text, or Unix seconds), normalised to ``...Z`` in UTC."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        # Seconds may be a float (the OpenAI SDK's created_at is one, and dumps as 1764962401.0).
        try:
            moment = datetime.fromtimestamp(value, UTC)
        except (OverflowError, OSError, ValueError):
            raise at.error(f"Unix time {value!r} is out of range (expected seconds since 1970, "
                           "not milliseconds)") from None
    else:
        raw = text(value, at)
        try:
            moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
        except ValueError:
            raise at.error(f"{raw!r} is not an ISO 8601 date and time") from None
        if moment.tzinfo is None:
            raise at.error(f"{raw!r} has no time zone (expected RFC 3339)")
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


_DAY_FORMATS = ("%B %d, %Y", "%b %d, %Y", "%d %B %Y", "%d %b %Y")
_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def publication_date(value: str | None) -> str | None:
    """A calendar date (``YYYY-MM-DD``) when ``value`` is one, else None.

    Search APIs give ages as free text: ``2025-06-30T05:41:00``, ``December 31, 2024`` or
    ``2 days ago``. A relative age says nothing without the moment it was measured from, which
    these records do not keep, so it is left unknown rather than guessed.
    """
    if not value:
        return None
    raw = value.strip()
    if _ISO_DAY.match(raw):
        try:
            return date.fromisoformat(raw[:10]).isoformat()
        except ValueError:
            return None
    for fmt in _DAY_FORMATS:
        try:
            return datetime.strptime(raw, fmt).date().isoformat()
        except ValueError:
            continue
    return None
