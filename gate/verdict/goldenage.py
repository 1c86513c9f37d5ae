"""The golden set's own age: a snapshot older than its re-snapshot interval is a warning. Pure.

The interval is ``resnapshot_days`` in ``golden.yaml``, else ``golden.resnapshot_days`` in the
configuration (for example 7 for a news set, 30 for a how-to set); without one, or without
``snapshot_at``, nothing is said. ``now`` is given by the caller: the core reads no clock.
"""

from __future__ import annotations

from datetime import datetime

from gate.config import Config
from gate.model import GoldenSet


def snapshot_age_warning(golden: GoldenSet, config: Config, now: datetime) -> str | None:
    """A warning when the set's snapshot is older than its re-snapshot interval, else None."""
    interval = golden.resnapshot_days if golden.resnapshot_days is not None else config.resnapshot_days
    taken = golden.snapshot_time
    if interval is None or taken is None:
        return None
    age = (now - taken).total_seconds() / 86400
    if age <= interval:
        return None
    return (f"the golden set's snapshot is {age:.0f} days old (snapshot_at {golden.snapshot_at}, re-snapshot "
            f"every {interval:g} days): record a fresh snapshot as a new golden-set version")
