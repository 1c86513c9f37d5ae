""""Did you mean …?" for a mistyped name (a sub-command, a configuration key). Pure."""

from __future__ import annotations

from collections.abc import Iterable
from difflib import get_close_matches

__all__ = ["did_you_mean"]


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'check'?)`` for the closest choice, or an empty string when none is close."""
    close = get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
