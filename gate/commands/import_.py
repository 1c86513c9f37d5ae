"""``sourcegate import FORMAT INPUT... --out DIR``: recorded runs in other shapes -> trace files.

With ``--golden SET`` the traces go to ``SET/runs/`` (unless ``--out``) and each becomes a case of
``SET/golden.yaml`` (added at the end of its ``cases:``, or a new file). A trace that exists is
refused unless ``--force``; a trace with no question is written, with a warning.

    sourcegate import anthropic runs/q7.json --out cached-snapshots/mine/runs --case q7 --question "..."
    sourcegate import perplexity a.json b.json --out traces/

One ``DIR/<case>.json`` per input; the case id is ``--case`` (one input only) or the input's file
name without its extensions. Every target is checked first (a folder that cannot be written,
an input that would be overwritten: :mod:`gate.deliver.targets`), then every input is read and
converted, and every trace validated, before anything is written: one bad input writes nothing and
exits 2 naming the file and the JSON path. Each file is written whole (``gate.files.outputs.write_file``);
the same input gives the same bytes.
Exceptions are left to :func:`gate.errors.guarded`, the one place where they become exit codes.
"""

from __future__ import annotations

import argparse
import os
import re
import sys

from gate.commands.base import Subparsers
from gate.commands.scaffold import NewCase, append_cases, golden_yaml, scaffold_name
from gate.deliver.targets import Target, check_targets
from gate.errors import InputError
from gate.exitcodes import ExitCode
from gate.files.jsonio import dump_json, read_text
from gate.files.outputs import write_file
from gate.importers import FORMATS, convert
from gate.load.golden import load_golden

__all__ = ["FORMAT_IDS", "add_parser", "case_id", "run"]

FORMAT_IDS = FORMATS
"""The formats ``sourcegate import`` reads: the importer registry's ids."""
_CASE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_SUFFIXES = (".chunks.txt", ".stdout.txt", ".jsonl", ".json", ".txt", ".log")


def add_parser(sub: Subparsers) -> None:
    """Add ``import`` to the main parser."""
    p = sub.add_parser("import", help="convert runs recorded in another shape to sourcegate-trace/1 files",
                       description="Convert recorded agent runs (API responses, streams, trace exports, "
                                   "printed logs) to sourcegate-trace/1 files. Nothing is fetched.")
    p.add_argument("format", choices=FORMAT_IDS, metavar="FORMAT",
                   help=f"the input's format: {', '.join(FORMAT_IDS)} (see docs/importers.md)")
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="recorded runs, one per file")
    p.add_argument("--out", metavar="DIR",
                   help="folder to write DIR/<case>.json into (default with --golden: SET/runs)")
    p.add_argument("--golden", metavar="SET",
                   help="also add each imported run as a case of the golden set SET (its golden.yaml)")
    p.add_argument("--force", action="store_true", help="overwrite traces that exist")
    p.add_argument("--case", metavar="ID",
                   help="case id of the trace (one INPUT only; default: its file name)")
    p.add_argument("--question", metavar="TEXT",
                   help="the question the agent was asked (most API responses do not record it)")


def case_id(file: str) -> str:
    """The default case id of an input: its file name without the format's extensions."""
    name = os.path.basename(file)
    for suffix in _SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def run(args: argparse.Namespace) -> int:
    """Convert every input, then write every trace; say what was written on stderr."""
    if args.out is None and args.golden is None:
        raise InputError("usage: the following arguments are required: --out (or --golden SET)")
    if args.out is None:
        args.out = os.path.join(args.golden, "runs")
    if args.case is not None and len(args.inputs) > 1:
        raise InputError(f"--case names one trace, but {len(args.inputs)} inputs were given")
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        raise InputError("--out must be a folder", file=args.out)
    targets: dict[str, tuple[str, str]] = {}  # trace file -> (its input, its case id)
    for file in args.inputs:
        case = args.case if args.case is not None else case_id(file)
        if not _CASE_ID.match(case):
            raise InputError(f"case id {case!r} is not usable as a file name (letters, digits, '.', '_', "
                             "'-'; pass --case)", file=file)
        target = os.path.join(args.out, f"{case}.json")
        if target in targets:
            raise InputError(f"two inputs would both be written to {target} (case {case!r}): pass one "
                             "at a time with --case", file=file)
        if os.path.lexists(target) and not args.force:
            raise InputError(f"{target} exists: nothing written (pass --force to overwrite it)", file=file)
        targets[target] = (file, case)
    golden_file = [Target("--golden", os.path.join(args.golden, "golden.yaml"))] if args.golden is not None else []
    check_targets([Target("--out", args.out, folder=True), *(Target("--out", t) for t in targets), *golden_file],
                  {file: "an input of this import" for file in args.inputs})
    planned: dict[str, tuple[str, str]] = {}
    cases: list[NewCase] = []
    for target, (file, case) in targets.items():
        trace = convert(args.format, read_text(file), case=case, question=args.question, source=file)
        planned[target] = (file, dump_json(trace))
        if not str(trace.get("question") or "").strip():
            print(f"sourcegate: warning: {file} records no question: pass --question, or write it into "
                  "golden.yaml", file=sys.stderr)
        cases.append(NewCase(case, str(trace.get("question") or "").strip() or None))
    golden = _golden_update(args.golden, cases) if args.golden is not None else None
    for target, (file, body) in planned.items():
        write_file(target, body)
        print(f"sourcegate: {file} -> {target}", file=sys.stderr)
    if golden is not None:
        write_file(*golden)
        print(f"sourcegate: {golden[0]}: cases added", file=sys.stderr)
    return ExitCode.PASS


def _golden_update(root: str, cases: list[NewCase]) -> tuple[str, str] | None:
    """(golden.yaml, its new text) with the cases it does not list yet; a new file when there is none."""
    file = os.path.join(root, "golden.yaml")
    if not os.path.exists(file):
        return file, golden_yaml(scaffold_name(os.path.basename(os.path.abspath(root))), cases)
    known = {c.id for c in load_golden(root).cases}
    new = [c for c in cases if c.id not in known]
    return (file, append_cases(read_text(file), new, file)) if new else None
