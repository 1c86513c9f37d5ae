"""Recording inside the agent: wrap its search and page-reading tools, save a trace, guard answers.

``Recorder`` keeps one run (see :mod:`gate.record.recorder`); ``PARSERS`` reads the results out
of the search APIs teams use (:mod:`gate.snapshot.parsers`, shared with the replay server);
``guard`` runs the gate's citation checks on an answer before the user sees it
(:mod:`gate.record.guard`), and ``regenerate`` drafts again without what it rejected, each draft an
attempt of the trace (:class:`Rejection`, :class:`Regenerated`: :mod:`gate.record.regenerate`).
See docs/recording.md.

Importing it inside an agent loads no judge and no check: the checks load with the first
``Recorder.guard()`` (or the first use of ``GUARD_CHECKS``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gate.errors import RecordError
from gate.lazy import lazy_exports as _lazy_exports
from gate.record.recorder import Recorder
from gate.record.regenerate import Regenerated, Rejection
from gate.snapshot.parsers import PARSERS, ResultParser, detect, parse_results

__all__ = ["GUARD_CHECKS", "PARSERS", "RecordError", "Recorder", "Regenerated", "Rejection", "ResultParser", "detect",
           "parse_results"]

__getattr__, __dir__ = _lazy_exports(__name__, {"GUARD_CHECKS": "gate.record.guard"}, globals())

if TYPE_CHECKING:
    from gate.record.guard import GUARD_CHECKS
