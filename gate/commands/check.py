"""``sourcegate check PATH...``: run the gate on golden sets or trace files, write the reports.

Each set runs in turn with its own config (beside it, unless ``--config``), baseline, judge cache,
comparison, reports and PR comment; :mod:`gate.load.goldensets` holds the rules (which paths form a
set, ``{name}`` in output paths, the exit code of the whole run). Everything that can be refused
without running (a missing path, folders mixed with trace files, two sets of one name, an output
path without ``{name}``, an output path that cannot be written or that the run reads, one file
named by two outputs: :mod:`gate.deliver.targets`) is refused before the first set runs. After
that, one set's error is said on stderr (naming the set) and the next set still runs
(:mod:`gate.commands.sets`).

With one set, nothing differs from a run of that set alone.
"""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from gate.commands.base import Subparsers, add_comment_author, add_judge_options
from gate.commands.cases import add_case_options, case_pick, refuse_case_options
from gate.commands.sets import each_set
from gate.deliver.console import add_options as add_console_options
from gate.deliver.console import progress, terminal_mode
from gate.deliver.delivery import Delivery, Outputs, deliver
from gate.deliver.publish import comment_authors
from gate.deliver.spans import preflight
from gate.deliver.targets import Target, check_targets, reads_of, set_name
from gate.errors import InputError
from gate.exitcodes import ExitCode
from gate.files.outputs import is_stdout
from gate.load.gated import GatedRuns
from gate.load.goldensets import NAME_FIELD, GoldenSetPaths, default_paths, require_name_field, split_sets
from gate.load.shards import Shard, parse_shard
from gate.load.subset import Pick
from gate.model import GoldenSet
from gate.pipeline import Held, SetRequest, run_set, set_rules
from gate.report.registry import REPORTERS, file_reporters
from gate.rules import Rules
from gate.text.redact import secret_values

__all__ = ["CheckPlan", "add_parser", "check_outputs", "check_plan", "file_flags", "plan", "report_flags",
           "request_rules", "run"]

SET_FILES = ("baseline", "otlp_json")
"""The ``check`` options that name a file and are not reports."""


def file_flags() -> tuple[str, ...]:
    """The ``check`` options that name a file: with several sets, each needs ``{name}`` (or is '-')."""
    return (*file_reporters(), *SET_FILES)


def add_parser(sub: Subparsers) -> None:
    """Add ``check`` to the main parser; a report option for each reporter of the registry that has one."""
    # A usage line, not every flag again: the options below list them, and --help fits a screen.
    c = sub.add_parser("check", usage="sourcegate check [PATH ...] [options]",
                       help="run the gate on golden sets or trace files")
    c.add_argument("paths", nargs="*", metavar="PATH",
                   help="golden-set folders (each in turn: outputs need {name}) or trace files "
                        "(default: sets in cached-snapshots/)")
    add_check_options(c)
    c.add_argument("--shard", type=_shard, metavar="I/N", help="check shard I of N only, for `merge`")
    c.add_argument("--jobs", type=_jobs, default=None, dest="check_jobs", metavar="N",
                   help="worker processes (judge off or replay; default: cores)")
    add_runs_option(c)


def _jobs(value: str) -> int:
    try:
        jobs = int(value)
    except ValueError:
        jobs = 0
    if jobs < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of processes, 1 or more, got {value!r}")
    return jobs


def add_runs_option(c: argparse.ArgumentParser) -> None:
    """``--runs DIR``: the set's traces from a folder of their own (``check`` and ``merge``)."""
    c.add_argument("--runs", metavar="DIR",
                   help="the golden set's traces from DIR, not its runs/")


def _shard(value: str) -> Shard:
    try:
        return parse_shard(value)
    except InputError as e:
        raise argparse.ArgumentTypeError(str(e)) from e


def add_report_options(c: argparse.ArgumentParser) -> None:
    """The rules, report, baseline and comment options that ``check`` and ``merge`` share."""
    c.add_argument("--config", metavar="FILE", help="sourcegate.yaml (default: the one beside the set)")
    for name in file_reporters():
        c.add_argument(f"--{name}", metavar="FILE", help=REPORTERS[name].help)
    c.add_argument("--baseline", metavar="FILE", help="baseline to compare with (default: SET/baseline.json)")
    c.add_argument("--baseline-ref", metavar="REF",
                   help="rules, baseline and judge cache at this git revision")
    c.add_argument("--trust-config", action="store_true",
                   help="use a --config the base revision lacks (docs/trust.md)")
    c.add_argument("--comment", action="store_true",
                   help="post or update the PR comment (exit code unchanged)")
    add_comment_author(c)
    add_console_options(c)


def add_check_options(c: argparse.ArgumentParser) -> None:
    """``check``'s options but its paths (``run --check`` takes them too)."""
    add_report_options(c)
    add_judge_options(c)
    c.add_argument("--otlp-json", metavar="FILE",
                   help="write the runs as OTLP/JSON spans (docs/spans.md)")
    c.add_argument("--otlp-endpoint", metavar="URL", help="send the spans over OTLP/HTTP to a collector")
    add_case_options(c)


@dataclass(frozen=True)
class CheckPlan:
    """A ``check`` that passed every refusal made before any set runs: its sets, comment authors and shard."""

    sets: tuple[GoldenSetPaths, ...]
    authors: tuple[str, ...] = ()
    shard: Shard | None = None
    pick: Pick | None = None
    """the cases ``--case`` or ``--failed`` asked for (None: every case)"""


def plan(args: argparse.Namespace, paths: Sequence[str]) -> CheckPlan:
    """Everything ``check`` can refuse before any set runs (``run --check`` calls it before its agents)."""
    _not_yaml(paths)
    sets = split_sets(paths)
    require_name_field(report_flags(args), len(sets))
    # A malformed author (flag or variable) stops the run before any set runs, not after.
    authors = comment_authors(args.comment_author, os.environ) if args.comment else ()
    # So do spans asked for without the otel extra, or sent to a URL that is not one.
    if args.otlp_json is not None or args.otlp_endpoint is not None:
        preflight(args.otlp_endpoint)
    if getattr(args, "runs", None) is not None and (len(sets) != 1 or not os.path.isdir(sets[0].paths[0])):
        raise InputError("--runs takes the traces of one golden set: give one golden-set folder")
    shard = getattr(args, "shard", None)
    if shard is not None and (args.comment or len(sets) != 1 or not os.path.isdir(sets[0].paths[0])):
        raise InputError("--shard takes one golden-set folder and no --comment: "
                         "`sourcegate merge` writes the comment once the shards are merged")
    refuse_case_options(args, len(sets), os.path.isdir(sets[0].paths[0]))
    check_outputs(sets, args)
    pick = case_pick(args, lambda: sets[0].name or set_name(sets[0].paths)) if len(sets) == 1 else None
    return CheckPlan(sets, tuple(authors), shard, pick)


def run(args: argparse.Namespace) -> int:
    """Run the gate on each golden set and write its reports; the verdicts decide the exit code."""
    return check_plan(plan(args, args.paths or default_paths()), args)


def check_plan(planned: CheckPlan, args: argparse.Namespace, rules: Rules | None = None,
               held: Held | None = None) -> int:
    """Run the planned sets in turn; ``rules``, when given, are the one set's rules already read
    (:func:`set_rules`: ``run --check`` reads them before its agents start, and not again), ``held``
    its golden set and the runs its agents just gave (not read back from the files)."""
    return each_set(planned.sets, lambda s: _check_one(s, args, planned, rules, held), "check")


def request_rules(planned: CheckPlan, args: argparse.Namespace, loaded: GoldenSet | None = None) -> Rules:
    """The rules of the one set of ``planned``: configuration, baseline, trusted judge cache, read now
    (``loaded``: the set, loaded already)."""
    (golden,) = planned.sets
    name = golden.name or (loaded.name if loaded is not None else set_name(golden.paths))
    return set_rules(_request(golden, args, pick=planned.pick), name, loaded)


def report_flags(args: argparse.Namespace) -> dict[str, str | None]:
    """The output flags as given, each refused before any work if it names an unknown ``{placeholder}``
    or if more than one report would go to stdout (``check`` and ``merge`` alike)."""
    files = {f"--{f.replace('_', '-')}": getattr(args, f) for f in file_flags()}
    _known_fields(files)
    _one_stdout(args)
    return files


_FIELD = re.compile(r"\{[^{}]*\}")
_YAML = (".yaml", ".yml")


def _not_yaml(paths: Sequence[str]) -> None:
    """A golden set's YAML file given where its folder is meant: say so rather than "malformed JSON"."""
    for p in paths:
        if os.path.isfile(p) and p.lower().endswith(_YAML):
            folder = os.path.dirname(p) or "."
            raise InputError(f"this is a YAML file, not a trace: give the golden-set folder it is in "
                             f"(sourcegate check {folder})", file=p)


def _known_fields(files: Mapping[str, str | None]) -> None:
    """Refuse a ``{placeholder}`` other than ``{name}`` in an output path (it would be written as is)."""
    for flag, value in files.items():
        for found in _FIELD.findall(value or ""):
            if found != NAME_FIELD:
                raise InputError(f"usage: {flag} {value}: unknown placeholder {found}; only {NAME_FIELD} "
                                 "(the golden set's name) is replaced")


def _one_stdout(args: argparse.Namespace) -> None:
    """At most one report on stdout: two would be one unparseable stream."""
    taken = [f"--{f.replace('_', '-')}" for f in (*file_reporters(), "otlp_json")
             if (v := getattr(args, f)) is not None and (v == "-" or is_stdout(v))]
    if len(taken) > 1:
        raise InputError(f"usage: {' and '.join(taken)} all write to stdout: only one report can go "
                         "to stdout; write the others to files")


def _request(golden: GoldenSetPaths, args: argparse.Namespace, shard: Shard | None = None,
             pick: Pick | None = None) -> SetRequest:
    return SetRequest(golden.paths, args.config, args.judge, baseline=args.baseline,
                      baseline_ref=args.baseline_ref, trust_config=args.trust_config,
                      judge_provider=args.judge_provider, shard=shard, runs=getattr(args, "runs", None),
                      jobs=getattr(args, "check_jobs", None), pick=pick, secrets=secret_values(os.environ))


def check_outputs(sets: Sequence[GoldenSetPaths], args: argparse.Namespace) -> None:
    """Refuse, before any set runs, an output path of ``check`` that cannot be written, that a set
    reads, or that two outputs share (:func:`gate.deliver.targets.check_targets`)."""
    targets: list[Target] = []
    reads: dict[str, str] = {}
    named = any(NAME_FIELD in (getattr(args, f) or "") for f in file_flags())
    for s in sets:
        name = s.name or (set_name(s.paths) if named else None)
        out = Outputs.of(args, name, default_markdown=False)
        targets += out.targets(os.environ, s.label if len(sets) > 1 else None)
        reads.update(reads_of(_request(s, args)))
    check_targets(targets, reads)


def _check_one(golden: GoldenSetPaths, args: argparse.Namespace, planned: CheckPlan,
               rules: Rules | None = None, held: Held | None = None) -> int:
    shard, authors = planned.shard, planned.authors
    report = run_set(_request(golden, args, shard, planned.pick), now=datetime.now(UTC), progress=progress(args),
                     rules=rules, held=held)
    # {name} works with one set too; on a terminal the terminal report replaces the default markdown
    out = Outputs.of(args, golden.name or report.golden_name, default_markdown=not terminal_mode(args))
    # The spans are of the runs the report gated: --runs DIR's, or those run --check holds.
    gated = GatedRuns(tuple(golden.paths), getattr(args, "runs", None), held.runs if held is not None else None)
    code = deliver(report, gated, out, Delivery.of(args, authors))
    # A shard does not gate: `sourcegate merge` decides, for every shard at once.
    return ExitCode.PASS if shard is not None else code
