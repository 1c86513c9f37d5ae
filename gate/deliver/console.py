"""What ``sourcegate check`` prints for a person: the terminal report and the verdict line. The I/O edge.

- On a terminal, with no report asked for on stdout, the failures are printed by
  :class:`gate.report.terminal.TerminalReporter` (plain text, URLs as they are), not as markdown;
  piped, stdout keeps the markdown report it always had (files, the comment and the job summary
  are markdown too).
- The one-line verdict is always printed, even when every report goes to a file: on stdout, as
  pytest and ruff print their summary line, unless a report (``--json -``, ``--markdown -``...)
  is written there, in which case it goes to stderr so that stdout stays parseable.
- ``-q`` prints the verdict line only; ``-v`` adds one line of figures per case.
- Colour follows ``--color``, ``NO_COLOR`` and ``FORCE_COLOR`` (:mod:`gate.term.color`).
- Progress of a live judge goes to stderr (:func:`progress`): a bar on a terminal, plain periodic
  lines in CI logs, nothing with ``-q``. Its notes go with it: a key the judge API refused is said
  there once per set, whatever stdout and stderr are.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys

from gate.report.terminal import TerminalReporter, verdict_line
from gate.term.color import COLOR_CHOICES, use_color
from gate.term.progress import Progress, for_cli
from gate.verdict.report import Report

__all__ = ["add_options", "progress", "show", "terminal_mode"]


def add_options(p: argparse.ArgumentParser) -> None:
    """``--color``, ``-q`` and ``-v`` on a command that prints a report."""
    p.add_argument("--color", choices=COLOR_CHOICES, default="auto", metavar="WHEN",
                   help="auto (a TTY; NO_COLOR, FORCE_COLOR), always or never")
    loud = p.add_mutually_exclusive_group()
    loud.add_argument("-q", "--quiet", action="store_true", help="print the verdict line only")
    loud.add_argument("-v", "--verbose", action="store_true", help="also print each case's figures")


def terminal_mode(args: argparse.Namespace) -> bool:
    """True when stdout gets the terminal report (or, with ``-q``, nothing) instead of markdown."""
    return bool(getattr(args, "quiet", False)) or sys.stdout.isatty()


def progress(args: argparse.Namespace) -> Progress:
    """Where long work reports on stderr: nothing with ``-q``, else :func:`gate.term.progress.for_cli`."""
    return for_cli(quiet=bool(getattr(args, "quiet", False)), color=getattr(args, "color", "auto"))


def show(report: Report, args: argparse.Namespace, stdout_taken: bool) -> None:
    """Print the terminal report (when stdout is free and a terminal) and the verdict line."""
    color = use_color(getattr(args, "color", "auto"), os.environ,
                      (sys.stderr if stdout_taken else sys.stdout).isatty())
    quiet = bool(getattr(args, "quiet", False))
    if not stdout_taken and not quiet and sys.stdout.isatty():
        text = TerminalReporter(color=color, verbose=bool(getattr(args, "verbose", False)),
                                width=shutil.get_terminal_size().columns).render(report)
        if text:
            sys.stdout.write(text + "\n")
    stream = sys.stderr if stdout_taken else sys.stdout
    stream.write(verdict_line(report, color, shutil.get_terminal_size().columns if stream.isatty() else None))
    stream.flush()
