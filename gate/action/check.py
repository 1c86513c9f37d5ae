"""Check mode: run the gate on each golden set as planned, then report it to the runner.

Checks that the baseline commit is in the checkout, then
for each golden set calls the gate as Python: :func:`gate.pipeline.run_set` (in merge mode
:func:`gate.pipeline.merged_report`) gives the set's :class:`~gate.verdict.report.Report`, and
:func:`gate.deliver.delivery.deliver` writes its report files, job summary file and PR comment, the
code path of ``sourcegate check``, so the two cannot disagree. Workflow commands are stopped
meanwhile. Then the step writes ``GITHUB_OUTPUT``, appends to ``GITHUB_STEP_SUMMARY``, annotates
each hard failure and maps the verdicts and ``fail-on`` to the exit code, all from the Report values
(:mod:`gate.action.aggregate` says how several sets make one step).
"""

from __future__ import annotations

import contextlib
import os
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol, TextIO

from gate.action.aggregate import SetRun, failure_annotation, step_outputs
from gate.action.commands import append_runner_file, commands_stopped, output_block, workflow_command
from gate.action.inputs import Inputs, discover_golden_sets
from gate.action.notrun import (
    NOT_RUN_FILE,
    DroppedSet,
    NotRun,
    dropped_message,
    dropped_sets,
    post_not_run,
    write_not_run,
)
from gate.action.outcome import exit_code, outcome_from_report, set_annotation_lines
from gate.action.plan import SetPlan, plan_check
from gate.config import CALLING_MODES, DEFAULT_PROVIDER
from gate.deliver.delivery import Delivery, Outputs, deliver
from gate.deliver.publish import comment_authors, run_url
from gate.deliver.targets import check_targets, reads_of
from gate.errors import GateError, InputError, error_line, guarded
from gate.exitcodes import ExitCode, combined_exit
from gate.files.outputs import resolve_within
from gate.files.paths import real_is_below
from gate.git.revision import has_commit
from gate.load.gated import GatedRuns
from gate.load.golden import load_golden
from gate.load.goldensets import GoldenSetPaths, file_name, split_sets
from gate.pipeline import TRACES_NAME, MergeRequest, SetRequest, merged_report, run_set
from gate.report.registry import REPORTERS
from gate.report.sections import utf8_len
from gate.report.summary import SUMMARY_LIMIT, SummaryReporter
from gate.results import CHECK_ERROR
from gate.rules import resolve_config
from gate.term.progress import PlainProgress, Progress
from gate.text.escape import md, md_code
from gate.verdict.report import Report

if TYPE_CHECKING:
    from gate.github import PullRequestContext

__all__ = ["Gate", "run_check", "run_gate"]

class Gate(Protocol):
    """Runs one planned request into its report: :func:`run_gate`, or a stand-in passed in by tests."""

    def __call__(self, request: SetRequest | MergeRequest, progress: Progress) -> Report:
        """The report of ``request``; ``progress`` is where a live judge says how far it got."""
        ...


def run_gate(request: SetRequest | MergeRequest, progress: Progress) -> Report:
    """The gate: :func:`gate.pipeline.run_set` for a set, :func:`gate.pipeline.merged_report` for a merge."""
    now = datetime.now(UTC)
    if isinstance(request, MergeRequest):
        return merged_report(request, now=now)
    return run_set(request, now=now, progress=progress)


def _pr_context(env: Mapping[str, str]) -> PullRequestContext | None:
    from gate.github import GitHubError, pr_context_from_env

    try:
        return pr_context_from_env(env)
    except GitHubError as e:
        raise InputError(str(e)) from e


PULL_REQUEST_TARGET = (
    "this workflow runs on pull_request_target, with the base repository's write token and secrets: "
    "never check out and gate a pull request's files there; use pull_request, and for comments on "
    "forks the fork-safe pair of docs/fork-safe.md"
)
"""The warning a ``pull_request_target`` run gets (the action still runs: the trigger is the workflow's)."""

def _prepare_git(root: str, baseline: str | None) -> None:
    """Make sure the baseline commit is there to read from. (The mounted workspace, owned by another user,
    needs no ``safe.directory`` written anywhere: the gate's git commands trust it on their own command
    line, :mod:`gate.git.command`.)"""
    if baseline is None:
        return
    # Outside a git checkout (or a repository git cannot read) the gate itself says what it cannot read.
    if has_commit(root, baseline) is False:
        raise InputError(
            f"the baseline commit {baseline} is not in the checkout, so the PR could not be compared "
            "with its base: check out with `fetch-depth: 0` (actions/checkout), or set 'baseline-ref'"
        )


@dataclass(frozen=True)
class _Chosen:
    """The golden sets the step runs, and those of the base commit the pull request dropped."""

    sets: tuple[GoldenSetPaths, ...]
    dropped: tuple[DroppedSet, ...]


def run_check(inputs: Inputs, env: Mapping[str, str], out: TextIO, gate: Gate = run_gate) -> int:
    """Run the gate on each golden set as the inputs and the event say; write outputs, summary and
    annotations for all of them. With several sets, each set's reports go to ``report-dir/<name>/``.

    ``env`` is the step's environment (the CI run's variables); ``gate`` runs each planned request.
    Every report file must resolve inside ``GITHUB_WORKSPACE`` (the working folder when unset): a
    report folder or file committed as a symlink that leads out of it is an input error (exit 2)
    before anything is written or removed, and so is a report file that cannot be written or that a
    set reads (:mod:`gate.deliver.targets`)."""
    root = os.path.abspath(env.get("GITHUB_WORKSPACE") or os.getcwd())
    pr = _pr_context(env)
    baseline = inputs.baseline_ref or (pr.base_sha if pr is not None else None) or None
    _prepare_git(root, baseline)
    chosen = _choose_sets(inputs, root, baseline)
    inputs = _checked_inputs(inputs, chosen, root)
    plans = _plan_sets(inputs, chosen.sets, pr, root, baseline)
    _refuse_bad_outputs(chosen.sets, plans, env, root)
    notes = _announce(plans, env, out)
    dropped_dirs = [os.path.join(inputs.report_dir, file_name(d.name)) for d in chosen.dropped]
    _clear_old_reports(plans, dropped_dirs)
    # The token travels as a value, to the comment only (the judge's keys are in the plan's request).
    publish_env = {**env, "GITHUB_TOKEN": inputs.github_token} if inputs.github_token else env
    runs = [_run_set(s, p, inputs.fail_on, publish_env, out, gate, root) for s, p in zip(chosen.sets, plans,
                                                                                         strict=True)]
    if chosen.dropped:  # in path order among the discovered sets
        comment = inputs.comment and pr is not None and bool(inputs.github_token)
        authors = plans[0].comment_authors if plans else (inputs.comment_authors if comment else ())
        runs = sorted([*runs, *(_dropped_run(d, baseline or "", comment, authors, publish_env, out, (f, root))
                                for d, f in zip(chosen.dropped, dropped_dirs, strict=True))], key=lambda r: r.paths)
    final = combined_exit(r.final for r in runs)
    _report_step(runs, plans, inputs, env, out, notes, final, several=len(chosen.sets) > 1, root=root)
    return final


def _choose_sets(inputs: Inputs, root: str, baseline: str | None) -> _Chosen:
    """The sets named by ``golden-set``, else every set found in the workspace; with discovery, every
    set the base commit has must still be here (a PR cannot drop one silently). Folders mixed with
    trace files, and two sets of one name, stop the step before anything runs."""
    found = discover_golden_sets(root, required=False) if not inputs.golden_set else ()
    dropped = dropped_sets(root, baseline, found) if not inputs.golden_set and baseline else ()
    if not inputs.golden_set and not found and not dropped:
        discover_golden_sets(root)  # none anywhere: its input error
    sets = split_sets(list(inputs.golden_set) or list(found)) if inputs.golden_set or found else ()
    if baseline is not None and sets and not any(os.path.isdir(p) for p in sets[0].paths):
        raise InputError(_files_with_a_base(sets[0].paths))
    return _Chosen(sets, tuple(dropped))


def _checked_inputs(inputs: Inputs, chosen: _Chosen, root: str) -> Inputs:
    """The inputs that take one golden-set folder (``shard``, ``merge-from``, ``runs``) refused for
    anything else; a shard never gates (the merge job does), so its ``fail-on`` is ``none``."""
    one_folder = len(chosen.sets) == 1 and not chosen.dropped and os.path.isdir(chosen.sets[0].paths[0])
    if (inputs.shard or inputs.merge_from) and not one_folder:
        raise InputError("inputs 'shard' and 'merge-from' take one golden-set folder: set 'golden-set'")
    if inputs.runs and not one_folder:
        raise InputError("input 'runs' holds the traces of one golden set: set 'golden-set' to its folder")
    if inputs.runs and not real_is_below(inputs.runs, root):
        # Downloaded traces stay in the workspace: a folder committed as a link out of it is refused.
        raise InputError("input 'runs' leads out of the workspace (a symbolic link): the traces are read "
                         "only inside it", file=inputs.runs)
    return replace(inputs, fail_on="none") if inputs.shard else inputs


def _plan_sets(inputs: Inputs, sets: Sequence[GoldenSetPaths], pr: PullRequestContext | None, root: str,
               baseline: str | None) -> list[SetPlan]:
    """Each set's plan; with several sets, each set's reports in ``report-dir/<name>/``."""
    partials = _partials(inputs.merge_from, root) if inputs.merge_from else ()
    several = len(sets) > 1
    return [plan_check(replace(inputs, report_dir=os.path.join(inputs.report_dir, file_name(s.name)))
                       if several and s.name else inputs, s.paths, pr, partials,
                       provider=_judge_provider(inputs, s, baseline)) for s in sets]


def _refuse_bad_outputs(sets: Sequence[GoldenSetPaths], plans: Sequence[SetPlan], env: Mapping[str, str],
                        root: str) -> None:
    """Every report file inside the workspace (the report folder comes from the checkout: a PR may
    commit it as a symlink to elsewhere), writable, none a file a set reads, none shared by two sets:
    before anything runs."""
    for p in plans:
        for f in p.files.values():
            resolve_within(f, root, "the workspace")
    several = len(sets) > 1
    check_targets([t for s, p in zip(sets, plans, strict=True)
                   for t in Outputs(p.files).targets(env, s.label if several else None, "input 'report-dir'")],
                  {path: what for p in plans for path, what in reads_of(p.request).items()})


def _announce(plans: Sequence[SetPlan], env: Mapping[str, str], out: TextIO) -> list[str]:
    """The step's notes as notices (each once), and the warning of a ``pull_request_target`` run."""
    notes = list(dict.fromkeys(n for p in plans for n in p.notes))
    for note in notes:
        print(workflow_command("notice", note, title="sourcegate"), file=out)
    if env.get("GITHUB_EVENT_NAME") == "pull_request_target":
        print(workflow_command("warning", PULL_REQUEST_TARGET, title="sourcegate"), file=out)
    return notes


def _clear_old_reports(plans: Sequence[SetPlan], dropped_dirs: Sequence[str]) -> None:
    """Remove every report file (and ``not-run.json``) an earlier step left: it must never pass for this one's."""
    folders = [*dict.fromkeys(os.path.dirname(p.files["json"]) for p in plans), *dropped_dirs]
    for f in [*(f for p in plans for f in p.files.values()), *(os.path.join(d, NOT_RUN_FILE) for d in folders)]:
        with contextlib.suppress(FileNotFoundError):
            os.remove(f)


def _report_step(runs: Sequence[SetRun], plans: Sequence[SetPlan], inputs: Inputs, env: Mapping[str, str],
                 out: TextIO, notes: Sequence[str], final: int, *, several: bool, root: str) -> None:
    """The step's outputs, each set's error or annotations, the job summary and the failure annotation."""
    judges = [p.judge for p in plans]
    judge = judges[0] if len(set(judges)) == 1 else "\n".join(judges)
    outputs = step_outputs(runs, judge, final)
    append_runner_file(env.get("GITHUB_OUTPUT"), "".join(output_block(k, v) for k, v in outputs.items()),
                       "the step's outputs (GITHUB_OUTPUT)")
    every = len(runs) > 1
    for r in runs:
        if r.outcome is None:
            title = "sourcegate could not run" + (f" golden set {r.label}" if every else "")
            print(workflow_command("error", r.error or "", title=title), file=out)
    named = [(r.outcome, r.paths, r.label if several else None) for r in runs if r.outcome is not None]
    for line in set_annotation_lines(named, root, inputs.runs):
        print(line, file=out)
    append_runner_file(env.get("GITHUB_STEP_SUMMARY"), _summary(runs, judge, notes, final, run_url(env)),
                       "the job summary (GITHUB_STEP_SUMMARY)")
    why = failure_annotation(runs, inputs.fail_on, final)
    if why is not None:
        print(why, file=out)


def _dropped_run(dropped: DroppedSet, baseline: str, comment: bool, authors: Sequence[str],
                 env: Mapping[str, str], out: TextIO, where: tuple[str, str]) -> SetRun:
    """A set the pull request dropped: a set that could not run (exit 2), its comment updated to say so,
    its ``not-run.json`` written to ``where`` (its report folder, and the workspace it must be in)."""
    error = dropped_message(dropped, baseline)
    _record_not_run(NotRun(dropped.name, ExitCode.INPUT, error), *where, out)
    if comment:
        _say_not_run(dropped.name, error, ExitCode.INPUT, authors, env, out)
    return SetRun((dropped.path,), dropped.name, gate_code=ExitCode.INPUT, final=ExitCode.INPUT, error=error)


def _say_not_run(name: str, error: str, code: int, authors: Sequence[str], env: Mapping[str, str],
                 out: TextIO) -> None:
    """The set's PR comment says it could not run, with workflow commands stopped while GitHub's
    answer reaches the log."""
    def post() -> int:
        # No logins named: $SOURCEGATE_COMMENT_AUTHORS, as for the set's report comment.
        post_not_run(name, error, code, env, authors or None, out)
        return ExitCode.PASS

    out.flush()
    with commands_stopped(out), contextlib.redirect_stderr(out):
        guarded(post, err=out)


def _record_not_run(record: NotRun, folder: str, root: str, out: TextIO) -> None:
    """Write the set's ``not-run.json`` in its report folder, for the fork-safe commenter (which reads
    no report of it); a folder that cannot take it is said in the log, the exit code stays."""
    try:
        resolve_within(os.path.join(folder, NOT_RUN_FILE), root, "the workspace")
        write_not_run(folder, record)
    except (GateError, OSError) as e:
        print(f"sourcegate: could not write {NOT_RUN_FILE} of golden set {record.name!r}: {e}", file=out)


def _files_with_a_base(paths: Sequence[str]) -> str:
    """The message for trace files (or a golden.yaml) given where the gate reads a base commit."""
    folders = sorted({os.path.dirname(p) or "." for p in paths if os.path.basename(p) == "golden.yaml"})
    hint = (f": give the golden-set folder that holds it ({', '.join(folders)})" if folders
            else ": give the golden-set folder (golden.yaml and runs/)")
    return ("input 'golden-set' names files, not a golden-set folder; the gate reads the baseline and "
            "golden.yaml from the pull request's base commit (or 'baseline-ref'), which needs the folder" + hint)


def _judge_provider(inputs: Inputs, golden: GoldenSetPaths, baseline: str | None) -> str | None:
    """The provider the set's live judge would use: the ``judge-provider`` input, else ``judge.provider``
    of the configuration the gate reads (at the base commit), else the default. None when the
    configuration cannot be read: the gate then says why, as the set's error."""
    if inputs.judge_provider:
        return inputs.judge_provider
    if inputs.judge not in ("auto", *CALLING_MODES) or inputs.merge_from:
        return DEFAULT_PROVIDER
    try:
        return resolve_config(golden.paths, inputs.config, ref=baseline,
                              trust_config=inputs.trust_config and bool(inputs.config)).judge.provider
    except GateError:
        return None


def _partials(folder: str, root: str) -> tuple[str, ...]:
    """The partial reports under ``folder``: every ``report.json`` in it or below (one per artifact)."""
    where = resolve_within(folder, root, "the workspace")
    if not os.path.isdir(where):
        raise InputError("input 'merge-from' must be a folder holding the shards' partial reports", file=folder)
    found = sorted(os.path.join(d, f) for d, _, names in os.walk(folder) for f in names if f == "report.json")
    if not found:
        raise InputError("no partial report (report.json) in input 'merge-from' or below", file=folder)
    for f in found:
        resolve_within(f, root, "the workspace")
    return tuple(found)


def _run_set(golden: GoldenSetPaths, plan: SetPlan, fail_on: str, env: Mapping[str, str], out: TextIO,
             gate: Gate, root: str) -> SetRun:
    """One golden set through the gate and ``sourcegate check``'s delivery, with workflow commands
    stopped: its messages, the verdict line and any error reach the log between the tokens."""
    reports: list[Report] = []
    errors: list[Exception] = []

    def check() -> int:
        # As the command line: a malformed $SOURCEGATE_COMMENT_AUTHORS is this set's input error.
        authors = comment_authors(plan.comment_authors or None, env) if plan.comment else ()
        report = gate(plan.request, PlainProgress(out))
        reports.append(report)
        gated = GatedRuns(tuple(golden.paths), plan.request.runs)  # the traces of input 'runs', when given
        code = deliver(report, gated, Outputs(plan.files), Delivery(plan.comment, authors, env=env, err=out))
        shard = isinstance(plan.request, SetRequest) and plan.request.shard is not None
        return ExitCode.PASS if shard else code  # a shard does not gate: the merge job does

    def say(error: Exception) -> None:
        errors.append(error)
        print(error_line(error), file=out)

    out.flush()
    # stderr joins the log's stream too: whatever a library prints stays between the tokens.
    with commands_stopped(out), contextlib.redirect_stderr(out):
        code = guarded(check, err=out, say=say)
    report = reports[0] if reports else None
    outcome = None
    if report is not None and code in (ExitCode.PASS, ExitCode.FAIL, ExitCode.INCONCLUSIVE):
        outcome = outcome_from_report(report)
    error = None if outcome is not None else _why(errors, report, code)
    # Without a report there was nothing to comment: the comment of an earlier push must not stand.
    # Nor in the fork-safe pair: the set's not-run.json, where its report would be, tells the commenter.
    name = _set_name(golden) if error is not None and report is None else None
    if error is not None and name is not None:
        _record_not_run(NotRun(name, code, error), os.path.dirname(plan.files["json"]), root, out)
        if plan.comment:
            _say_not_run(name, error, code, plan.comment_authors, env, out)
    final = exit_code(code, outcome, fail_on)
    return SetRun(golden.paths, golden.name, plan.files, code, outcome, final, error,
                  report if outcome is not None else None)


def _set_name(golden: GoldenSetPaths) -> str | None:
    """The name a set's PR comment is keyed by, for a set that could not run: its name in the step,
    else its ``golden.yaml``'s (trace files: the traces' name); None when none can be read."""
    if golden.name:
        return golden.name
    folders = [p for p in golden.paths if os.path.isdir(p)]
    if not folders:
        return TRACES_NAME
    try:
        return load_golden(folders[0]).name
    except GateError:
        return None


def _why(errors: Sequence[Exception], report: Report | None, code: int) -> str:
    """Why a set could not run, in the last line the log shows of it."""
    if errors:
        e = errors[-1]
        said = error_line(e) if isinstance(e, GateError) else "".join(traceback.format_exception_only(e))
        return said.strip().splitlines()[-1]
    failed = [(c.id, f.message) for c in (report.cases if report else ()) for f in c.hard_failures
              if f.check == CHECK_ERROR]
    if failed:
        case, message = failed[-1]
        return f"sourcegate: internal error in case {case!r}: {message}".strip().splitlines()[-1]
    return f"sourcegate stopped with exit code {code}"


def _summary(runs: Sequence[SetRun], judge: str, notes: Sequence[str], final: int, url: str | None) -> str:
    """The step's summary: the notes, then each set's job summary (or why it could not run)."""
    text = _summary_header(judge, notes, final)
    if len(runs) > 1:
        listed = " · ".join(f"{_code(r.label)} {r.verdict}" for r in runs)
        text += f"**sourcegate, {len(runs)} golden sets:** {listed} (exit {final})\n\n"
    # GitHub's limit is per step, whatever the number of sets: each set gets an equal share of it.
    share = (SUMMARY_LIMIT - utf8_len(text)) // len(runs) - 1
    for r in runs:
        if r.report is None:
            which = f" golden set {_code(r.label)}" if len(runs) > 1 else ""
            text += f"sourcegate could not run{which} (exit {r.gate_code}): {_code(r.error or '')}\n"
            continue
        text += _fitted(r, r.report, share, url) + "\n"
    return text


def _fitted(run: SetRun, report: Report, limit: int, url: str | None) -> str:
    """A set's job summary in at most ``limit`` UTF-8 bytes.

    Over its share, the summary is rendered again from the set's report with that limit, so it is
    trimmed section by section like any long summary (tables and ``<details>`` stay whole); a byte
    cut, the last resort, could leave a ``<details>`` open that would swallow the next set's.
    """
    body = REPORTERS["summary"].make(url).render(report)
    if utf8_len(body) <= limit:
        return body
    fitted = SummaryReporter(limit).render(report)
    if utf8_len(fitted) <= limit:
        return fitted
    note = f"\n\n… cut at GitHub's 1 MiB summary limit; the full report is `{run.files['json']}`.\n"
    return body.encode()[: max(0, limit - utf8_len(note))].decode(errors="ignore") + note


def _plain(text: str) -> str:
    return md(text, max_len=500)


def _code(text: str) -> str:
    return md_code(text, max_len=500, in_table=False)


def _summary_header(judge: str, notes: Sequence[str], final: int) -> str:
    lines = [f"<!-- sourcegate action: judge {' '.join(judge.split())}, exit {final} -->", ""]
    lines += [f"- **sourcegate:** {_plain(note)}" for note in notes]
    return "\n".join(lines) + ("\n\n" if notes else "\n")
