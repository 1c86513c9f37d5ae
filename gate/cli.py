"""``sourcegate`` command line: argv -> settings -> run -> exit code.

This is the one place where exceptions become exit codes:

    0 pass · 1 the gate failed · 2 usage or input error · 3 inconclusive · 4 internal error
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence
from dataclasses import dataclass

from gate.errors import (
    EXIT_FAIL,
    EXIT_INCONCLUSIVE,
    EXIT_INTERNAL,
    EXIT_PASS,
    GateError,
    InputError,
)

VERDICT_EXIT = {"pass": EXIT_PASS, "fail": EXIT_FAIL, "inconclusive": EXIT_INCONCLUSIVE}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        # argparse exits by itself; raise instead so the exit-code mapping stays in one place.
        raise InputError(f"usage: {message} (see `sourcegate --help`)")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every sub-command."""
    p = _Parser(prog="sourcegate", description="Did the search agent read what it cites? A merge gate.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    c = sub.add_parser("check", help="run the gate on golden sets or trace files")
    c.add_argument("paths", nargs="+", metavar="PATH", help="a golden-set folder, or trace files")
    c.add_argument("--config", help="sourcegate.yaml (default: the one beside the golden set)")
    c.add_argument("--json", metavar="FILE", help="write the JSON report here ('-' for stdout)")
    c.add_argument("--markdown", metavar="FILE", help="write the markdown report here ('-' for stdout)")
    return p


@dataclass(frozen=True)
class Outputs:
    """Where each rendering goes (None: not written, '-': stdout)."""

    json: str | None = None
    markdown: str | None = None


def _emit(target: str | None, text: str) -> None:
    from gate.jsonio import write_atomic

    if target is None:
        return
    if target == "-":
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        write_atomic(target, text)


def cmd_check(args: argparse.Namespace) -> int:
    """Run the gate and write the reports; the verdict decides the exit code."""
    from gate.gaterun import run_paths
    from gate.report.json import JsonReporter
    from gate.report.markdown import MarkdownReporter

    report = run_paths(args.paths, args.config)
    outputs = Outputs(json=args.json, markdown=args.markdown)
    if outputs.json is None and outputs.markdown is None:
        outputs = Outputs(markdown="-")
    # Render everything before writing anything: a rendering error leaves no file behind.
    rendered = {}
    if outputs.json is not None:
        rendered[outputs.json] = JsonReporter().render(report)
    if outputs.markdown is not None:
        rendered[outputs.markdown] = MarkdownReporter().render(report)
    for target, text in rendered.items():
        _emit(target, text)
    return VERDICT_EXIT[report.verdict]


COMMANDS = {"check": cmd_check}


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point: parse, run, map exceptions to exit codes."""
    try:
        args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
        return COMMANDS[args.command](args)
    except GateError as e:
        print(f"sourcegate: error: {e}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        return EXIT_INTERNAL
    except Exception:  # the last resort: say it is our bug, with the trace
        print("sourcegate: internal error (please report it):", file=sys.stderr)
        traceback.print_exc()
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
