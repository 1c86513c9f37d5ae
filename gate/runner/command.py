"""``sourcegate run GOLDEN [--jobs N] [--timeout S] [--out DIR] [--check] -- CMD ARGS...``: arguments and run.

The agent's command is everything after ``--``, run as an argument list (never through a shell),
once per case. Its environment is this process's (so the API keys the agent needs come from the
step that runs it) plus ``SOURCEGATE_CASE``, ``SOURCEGATE_QUESTION``, ``SOURCEGATE_REPLAY_URL`` and
``SOURCEGATE_TRACE_FILE``. With ``--check``, the gate runs on the produced runs right after, with
``check``'s report options, and its verdict is the exit code; without it, the exit code is 0 once
the traces are written (agent failures and misses are in them, for ``sourcegate check``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from gate.errors import EXIT_PASS, InputError

__all__ = ["add_parser", "run", "split_argv"]


def add_parser(sub: Any, parser_class: type[argparse.ArgumentParser],
               check_options: Callable[[argparse.ArgumentParser], None]) -> None:
    """Add ``run`` to the sub-parsers; ``check_options`` adds ``check``'s report options (for ``--check``)."""
    r = sub.add_parser("run", usage="sourcegate run GOLDEN [options] -- CMD ARGS...",
                       help="re-run the agent on each case against the golden set's snapshot",
                       description="Run CMD once per case against the frozen web; its traces replace "
                                   "GOLDEN/runs/.")
    r.add_argument("golden", metavar="GOLDEN", help="the golden-set folder (golden.yaml, snapshot/)")
    r.add_argument("--jobs", type=int, default=4, metavar="N", help="agents run at once (default 4)")
    r.add_argument("--timeout", type=float, default=300.0, metavar="S", help="seconds per case (default 300)")
    r.add_argument("--out", metavar="DIR", help="write the traces here instead")
    r.add_argument("--check", action="store_true", help="then gate them (with check's options)")
    check_options(r)


def split_argv(argv: Sequence[str]) -> tuple[list[str], list[str] | None]:
    """``run``'s own arguments, and the agent's command after the first ``--`` (None for another command).

    The command is split off before parsing: its arguments are the agent's, whatever they look like.
    """
    args = list(argv)
    if not args or args[0] != "run":
        return args, None
    if "--" not in args:
        return args, []
    at = args.index("--")
    return args[:at], args[at + 1:]


def run(args: argparse.Namespace) -> int:
    """Run the agent on every case, write the traces, then gate them when ``--check``."""
    command = list(args.agent or ())
    if args.check and args.out is not None:
        raise InputError("usage: --check gates the golden set's runs/; with --out DIR, run "
                         "`sourcegate check` on the traces yourself")
    # Here, not at the top: building the CLI's parser loads no runner, recorder or importer.
    from gate.runner.orchestrate import RunOptions, run_agent

    options = RunOptions(golden=args.golden, command=tuple(command), jobs=args.jobs, timeout=args.timeout,
                         out=args.out)
    summary = run_agent(options, log=lambda line: print(line, file=sys.stderr, flush=True))
    print(f"sourcegate run: wrote {len(summary.runs)} trace(s) to {summary.folder}", file=sys.stderr)
    if not args.check:
        return EXIT_PASS
    from gate.checkrun import check

    return check(argparse.Namespace(**{**vars(args), "paths": [args.golden]}))
