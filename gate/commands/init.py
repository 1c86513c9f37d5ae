"""``sourcegate init [DIR] [--from-runs RUNS]``: start a golden set from recorded runs.

Writes ``DIR/golden.yaml`` (one case per trace in ``RUNS``, or in ``DIR/runs/`` when no
``--from-runs``; :func:`gate.commands.scaffold.golden_yaml`), ``DIR/sourcegate.yaml`` with every default
(:func:`gate.commands.scaffold.config_yaml`) and ``.github/workflows/sourcegate.yml`` (under the current
folder, the repository's root) from the example workflow, unless that workflow exists: it is then
left as it is, even with ``--force`` (it may gate other sets), and the message says how it picks up
the new set. Traces from ``--from-runs`` are copied to ``DIR/runs/<case>.json``, where
``sourcegate check DIR`` reads them. Every trace is read and validated, and every target checked
(:func:`gate.deliver.targets.check_targets`: a file in the way of a folder, no permission),
before anything is written: an existing file is refused unless ``--force``, and nothing is
half-written.
"""

from __future__ import annotations

import argparse
import os
import sys

from gate.commands.base import Subparsers
from gate.commands.scaffold import NewCase, config_yaml, golden_yaml, scaffold_name, workflow_yaml
from gate.deliver.targets import Target, check_targets
from gate.errors import InputError
from gate.exitcodes import ExitCode
from gate.files.outputs import write_file
from gate.load.golden import RUNS_DIR, load_trace

__all__ = ["WORKFLOW_FILE", "add_parser", "run"]

WORKFLOW_FILE = os.path.join(".github", "workflows", "sourcegate.yml")


def add_parser(sub: Subparsers) -> None:
    """Add ``init`` to the main parser."""
    p = sub.add_parser("init", help="start a golden set: golden.yaml, sourcegate.yaml and a workflow",
                       description="Write golden.yaml (a case per recorded run), sourcegate.yaml (every "
                                   "default, commented) and .github/workflows/sourcegate.yml.")
    p.add_argument("dir", nargs="?", default=".", metavar="DIR", help="the golden-set folder (default: .)")
    p.add_argument("--from-runs", metavar="RUNS",
                   help="a folder of trace files (e.g. from `sourcegate import`): one case each, "
                        "copied to DIR/runs/ (default: the traces already in DIR/runs/)")
    p.add_argument("--force", action="store_true",
                   help="overwrite DIR's files that exist (an existing workflow is always kept)")


def _traces(folder: str) -> list[str]:
    if not os.path.isdir(folder):
        raise InputError("expected a folder of trace files", file=folder)
    return sorted(os.path.join(folder, n) for n in os.listdir(folder) if n.endswith(".json"))


def run(args: argparse.Namespace) -> int:
    """Plan every file, refuse what exists (unless --force), then write them all."""
    root = args.dir
    runs_dir = os.path.join(root, RUNS_DIR)
    source = args.from_runs if args.from_runs is not None else runs_dir
    files = _traces(source) if args.from_runs is not None or os.path.isdir(runs_dir) else []
    copy = args.from_runs is not None and not (
        os.path.isdir(runs_dir) and os.path.samefile(args.from_runs, runs_dir))
    planned: dict[str, str] = {}
    cases: list[NewCase] = []
    for file in files:
        trace = load_trace(file)
        if any(c.id == trace.case for c in cases):
            raise InputError(f"a second trace for case {trace.case!r}", file=file)
        question = trace.question.strip() or None
        if question is None:
            print(f"sourcegate: warning: {file} records no question: write it into golden.yaml", file=sys.stderr)
        cases.append(NewCase(trace.case, question))
        if copy:
            with open(file, encoding="utf-8") as f:
                planned[os.path.join(runs_dir, f"{trace.case}.json")] = f.read()
    if not cases:
        print(f"sourcegate: warning: no trace in {source}: golden.yaml gets one placeholder case",
              file=sys.stderr)
        cases.append(NewCase("first-case", None))
    name = scaffold_name(os.path.basename(os.path.abspath(root)))
    planned[os.path.join(root, "golden.yaml")] = golden_yaml(name, cases)
    planned[os.path.join(root, "sourcegate.yaml")] = config_yaml()
    # An existing workflow is left as it is, even with --force: it may gate other sets already.
    workflow = not os.path.lexists(WORKFLOW_FILE)
    if workflow:
        planned[WORKFLOW_FILE] = workflow_yaml(os.path.relpath(root).replace(os.sep, "/"))
    there = [t for t in planned if os.path.lexists(t)]
    if there and not args.force:
        raise InputError(f"{', '.join(there)} already exist(s): nothing written (pass --force to overwrite)")
    check_targets([Target("the workflow" if t == WORKFLOW_FILE else "DIR", t) for t in planned])
    for target, text in planned.items():
        write_file(target, text)
        print(f"sourcegate: wrote {target}", file=sys.stderr)
    if not workflow:
        print(f"sourcegate: {WORKFLOW_FILE} exists: left as it is. It gates the sets its `golden-set:` "
              f"input names (empty: every folder under cached-snapshots/ with a golden.yaml): add "
              f"{os.path.relpath(root)} to that input, unless the input is empty and the set is under "
              "cached-snapshots/", file=sys.stderr)
    if files:
        print(f"sourcegate: golden set {name!r} with {len(cases)} case(s): fill in each case's class and "
              f"freshness in golden.yaml, then run `sourcegate check {root}`", file=sys.stderr)
    else:
        print(f"sourcegate: golden set {name!r} with no run yet: write each case's question (and class and "
              f"freshness) in golden.yaml, name your agent's search provider under record.search in "
              f"{os.path.join(root, 'sourcegate.yaml')} (its key stays in the environment), then record the "
              f"set through your agent: `sourcegate run {root} --record -- CMD ARGS...` (docs/recording.md)",
              file=sys.stderr)
    return ExitCode.PASS
