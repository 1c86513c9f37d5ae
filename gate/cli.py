"""``sourcegate`` command line: argv -> parser (from the command registry) -> command -> exit code.

Each sub-command is a module of :mod:`gate.commands`; exceptions become exit codes in one place,
:func:`gate.errors.guarded`:

    0 pass · 1 the gate failed · 2 usage or input error · 3 inconclusive · 4 internal error
    · 5 the PR comment could not be posted (``sourcegate comment``) · 130 interrupted (Ctrl-C)

With several golden sets, each set's errors are mapped on their own and the run exits with the
most severe code of all: 2, then 4, 5, 1, 3, 0 (see ``gate.load.goldensets``).
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Sequence

from gate.commands import COMMANDS, Parser
from gate.commands.base import unrecognized
from gate.commands.helptext import add_examples
from gate.commands.run import split_argv
from gate.errors import Interrupted, guarded
from gate.exitcodes import ExitCode
from gate.files.digests import recorded_reads
from gate.version import __version__

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every sub-command, from :data:`gate.commands.COMMANDS`."""
    p = Parser(prog="sourcegate", description="Did the search agent read what it cites? A merge gate.")
    p.add_argument("--version", action="version", version=f"sourcegate {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    for command in COMMANDS.values():
        command.add_parser(sub)
    add_examples(p)
    return p


@functools.cache
def _parser() -> argparse.ArgumentParser:
    """The parser, built once per process: argparse formats every option as it is added, which costs more
    than most commands' parsing, and parsing leaves the parser as it was (in-process callers run many)."""
    return build_parser()


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: parse, run, map exceptions to exit codes."""
    def run() -> int:
        own, agent = split_argv(sys.argv[1:] if argv is None else argv)
        try:
            args, extra = _parser().parse_known_args(own)
        except SystemExit as done:  # --help and --version: printed, and a success
            return done.code if isinstance(done.code, int) else ExitCode.PASS
        if extra:  # named with the command's own options and --help, not the main parser's
            raise unrecognized(_parser(), args, extra)
        args.agent = agent  # `run`'s command, after `--`: never parsed as options
        with recorded_reads():  # a file the command read is not read again to hash it (gate.files.digests)
            return COMMANDS[args.command].run(args)

    try:
        return guarded(run)
    except KeyboardInterrupt as stop:  # Ctrl-C: not our bug, and what was kept is said when known
        said = f": {stop}" if isinstance(stop, Interrupted) and str(stop) else ""
        print(f"sourcegate: interrupted{said}", file=sys.stderr)
        return ExitCode.INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
