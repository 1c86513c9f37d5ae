"""The exit codes of every ``sourcegate`` command: the one table, as the :class:`ExitCode` enum.

=====  ==============  ==========================================================================
code   name            meaning
=====  ==============  ==========================================================================
0      ``PASS``        the gate passed (or the command did its job)
1      ``FAIL``        the gate failed: a hard check, or a blocking soft figure beyond noise
2      ``INPUT``       usage or input error: the message names the file, the JSON path, the expectation
3      ``INCONCLUSIVE``  the judge could not score enough claims (never a silent pass), or ``run --record``
                       left searches or pages unrecorded
4      ``INTERNAL``    an internal error: a bug, reported with its trace
5      ``PUBLISH``     ``sourcegate comment`` could not post the PR comment (GitHub refused or failed)
130    ``INTERRUPTED``  interrupted: Ctrl-C, or SIGTERM to ``sourcegate run`` (128 + SIGINT, as shells say)
=====  ==============  ==========================================================================

The error tree (:mod:`gate.errors`) says which error maps to which;
:func:`gate.errors.guarded` is the only place an exception becomes a code.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import IntEnum

__all__ = ["SEVERITY", "VERDICT_EXIT", "ExitCode", "combined_exit"]


class ExitCode(IntEnum):
    """What a ``sourcegate`` process exits with (see the table above and the README)."""

    PASS = 0
    FAIL = 1
    INPUT = 2
    INCONCLUSIVE = 3
    INTERNAL = 4
    PUBLISH = 5
    INTERRUPTED = 130


VERDICT_EXIT = {"pass": ExitCode.PASS, "fail": ExitCode.FAIL, "inconclusive": ExitCode.INCONCLUSIVE}
"""A report's verdict -> the exit code of the run that produced it."""

SEVERITY = (ExitCode.INPUT, ExitCode.INTERNAL, ExitCode.PUBLISH, ExitCode.FAIL, ExitCode.INCONCLUSIVE,
            ExitCode.PASS)
"""The exit codes from the most severe down: a run of several golden sets exits with the first of
theirs in this order: 2 if any set had an input error, else 4 if any had an internal error, else 5 if
any could not publish, else 1 if any failed, else 3 if any was inconclusive, else 0. A known failure
outranks an inconclusive set (the merge is blocked either way, and the failure is the definite,
actionable news); an error outranks both (that set has no verdict at all)."""


def combined_exit(codes: Iterable[int]) -> ExitCode:
    """The exit code of a run of several sets: the most severe of theirs (0 for none).

    A code outside the table counts as an internal error.
    """
    seen = {c if c in SEVERITY else ExitCode.INTERNAL for c in codes}
    return next((c for c in SEVERITY if c in seen), ExitCode.PASS)
