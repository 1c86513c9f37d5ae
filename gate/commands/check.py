"""``sourcegate check PATH...``: run the gate on golden sets or trace files, write the reports.

Each set runs in turn with its own config (beside it, unless ``--config``), baseline, judge cache,
comparison, reports and PR comment; :mod:`gate.load.goldensets` holds the rules (which paths form a
set, ``{name}`` in output paths, the exit code of the whole run). Everything that can be refused
without running (a missing path, folders mixed with trace files, two sets of one name, an output
path without ``{name}``, an output path that cannot be written or that the run reads, one file
named by two outputs: :mod:`gate.commands.targets`) is refused before the first set runs. After
that, one set's error is said on stderr (naming the set) and the next set still runs
(:mod:`gate.commands.sets`).

With one set, nothing differs from a run of that set alone.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import secrets
import stat
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from types import MappingProxyType
from typing import TextIO

from gate.commands.base import Subparsers, add_comment_author
from gate.commands.sets import each_set
from gate.commands.targets import Target, check_targets, reads_of, set_name
from gate.config import JUDGE_MODES
from gate.console import add_options as add_console_options
from gate.console import progress, show, terminal_mode
from gate.errors import InputError
from gate.exitcodes import ExitCode, report_exit
from gate.files.outputs import TEMP_PREFIX, is_stdout, write_file
from gate.judge.providers import PROVIDERS
from gate.load.goldensets import NAME_FIELD, GoldenSetPaths, default_paths, per_set_file, require_name_field, split_sets
from gate.load.shards import Shard, parse_shard
from gate.pipeline import SetRequest, run_set, set_rules
from gate.publish import comment_authors, emit, post_comment, run_url, summary_target, write_summary
from gate.report.registry import REPORTERS, file_reporters, rendering
from gate.results import CHECK_ERROR
from gate.rules import Rules
from gate.spans import otlp_deadline, preflight, prepare
from gate.verdict.report import Report

__all__ = ["Delivery", "Outputs", "CheckPlan", "add_parser", "check_outputs", "check_plan", "deliver",
           "file_flags", "plan", "report_flags", "request_rules", "run"]

SUMMARY = "summary"
"""The reporter ``check`` publishes rather than only writes: by default appended to the job summary."""
SET_FILES = ("baseline", "otlp_json")
"""The ``check`` options that name a file and are not reports."""


def file_flags() -> tuple[str, ...]:
    """The ``check`` options that name a file: with several sets, each needs ``{name}`` (or is '-')."""
    return (*file_reporters(), *SET_FILES)


def add_parser(sub: Subparsers) -> None:
    """Add ``check`` to the main parser; a report option for each reporter of the registry that has one."""
    c = sub.add_parser("check", help="run the gate on golden sets or trace files")
    c.add_argument("paths", nargs="*", metavar="PATH",
                   help="golden-set folders (each in turn: outputs need {name}) or trace files "
                        "(default: sets in cached-snapshots/)")
    add_check_options(c)
    c.add_argument("--shard", type=_shard, metavar="I/N", help="check shard I of N only, for `merge`")
    add_runs_option(c)


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
    c.add_argument("--judge", choices=JUDGE_MODES, default=None, metavar="MODE",
                   help="live, batch (Message Batches), replay (cache only) or off (default: judge.mode)")
    c.add_argument("--judge-provider", choices=tuple(PROVIDERS), default=None, metavar="P",
                   help=f"{', '.join(PROVIDERS)} (default: judge.provider)")
    c.add_argument("--otlp-json", metavar="FILE",
                   help="write the runs as OTLP/JSON spans (docs/spans.md)")
    c.add_argument("--otlp-endpoint", metavar="URL", help="send the spans over OTLP/HTTP to a collector")


@dataclass(frozen=True)
class Outputs:
    """Where each rendering of one set goes (None: not written, '-': stdout)."""

    reports: Mapping[str, str | None]
    """reporter name -> its file"""
    otlp_json: str | None = None

    @classmethod
    def of(cls, args: argparse.Namespace, name: str | None, default_markdown: bool = True) -> Outputs:
        """The ``check`` flags with ``{name}`` replaced; markdown to stdout when no report is asked for
        and none goes to stdout (unless ``default_markdown`` is off: the terminal report takes its place)."""
        reports = {r: per_set_file(getattr(args, r), name) for r in file_reporters()}
        out = cls(MappingProxyType(reports), per_set_file(args.otlp_json, name))
        if default_markdown and reports["json"] is None and reports["markdown"] is None and not out.stdout_taken:
            return replace(out, reports=MappingProxyType({**reports, "markdown": "-"}))
        return out

    def targets(self, env: Mapping[str, str], owner: str | None = None, flag: str | None = None) -> list[Target]:
        """What these outputs write, each named by its ``check`` option (or by ``flag`` for all: the
        action's input); with no ``summary``, the job summary file of ``env`` it is appended to."""
        def named(option: str) -> str:
            return flag or f"--{option.replace('_', '-')}"

        found = [Target(named(r), t, owner=owner) for r, t in self.reports.items() if t is not None]
        if self.otlp_json is not None:
            found.append(Target(named("otlp_json"), self.otlp_json, owner=owner))
        if SUMMARY in self.reports and self.reports[SUMMARY] is None:
            default, _ = summary_target(None, env)
            if default is not None:
                found.append(Target("$GITHUB_STEP_SUMMARY", default, append=True, owner=owner))
        return found

    @property
    def stdout_taken(self) -> bool:
        """A report is written to stdout ('-', or stdout under another name such as /dev/stdout)."""
        return any(t is not None and (t == "-" or is_stdout(t)) for t in (*self.reports.values(), self.otlp_json))


@dataclass(frozen=True)
class CheckPlan:
    """A ``check`` that passed every refusal made before any set runs: its sets, comment authors and shard."""

    sets: tuple[GoldenSetPaths, ...]
    authors: tuple[str, ...] = ()
    shard: Shard | None = None


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
    check_outputs(sets, args)
    return CheckPlan(sets, tuple(authors), shard)


def run(args: argparse.Namespace) -> int:
    """Run the gate on each golden set and write its reports; the verdicts decide the exit code."""
    return check_plan(plan(args, args.paths or default_paths()), args)


def check_plan(planned: CheckPlan, args: argparse.Namespace, rules: Rules | None = None) -> int:
    """Run the planned sets in turn; ``rules``, when given, are the one set's rules already read
    (:func:`set_rules`: ``run --check`` reads them before its agents start, and not again)."""
    return each_set(planned.sets, lambda s: _check_one(s, args, planned.authors, planned.shard, rules), "check")


def request_rules(planned: CheckPlan, args: argparse.Namespace) -> Rules:
    """The rules of the one set of ``planned``: configuration, baseline, trusted judge cache, read now."""
    (golden,) = planned.sets
    return set_rules(_request(golden, args), golden.name or set_name(golden.paths))


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


def _request(golden: GoldenSetPaths, args: argparse.Namespace, shard: Shard | None = None) -> SetRequest:
    return SetRequest(golden.paths, args.config, args.judge, baseline=args.baseline,
                      baseline_ref=args.baseline_ref, trust_config=args.trust_config,
                      judge_provider=args.judge_provider, shard=shard, runs=getattr(args, "runs", None))


def check_outputs(sets: Sequence[GoldenSetPaths], args: argparse.Namespace) -> None:
    """Refuse, before any set runs, an output path of ``check`` that cannot be written, that a set
    reads, or that two outputs share (:func:`gate.commands.targets.check_targets`)."""
    targets: list[Target] = []
    reads: dict[str, str] = {}
    named = any(NAME_FIELD in (getattr(args, f) or "") for f in file_flags())
    for s in sets:
        name = s.name or (set_name(s.paths) if named else None)
        out = Outputs.of(args, name, default_markdown=False)
        targets += out.targets(os.environ, s.label if len(sets) > 1 else None)
        reads.update(reads_of(_request(s, args)))
    check_targets(targets, reads)


def _check_one(golden: GoldenSetPaths, args: argparse.Namespace, authors: Sequence[str],
               shard: Shard | None, rules: Rules | None = None) -> int:
    report = run_set(_request(golden, args, shard), now=datetime.now(UTC), progress=progress(args), rules=rules)
    # {name} works with one set too; on a terminal the terminal report replaces the default markdown
    out = Outputs.of(args, golden.name or report.golden_name, default_markdown=not terminal_mode(args))
    code = deliver(report, golden.paths, out, Delivery.of(args, authors))
    # A shard does not gate: `sourcegate merge` decides, for every shard at once.
    return ExitCode.PASS if shard is not None else code


@dataclass(frozen=True)
class Delivery:
    """How one set's report leaves the process besides its files: the PR comment, the OTLP collector,
    the console, and where the messages and the CI run's variables come from."""

    comment: bool = False
    """post or update the PR comment"""
    authors: tuple[str, ...] = ()
    """logins whose marked comment is ours too (:func:`gate.publish.comment_authors`)"""
    otlp_endpoint: str | None = None
    console: argparse.Namespace = field(default_factory=argparse.Namespace)
    """``--color``, ``-q`` and ``-v`` for the verdict line (:func:`gate.console.show`)"""
    env: Mapping[str, str] = field(default_factory=lambda: os.environ)
    """the CI run's variables: the run's URL, ``GITHUB_STEP_SUMMARY``, the pull request, ``GITHUB_TOKEN``"""
    err: TextIO | None = None
    """where messages go (None: stderr)"""

    @classmethod
    def of(cls, args: argparse.Namespace, authors: Sequence[str]) -> Delivery:
        """What the command line's flags ask for, with the process environment."""
        return cls(bool(args.comment), tuple(authors), getattr(args, "otlp_endpoint", None), args)


def deliver(report: Report, paths: Sequence[str], out: Outputs, how: Delivery) -> int:
    """Render and write the reports of one set, then publish; the verdict's exit code."""
    # Render everything before writing anything: a rendering error leaves no file behind.
    spans = None
    if out.otlp_json is not None or how.otlp_endpoint is not None:
        spans = prepare(report, paths, json_file=out.otlp_json, endpoint=how.otlp_endpoint,
                        deadline_seconds=otlp_deadline(how.env))
    url = run_url(how.env)
    # The JSON report comes in pieces, written as its cases are read back (a failing piece leaves no file).
    rendered = [(target, rendering(REPORTERS[name].make(url), report))
                for name, target in out.reports.items() if target is not None and name != SUMMARY]
    try:
        write_all(rendered)
    except BaseException:
        show(report, how.console, True)  # the verdict line still, on stderr: the reports were not written
        raise
    if spans is not None:
        spans()
    _publish(report, out.reports[SUMMARY], how)
    show(report, how.console, out.stdout_taken)
    for case in report.cases if report.check_errors else ():  # read back only when a check raised
        for f in case.hard_failures:
            if f.check == CHECK_ERROR:
                print(f"sourcegate: internal error in case {case.id!r}: {f.message}",
                      file=how.err or sys.stderr)
    return report_exit(report)


def write_all(rendered: Sequence[tuple[str, str | Iterable[str]]]) -> None:
    """Write every rendering, or none of the files: each file is written to a temporary beside it,
    then devices and stdout (stdout last), and only then is every temporary renamed into place. A
    failed write removes the temporaries and names what was written already (a device, stdout)."""
    staged: list[tuple[str, str]] = []
    streams = sorted((r for r in rendered if not _stageable(r[0])), key=lambda r: r[0] == "-" or is_stdout(r[0]))
    written: list[str] = []
    try:
        for target, text in rendered:
            if _stageable(target):
                temp = os.path.join(os.path.dirname(os.path.abspath(target)),
                                    f"{TEMP_PREFIX}{secrets.token_hex(6)}-{os.path.basename(target)}")
                try:
                    write_file(temp, text)
                except InputError as e:
                    raise InputError(e.detail, file=target) from e
                staged.append((temp, target))
        for target, text in streams:
            emit(target, text)
            written.append("stdout" if target == "-" else target)
        while staged:
            temp, target = staged[0]
            try:
                os.replace(temp, target)
            except OSError as e:
                raise InputError(f"cannot write here: {e.strerror or e}", file=target) from e
            staged.pop(0)
            written.append(target)
    except InputError as e:
        if written:
            raise InputError(f"{e} (already written: {', '.join(written)}; not written: the others)") from e
        raise
    finally:
        for temp, _ in staged:
            with contextlib.suppress(OSError):
                os.unlink(temp)


def _stageable(target: str) -> bool:
    """A plain file (or none yet): written to a temporary first. Not stdout, a device, a FIFO, a
    socket or a symbolic link (written through as :func:`gate.files.outputs.write_file` does)."""
    if target == "-" or os.path.islink(target):
        return False
    try:
        return stat.S_ISREG(os.stat(target).st_mode) and not is_stdout(target)
    except FileNotFoundError:
        return True
    except OSError:
        return False


def _publish(report: Report, summary: str | None, how: Delivery) -> None:
    """Job summary, then the PR comment (keyed by the set's name): neither changes the exit code."""
    url = run_url(how.env)
    target, append = summary_target(summary, how.env)
    if target is not None:
        write_summary(REPORTERS[SUMMARY].make(url).render(report), target, append)
    if how.comment:
        body = REPORTERS["comment"].make(url).render(report)
        post_comment(body, report.golden_name, how.env, err=how.err, authors=how.authors)
