"""Process variables set for the length of a block, for scripts and tests that drive the CLI in-process.

The gate itself never changes the process environment: the action passes its keys and token as
values. Tests and recording scripts that start the real CLI or SDK in-process still need a variable
(``ANTHROPIC_BASE_URL`` and a key for a loopback API) set for a block, then put back as it was.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping

__all__ = ["environ_overlay"]


def _set_environ(values: Mapping[str, str | None]) -> None:
    for k, v in values.items():
        if v is None:
            os.environ.pop(k, None)
        else:
            os.environ[k] = v


@contextlib.contextmanager
def environ_overlay(updates: Mapping[str, str | None]) -> Iterator[None]:
    """Set (or, with None, remove) process variables for the block; restore them after."""
    saved = {k: os.environ.get(k) for k in updates}
    try:
        _set_environ(updates)
        yield
    finally:
        _set_environ(saved)
