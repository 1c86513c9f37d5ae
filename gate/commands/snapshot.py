"""``sourcegate snapshot build|verify|serve``: the arguments and what each sub-command does.

    sourcegate snapshot build PATH               write PATH/snapshot/ from PATH's runs (idempotent)
    sourcegate snapshot verify PATH [--provider] exit 0 when every run is covered, 2 with the misses
    sourcegate snapshot serve PATH [--port N]    replay PATH/snapshot/ on 127.0.0.1 until Ctrl-C
        [--mode replay|new-episodes|record]      ... or record what it lacks from the live web
    sourcegate snapshot record PATH [--mode M]   serve --mode new-episodes (default) or record

Exceptions are left to :func:`gate.errors.guarded`, the one place where they become exit codes.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from types import FrameType
from typing import TYPE_CHECKING

from gate.commands.base import Parser, Subparsers
from gate.config import Config, load_config
from gate.errors import InputError
from gate.exitcodes import ExitCode
from gate.snapshot.build import build, runs_of
from gate.snapshot.store import SnapshotStore, snapshot_dir
from gate.snapshot.verify import render, verify
from gate.term.progress import for_cli

if TYPE_CHECKING:
    from gate.live import LiveWeb

__all__ = ["add_parser", "run"]


def add_parser(sub: Subparsers) -> None:
    """Add ``snapshot`` and its sub-commands to the sub-parsers ``sub`` of the main parser."""
    s = sub.add_parser("snapshot", help="build, verify and serve the recorded search and fetch layers")
    ssub = s.add_subparsers(dest="snapshot_command", required=True, parser_class=Parser)
    b = ssub.add_parser("build", help="build PATH/snapshot/ from the golden set's recorded runs")
    b.add_argument("path", metavar="PATH", help="a golden-set folder")
    v = ssub.add_parser("verify", help="check that the snapshot covers every run (exit 2 with the misses)")
    v.add_argument("path", metavar="PATH", help="a golden-set folder")
    v.add_argument("--provider", metavar="NAME",
                   help="count only searches recorded by this provider (default: any provider)")
    r = ssub.add_parser("serve", help="answer the agent's search and fetch calls from the snapshot")
    _server_arguments(r, ("replay", "new-episodes", "record"), "replay")
    rec = ssub.add_parser("record", help="serve the snapshot, recording what it lacks from the live web")
    _server_arguments(rec, ("new-episodes", "record"), "new-episodes")


_MODES = {"replay": "answer from the snapshot, never the network",
          "new-episodes": "record from the live web only what the snapshot lacks",
          "record": "record every request anew from the live web"}


def _server_arguments(r: argparse.ArgumentParser, modes: tuple[str, ...], default: str) -> None:
    r.add_argument("path", metavar="PATH", help="a golden-set folder")
    r.add_argument("--port", type=int, default=8787, metavar="N",
                   help="port to listen on (default 8787; 0 picks a free one)")
    r.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1; bind wider only inside a container)")
    said = "; ".join(f"{m}: {_MODES[m]}" for m in modes)
    r.add_argument("--mode", choices=modes, default=default, help=f"{said} (default {default})")
    r.add_argument("--config", help="sourcegate.yaml with the record: section (default: the one beside the set)")


def _golden_root(path: str) -> str:
    if not os.path.isdir(path):
        raise InputError("expected a golden-set folder", file=path)
    return path


def cmd_build(args: argparse.Namespace) -> int:
    """Build the layers and say what changed."""
    result = build(_golden_root(args.path))
    print(result.summary(), file=sys.stderr)
    return ExitCode.PASS


def cmd_verify(args: argparse.Namespace) -> int:
    """Check coverage: exit 0 when every run is covered, 2 (input error) with the misses listed."""
    root = _golden_root(args.path)
    folder = snapshot_dir(root)
    coverage = verify(runs_of(root), SnapshotStore(folder).index(), provider=args.provider)
    if coverage.covered:
        print(render(coverage, folder), file=sys.stderr)
        return ExitCode.PASS
    print(render(coverage, folder))
    return ExitCode.INPUT


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _live_web(config: Config) -> LiveWeb:
    from gate.live import LiveWeb  # the HTTP client is slow to import: only when recording

    return LiveWeb.from_config(config)


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the snapshot until Ctrl-C or SIGTERM (the normal ways to stop it, so exit 0)."""
    root = _golden_root(args.path)
    folder = snapshot_dir(root)
    recording = args.mode != "replay"
    if not recording and not os.path.isdir(folder):
        raise InputError("no snapshot/ folder: run `sourcegate snapshot build` first", file=args.path)
    if not 0 <= args.port <= 65535:
        raise InputError(f"usage: --port {args.port} is not a port number (0-65535)")
    store = SnapshotStore(folder)
    store.index()  # a damaged entry is reported now, not at the agent's first request
    web = _live_web(load_config(args.config, beside=root)) if recording else None
    # `kill` in a CI script sends SIGTERM (a background job ignores SIGINT): stop as cleanly as Ctrl-C.
    main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _interrupt) if main_thread else None
    try:
        if web is None:
            from gate.replay.serve import serve  # loads the live web's HTTP client: slow to import

            serve(store, args.host, args.port)
        else:
            from gate.replay.recording import serve_recording  # needs the HTTP client: slow to import

            serve_recording(root, web, args.mode, args.host, args.port, progress=for_cli())
    except OSError as e:
        raise InputError(f"cannot listen on {args.host}:{args.port}: {e.strerror or e}") from e
    except KeyboardInterrupt:
        pass
    finally:
        if main_thread:
            signal.signal(signal.SIGTERM, previous)
    return ExitCode.PASS


SUBCOMMANDS = {"build": cmd_build, "verify": cmd_verify, "serve": cmd_serve, "record": cmd_serve}


def run(args: argparse.Namespace) -> int:
    """Dispatch ``snapshot <command>``."""
    return SUBCOMMANDS[args.snapshot_command](args)
