"""Whether a path stays below a folder: the one test behind every rooted read and write."""

from __future__ import annotations

import os

__all__ = ["is_below", "real_is_below"]


def is_below(path: str, root: str) -> bool:
    """True when ``path`` is ``root`` or below it (both made absolute; no symlink is resolved)."""
    a, r = os.path.abspath(path), os.path.abspath(root)
    return os.path.commonpath([a, r]) == r


def real_is_below(path: str, root: str) -> bool:
    """True when the real path of ``path`` (every symlink resolved) is inside the real path of ``root``."""
    return is_below(os.path.realpath(path), os.path.realpath(root))
