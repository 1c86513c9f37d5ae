"""The time an agent under ``sourcegate run`` lives in: the recording's, passed as ``$SOURCEGATE_NOW``.

A re-run against a frozen web is dated when that web was recorded, not today, so that a snapshot
replayed a year later gives the same verdict. ``sourcegate run`` sets :data:`NOW_ENV` for each case
(an RFC 3339 date-time); :func:`agent_clock` is the clock a :class:`gate.Recorder` uses by default:
that moment at its first reading, moving on as time passes (a page read after a search is stamped
after it), or the wall clock when the variable is not set.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

from gate.errors import RecordError
from gate.files.jsonio import parse_time
from gate.model import Clock

__all__ = ["NOW_ENV", "agent_clock", "format_now"]

NOW_ENV = "SOURCEGATE_NOW"


def _wall() -> datetime:
    return datetime.now(UTC)


def format_now(moment: datetime) -> str:
    """``moment`` as :data:`NOW_ENV` holds it: RFC 3339 in UTC, to the microsecond when it has them."""
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def agent_clock(environ: Mapping[str, str] | None = None) -> Clock:
    """The clock of an agent run: from ``$SOURCEGATE_NOW`` on when it is set, else the wall clock.

    A value that is not an RFC 3339 date-time with a time zone is a :class:`gate.RecordError` naming it."""
    env = os.environ if environ is None else environ
    raw = env.get(NOW_ENV)
    if not raw:
        return _wall
    try:
        start = parse_time(raw)
    except ValueError as e:
        raise RecordError(f"{NOW_ENV}={raw!r} is not an RFC 3339 date-time with a time zone") from e
    began = time.monotonic()
    return lambda: start + timedelta(seconds=time.monotonic() - began)
