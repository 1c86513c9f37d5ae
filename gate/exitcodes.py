"""The exit codes of every ``sourcegate`` command, and the one handler that maps exceptions to them.

=====  ==============  ==========================================================================
code   name            meaning
=====  ==============  ==========================================================================
0      ``PASS``        the gate passed (or the command did its job)
1      ``FAIL``        the gate failed: a hard check, or a blocking soft figure beyond noise
2      ``INPUT``       usage or input error: the message names the file, the JSON path, the expectation
3      ``INCONCLUSIVE``  the judge could not score enough claims (never a silent pass)
4      ``INTERNAL``    an internal error: a bug, reported with its trace
5      ``PUBLISH``     ``sourcegate comment`` could not post the PR comment (GitHub refused or failed)
130    ``INTERRUPTED``  interrupted: Ctrl-C, or SIGTERM to ``sourcegate run`` (128 + SIGINT, as shells say)
=====  ==============  ==========================================================================

The numbers live beside the error tree (:mod:`gate.errors`), which says which error maps to which;
:func:`guarded` is the only place an exception becomes a code.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from enum import IntEnum
from typing import TextIO

from gate.errors import (
    EXIT_FAIL,
    EXIT_INCONCLUSIVE,
    EXIT_INPUT,
    EXIT_INTERNAL,
    EXIT_PASS,
    EXIT_PUBLISH,
    GateError,
)
from gate.verdict.report import Report

__all__ = ["VERDICT_EXIT", "ExitCode", "Interrupted", "error_line", "guarded", "report_exit"]


class ExitCode(IntEnum):
    """What a ``sourcegate`` process exits with (see the table above and the README)."""

    PASS = EXIT_PASS
    FAIL = EXIT_FAIL
    INPUT = EXIT_INPUT
    INCONCLUSIVE = EXIT_INCONCLUSIVE
    INTERNAL = EXIT_INTERNAL
    PUBLISH = EXIT_PUBLISH
    INTERRUPTED = 130


class Interrupted(KeyboardInterrupt):
    """Ctrl-C or SIGTERM, with what was kept (the message): the command line exits 130 and says it."""


VERDICT_EXIT = {"pass": ExitCode.PASS, "fail": ExitCode.FAIL, "inconclusive": ExitCode.INCONCLUSIVE}
"""A report's verdict -> the exit code of the run that produced it."""


def report_exit(report: Report) -> ExitCode:
    """The exit code of a set's report: its verdict's, or 4 when a check raised on one of its runs
    (the report is still written, every other case in it)."""
    return ExitCode.INTERNAL if report.check_errors else VERDICT_EXIT[report.verdict]


def error_line(error: Exception, label: str = "") -> str:
    """The line an error is said with: a GateError's message, or that anything else is our bug."""
    if isinstance(error, GateError):
        return f"sourcegate: error: {label}{error}"
    return f"sourcegate: {label}internal error (please report it):"


def guarded(run: Callable[[], int], label: str = "", *, err: TextIO | None = None,
            say: Callable[[Exception], None] | None = None) -> int:
    """``run()``, with its exceptions mapped to exit codes: a GateError is its message and its code,
    anything else is our bug (the trace, exit 4). ``label`` names the golden set when a run has
    several, each guarded on its own so that one set's error does not stop the next.

    ``err`` is where the message and the trace go (None: stderr). ``say``, when given, is told the
    error instead of the message line being written (the action says it as a workflow command);
    the trace of our bug is written to ``err`` either way."""
    stream = sys.stderr if err is None else err
    try:
        return run()
    except Exception as e:  # the last resort: a GateError is the user's, anything else our bug
        if say is None:
            print(error_line(e, label), file=stream)
        else:
            say(e)
        if isinstance(e, GateError):
            return e.exit_code
        traceback.print_exc(file=stream)
        return ExitCode.INTERNAL
