"""``sourcegate run GOLDEN [--jobs N] [--timeout S] [--out DIR] [--record [all]] [--network M] [--check] -- CMD ...``.

The agent's command is everything after ``--``, run as an argument list (never through a shell),
once per case. Its environment is this process's (so the API keys the agent needs come from the
step that runs it) plus ``SOURCEGATE_CASE``, ``SOURCEGATE_QUESTION``, ``SOURCEGATE_REPLAY_URL``,
``SOURCEGATE_TRACE_FILE`` and ``SOURCEGATE_NOW``, and every proxy variable pointing at the replay
server; on Linux each agent runs in a network namespace whose only way out is that server
(``--network``, :data:`gate.runner.network.NETWORK_MODES`).
With ``--record``, what the snapshot lacks is recorded from the live web as the agent asks
for it (``--record all``: everything, afresh), the golden set's version is bumped, and the traces
are written. With ``--check``, the gate runs on the produced runs right after, with
``check``'s report options, and its verdict is the exit code; without it, the exit code is 0 once
the traces are written (agent failures and misses are in them, for ``sourcegate check``). The
folder of the traces and, with ``--check``, every report path are checked before the first agent
starts (:mod:`gate.deliver.targets`).

A recording ends as :mod:`gate.commands.recorded` says: one that left searches or pages unrecorded
exits 3 once the traces are written, its last line the command that records them; ``--record all``
of every case moves ``snapshot_at`` to the recording's time.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence

from gate.commands import check
from gate.commands.base import Subparsers
from gate.commands.cases import case_pick
from gate.commands.check import add_check_options
from gate.commands.recorded import end_recording
from gate.deliver.targets import Target, check_targets
from gate.errors import InputError, Interrupted
from gate.exitcodes import ExitCode
from gate.load.golden import RUNS_DIR, load_golden
from gate.load.subset import picked_golden
from gate.pipeline import Held
from gate.report.registry import file_reporters
from gate.runner.network import NETWORK_MODES

__all__ = ["add_parser", "run", "split_argv"]


def add_parser(sub: Subparsers) -> None:
    """Add ``run`` to the main parser, with ``check``'s report options (for ``--check``)."""
    r = sub.add_parser("run", usage="sourcegate run GOLDEN [options] -- CMD ARGS...",
                       help="re-run the agent on each case against the golden set's snapshot",
                       description="Run CMD once per case against the frozen web; its traces replace "
                                   "GOLDEN/runs/.")
    r.add_argument("golden", metavar="GOLDEN", help="the golden-set folder (golden.yaml, snapshot/)")
    r.add_argument("--jobs", type=int, default=4, metavar="N", help="agents run at once (default 4)")
    r.add_argument("--timeout", type=float, default=300.0, metavar="S", help="seconds per case (default 300)")
    r.add_argument("--out", metavar="DIR", help="write the traces here instead")
    r.add_argument("--record", nargs="?", const="new", choices=("new", "all"), metavar="all",
                   help="record what the snapshot lacks; all: everything afresh")
    *some, last = NETWORK_MODES
    r.add_argument("--network", choices=tuple(NETWORK_MODES), default="auto", metavar="MODE",
                   help=f"{', '.join(some)} or {last} (default auto; docs/trust.md)")
    r.add_argument("--check", action="store_true", help="then gate them (with check's options)")
    add_check_options(r)


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


_RECORD_MODES = {"new": "new-episodes", "all": "record"}
"""``--record`` (what the snapshot lacks) and ``--record all`` -> the recording modes (docs/snapshots.md)."""

_CHECK_ONLY = ("config", "baseline", "baseline_ref", "trust_config", "comment", "comment_author", "judge",
               "judge_provider", "otlp_json", "otlp_endpoint", "failed")
"""``check``'s options that only ``--check`` uses (the console options also drive the progress)."""


def _without_check(args: argparse.Namespace) -> None:
    # --config names the record: section too when recording
    only = [f for f in _CHECK_ONLY if not (f == "config" and args.record is not None)]
    given = [f"--{f.replace('_', '-')}" for f in (*file_reporters(), *only)
             if getattr(args, f, None) not in (None, False)]
    if given:
        raise InputError(f"usage: {' and '.join(given)} {'needs' if len(given) == 1 else 'need'} --check: "
                         "without it `sourcegate run` writes the traces only, and no report")


@contextlib.contextmanager
def _terminated_as_interrupt() -> Iterator[None]:
    """SIGTERM (a CI job cancelled, ``kill``) handled as Ctrl-C while the agents run: every agent's
    processes are ended and the old runs kept. Only the main thread can set a handler."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(_signum: int, _frame: object) -> None:
        raise Interrupted("terminated (SIGTERM)")

    before = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


def _log(args: argparse.Namespace) -> Callable[[str], None]:
    """Where the run says what each agent did: stderr, or nowhere with ``-q`` (the verdict line only)."""
    if getattr(args, "quiet", False):
        return lambda _line: None
    return lambda line: print(line, file=sys.stderr, flush=True)


def run(args: argparse.Namespace) -> int:
    """Run the agent on every case, write the traces, then gate them when ``--check``."""
    command = list(args.agent or ())
    if args.check and args.out is not None:
        raise InputError("usage: --check gates the golden set's runs/; with --out DIR, run "
                         "`sourcegate check` on the traces yourself")
    if args.check and args.record is not None:
        raise InputError("usage: --record changes the snapshot and bumps the set's version, so its baseline no "
                         "longer applies: record, then `sourcegate baseline update`, then check")
    if not args.check:
        _without_check(args)
    if not os.path.isdir(args.golden):
        raise InputError("expected a golden-set folder", file=args.golden)
    # --out DIR takes the traces; without it runs/ is replaced whole, in the golden set's folder.
    check_targets([Target("--out", args.out, folder=True) if args.out is not None
                   else Target("GOLDEN", args.golden, folder=True)])
    planned = rules = None
    golden = load_golden(args.golden)  # once: for the agents, the rules and the check
    if args.check:
        # Everything the check would refuse, and its rules (configuration, baseline), before any
        # agent starts: read once, and handed to the check.
        planned = check.plan(args, [args.golden])
        rules = check.request_rules(planned, args, golden)
    # Here, not at the top: the runner loads the replay server and its HTTP client, slow to import.
    from gate.deliver.console import progress
    from gate.runner.orchestrate import RunOptions, run_agent

    pick = planned.pick if planned is not None else case_pick(args, lambda: golden.name)
    options = RunOptions(golden=args.golden, command=tuple(command), jobs=args.jobs, timeout=args.timeout,
                         out=args.out, record=_RECORD_MODES.get(args.record), config=args.config,
                         some=pick is not None, network=args.network)
    kept = args.out if args.out is not None else os.path.join(args.golden, RUNS_DIR)
    try:
        with _terminated_as_interrupt():
            summary = run_agent(options, log=_log(args),
                                progress=progress(args), golden=golden if pick is None else picked_golden(golden, pick))
    except KeyboardInterrupt as e:  # every agent and what it started is ended by then (gate.runner)
        raise Interrupted(f"every agent stopped, nothing written; {kept} kept as it was") from e
    _log(args)(f"sourcegate run: wrote {len(summary.runs)} trace(s) to {summary.folder}")
    if args.record is not None:
        end_recording(args.golden, summary.runs, command, afresh=args.record == "all", every_case=pick is None,
                      log=_log(args))
    if planned is None:
        return ExitCode.PASS
    # The runs the agents just gave are checked as they are in memory, not read back from the files.
    return check.check_plan(planned, args, rules, Held(golden, summary.runs))
