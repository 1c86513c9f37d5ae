"""Where one set's report goes: its files (all or nothing), the job summary, the PR comment, the OTLP
collector and the verdict line. The only writers of a report; both doors (``sourcegate check`` and the
Action) call :func:`deliver` with the set's :class:`Outputs` and :class:`Delivery`.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import stat
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TextIO

from gate.deliver.console import show
from gate.deliver.publish import emit, post_comment, run_url, summary_target, write_summary
from gate.deliver.spans import otlp_deadline, phoenix_url, prepare, span_time
from gate.deliver.targets import Target
from gate.errors import InputError
from gate.files.outputs import TEMP_PREFIX, is_stdout, write_file
from gate.load.gated import GatedRuns
from gate.load.goldensets import per_set_file
from gate.report.registry import REPORTERS, file_reporters, rendering
from gate.results import CHECK_ERROR
from gate.verdict.report import Report, report_exit

__all__ = ["SUMMARY", "Delivery", "Outputs", "deliver", "write_all"]

SUMMARY = "summary"
"""The reporter ``check`` publishes rather than only writes: by default appended to the job summary."""


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
class Delivery:
    """How one set's report leaves the process besides its files: the PR comment, the OTLP collector,
    the console, and where the messages and the CI run's variables come from."""

    comment: bool = False
    """post or update the PR comment"""
    authors: tuple[str, ...] = ()
    """logins whose marked comment is ours too (:func:`gate.deliver.publish.comment_authors`)"""
    otlp_endpoint: str | None = None
    console: argparse.Namespace = field(default_factory=argparse.Namespace)
    """``--color``, ``-q`` and ``-v`` for the verdict line (:func:`gate.deliver.console.show`)"""
    env: Mapping[str, str] = field(default_factory=lambda: os.environ)
    """the CI run's variables: the run's URL, ``GITHUB_STEP_SUMMARY``, the pull request, ``GITHUB_TOKEN``"""
    err: TextIO | None = None
    """where messages go (None: stderr)"""

    @classmethod
    def of(cls, args: argparse.Namespace, authors: Sequence[str]) -> Delivery:
        """What the command line's flags ask for, with the process environment."""
        return cls(bool(args.comment), tuple(authors), getattr(args, "otlp_endpoint", None), args)


def deliver(report: Report, gated: GatedRuns, out: Outputs, how: Delivery) -> int:
    """Render and write the reports of one set, then publish; the verdict's exit code. ``gated`` names
    the runs the report gated: its spans are theirs."""
    # Render everything before writing anything: a rendering error leaves no file behind.
    spans = None
    if out.otlp_json is not None or how.otlp_endpoint is not None:
        spans = prepare(report, gated, json_file=out.otlp_json, endpoint=how.otlp_endpoint,
                        deadline_seconds=otlp_deadline(how.env), phoenix=phoenix_url(how.env),
                        stamp=span_time(how.env))
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
