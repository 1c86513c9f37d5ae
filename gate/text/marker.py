"""The hidden line that tags sourcegate's PR comment for one golden set (and its drift issue).

The comment renderer writes it; the GitHub client (:mod:`gate.github.comments`) looks for it,
together with the comment's author, to find the comment it updates. The drift report's markdown
starts with the same line of another kind (``sourcegate:drift``), which a scheduled workflow looks
for to update its one issue.
"""

from __future__ import annotations

import re

__all__ = ["MARKER_PREFIX", "marker"]

MARKER_PREFIX = "<!-- sourcegate:comment"

_KEY_UNSAFE_RE = re.compile(r"[^A-Za-z0-9._-]")
_MAX_KEY_CHARS = 100


def marker(key: str, kind: str = "comment") -> str:
    """The hidden line that tags sourcegate's comment (or, ``kind="drift"``, its drift report) for
    golden set ``key``.

    The key is reduced to ``[A-Za-z0-9._-]`` (other characters become ``-``) so it can never close
    the HTML comment, and is capped at 100 characters. An empty key becomes ``default``.
    """
    safe = _KEY_UNSAFE_RE.sub("-", key)[:_MAX_KEY_CHARS] or "default"
    return f"<!-- sourcegate:{kind} key={safe} -->"
