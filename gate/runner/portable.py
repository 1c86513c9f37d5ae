"""A re-run's traces as any machine would write them: no path of this machine, and no new file when
nothing but the timing changed. Pure.

``sourcegate run`` writes each case's trace into the golden set's ``runs/``, which teams commit. A
re-run of an unchanged agent on the frozen web gets the same answer from the same searches and pages;
only how long each call took differs. :func:`unchanged` tells such a trace from the one it would
replace, so the file is kept as it is and ``git status`` stays clean; :func:`portable_command` writes
the agent's command without the machine's own paths (``/home/runner/.venv/bin/python`` is ``python``
when that is what ``PATH`` finds, a path inside the working folder is relative to it).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["TIMING_KEYS", "portable_command", "unchanged"]

TIMING_KEYS = frozenset({"duration_ms", "offset_ms"})
"""Keys that say how long a call took, never what it answered; a call's own ``started_at`` too (a
trace's ``started_at`` is the recording's time, the same on every re-run)."""


def _untimed(value: Any, top: bool = True) -> Any:
    if isinstance(value, dict):
        return {k: _untimed(v, False) for k, v in value.items()
                if k not in TIMING_KEYS and not (k == "started_at" and not top)}
    if isinstance(value, list):
        return [_untimed(v, False) for v in value]
    return value


def unchanged(old: Any, new: Any) -> bool:
    """Whether the trace ``new`` says what ``old`` says, but how long each call took."""
    return bool(_untimed(old) == _untimed(new))


def portable_command(argv: Sequence[str], cwd: str, which: Callable[[str], str | None]) -> tuple[str, ...]:
    """``argv`` with no path of this machine: the program by its name when ``which`` (the agent's
    ``PATH``) finds that same file by it, and any argument that is a path inside ``cwd`` relative to it."""
    out = []
    for i, arg in enumerate(argv):
        if os.path.isabs(arg):
            name = os.path.basename(arg)
            found = which(name) if i == 0 else None
            if found is not None and os.path.realpath(found) == os.path.realpath(arg):
                arg = name
            elif os.path.abspath(arg).startswith(os.path.abspath(cwd) + os.sep):
                arg = os.path.relpath(arg, cwd)
        out.append(arg)
    return tuple(out)
