"""Check mode: run ``sourcegate check`` in-process as planned, then report it to the runner.

Prepares git (the mounted workspace is trusted, the baseline commit must be in the checkout), runs
:func:`gate.cli.main` once per golden set with workflow commands stopped, then writes
``GITHUB_OUTPUT``, appends to ``GITHUB_STEP_SUMMARY``, annotates each hard failure and maps the
verdicts and ``fail-on`` to the exit code (:mod:`gate.action.aggregate` says how several sets make
one step). The gate is the same code as the command line, so the two cannot disagree.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, TextIO

from gate.action.aggregate import SetRun, step_outputs, verdict_line
from gate.action.commands import (
    Tee,
    append_file,
    commands_stopped,
    environ_overlay,
    output_block,
    workflow_command,
)
from gate.action.inputs import Inputs, discover_golden_sets
from gate.action.outcome import exit_code, outcome_from_report, set_annotation_lines
from gate.action.plan import Plan, plan_check
from gate.baseline import parse_report
from gate.errors import EXIT_FAIL, EXIT_INCONCLUSIVE, EXIT_PASS, GateError, InputError
from gate.goldensets import GoldenSetPaths, combined_exit, file_name, split_sets
from gate.jsonio import load_json
from gate.outputs import resolve_within
from gate.report.escape import md, md_code
from gate.report.sections import utf8_len
from gate.report.summary import SummaryReporter

if TYPE_CHECKING:
    from gate.github import PullRequestContext

__all__ = ["SUMMARY_LIMIT", "run_check"]

SUMMARY_LIMIT = 1024 * 1024 - 4096
"""GitHub refuses a step summary over 1 MiB; keep a margin for the notes around it."""


def _pr_context(env: Mapping[str, str]) -> PullRequestContext | None:
    from gate.github import GitHubError, pr_context_from_env

    try:
        return pr_context_from_env(env)
    except GitHubError as e:
        raise InputError(str(e)) from e


def _git(args: Sequence[str], cwd: str) -> subprocess.CompletedProcess[str] | None:
    """Run git with an argument list (never a shell); None when git is not installed."""
    try:
        return subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=60
        )
    except (FileNotFoundError, subprocess.TimeoutExpired):
        return None


def _prepare_git(env: Mapping[str, str], root: str, baseline: str | None) -> None:
    """Trust the mounted workspace, and make sure the baseline commit is there to read from."""
    workspace = env.get("GITHUB_WORKSPACE")
    if workspace:
        # The workspace is mounted from the runner and owned by another user: without this,
        # git refuses it ("dubious ownership") and `git show BASE:path` fails.
        _git(["config", "--global", "--add", "safe.directory", workspace], root)
    if baseline is None:
        return
    inside = _git(["rev-parse", "--is-inside-work-tree"], root)
    if inside is None or inside.returncode != 0:
        return  # not a git checkout: the gate itself says what it cannot read
    found = _git(["rev-parse", "--verify", "--quiet", "--end-of-options", f"{baseline}^{{commit}}"], root)
    if found is not None and found.returncode != 0:
        raise InputError(
            f"the baseline commit {baseline} is not in the checkout, so the PR could not be compared "
            "with its base: check out with `fetch-depth: 0` (actions/checkout), or set 'baseline-ref'"
        )


def run_check(inputs: Inputs, env: Mapping[str, str], out: TextIO) -> int:
    """Run the gate on each golden set as the inputs and the event say; write outputs, summary and
    annotations for all of them. With several sets, each set's reports go to ``report-dir/<name>/``.

    Every report file must resolve inside ``GITHUB_WORKSPACE`` (the working folder when unset): a
    report folder or file committed as a symlink that leads out of it is an input error (exit 2)
    before anything is written or removed."""
    root = os.path.abspath(env.get("GITHUB_WORKSPACE") or os.getcwd())
    # Folders mixed with trace files, and two sets of one name, stop the step before anything runs.
    sets = split_sets(list(inputs.golden_set) or list(discover_golden_sets(root)))
    pr = _pr_context(env)
    several = len(sets) > 1
    if (inputs.shard or inputs.merge_from) and (several or not os.path.isdir(sets[0].paths[0])):
        raise InputError("inputs 'shard' and 'merge-from' take one golden-set folder: set 'golden-set'")
    if inputs.shard:
        inputs = replace(inputs, fail_on="none")  # a shard never gates: the merge job does
    partials = _partials(inputs.merge_from, root) if inputs.merge_from else ()
    plans = [plan_check(replace(inputs, report_dir=os.path.join(inputs.report_dir, file_name(s.name)))
                        if several and s.name else inputs, s.paths, pr, partials) for s in sets]
    plan = plans[0]  # the judge, the baseline commit, the comment and the notes are the same for all
    files = [f for p in plans for f in p.files.values()]
    for f in files:
        # The report folder comes from the checkout: a PR may commit it as a symlink to elsewhere.
        resolve_within(f, root, "the workspace")
    _prepare_git(env, root, plan.baseline_ref)
    for note in plan.notes:
        print(workflow_command("notice", note, title="sourcegate"), file=out)
    for f in files:
        with contextlib.suppress(FileNotFoundError):
            os.remove(f)  # a report left by an earlier step must never be read as this one's

    # The judge's keys reach only a live judge.
    updates: dict[str, str | None] = {k: v if plan.judge == "live" and v else None
                                      for k, v in inputs.judge_keys.items()}
    if inputs.github_token:
        updates["GITHUB_TOKEN"] = inputs.github_token
    runs = [_run_set(s, p, inputs.fail_on, updates, out) for s, p in zip(sets, plans, strict=True)]
    final = combined_exit(r.final for r in runs)
    outputs = step_outputs(runs, plan.judge, final)
    append_file(env.get("GITHUB_OUTPUT"), "".join(output_block(k, v) for k, v in outputs.items()))

    for r in runs:
        if r.outcome is None:
            title = "sourcegate could not run" + (f" golden set {r.label}" if several else "")
            print(workflow_command("error", r.error or "", title=title), file=out)
    named = [(r.outcome, r.paths, r.label if several else None) for r in runs if r.outcome is not None]
    for line in set_annotation_lines(named, root):
        print(line, file=out)
    append_file(env.get("GITHUB_STEP_SUMMARY"), _summary(runs, plan, final))
    why = verdict_line(runs, inputs.fail_on, final)
    if why is not None:
        print(why, file=out)
    return final


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


def _run_set(golden: GoldenSetPaths, plan: Plan, fail_on: str, updates: Mapping[str, str | None],
             out: TextIO) -> SetRun:
    """One golden set through ``sourcegate check``, in-process, with workflow commands stopped."""
    from gate import cli
    tee = Tee(out)  # one stream with the stop-commands tokens, so nothing overtakes them
    out.flush()
    with commands_stopped(out), environ_overlay(updates), contextlib.redirect_stderr(tee):
        code = cli.main(list(plan.argv))
    outcome = None
    if code in (EXIT_PASS, EXIT_FAIL, EXIT_INCONCLUSIVE) and os.path.isfile(plan.files["json"]):
        outcome = outcome_from_report(load_json(plan.files["json"]))
    error = None
    if outcome is None:
        said = tee.text().strip().splitlines()
        error = said[-1] if said else f"sourcegate stopped with exit code {code}"
    final = exit_code(code, outcome, fail_on)
    return SetRun(golden.paths, golden.name, plan.files, code, outcome, final, error)


def _summary(runs: Sequence[SetRun], plan: Plan, final: int) -> str:
    """The step's summary: the notes, then each set's job summary (or why it could not run)."""
    text = _summary_header(plan, final)
    if len(runs) > 1:
        listed = " · ".join(f"{_code(r.label)} {r.verdict}" for r in runs)
        text += f"**sourcegate, {len(runs)} golden sets:** {listed} (exit {final})\n\n"
    # GitHub's limit is per step, whatever the number of sets: each set gets an equal share of it.
    share = (SUMMARY_LIMIT - utf8_len(text)) // len(runs) - 1
    for r in runs:
        if r.outcome is None:
            which = f" golden set {_code(r.label)}" if len(runs) > 1 else ""
            text += f"sourcegate could not run{which} (exit {r.cli_code}): {_code(r.error or '')}\n"
            continue
        text += _fitted(r, share) + "\n"
    return text


def _fitted(run: SetRun, limit: int) -> str:
    """A set's job summary in at most ``limit`` UTF-8 bytes.

    Over its share, the summary is rendered again from the set's JSON report with that limit, so it
    is trimmed section by section like any long summary (tables and ``<details>`` stay whole); a
    byte cut, the last resort, could leave a ``<details>`` open that would swallow the next set's.
    """
    body = _read_first(run.files["summary"], run.files["markdown"])
    if utf8_len(body) <= limit:
        return body
    with contextlib.suppress(GateError, OSError):
        file = run.files["json"]
        fitted = SummaryReporter(limit).render(parse_report(load_json(file), file))
        if utf8_len(fitted) <= limit:
            return fitted
    note = f"\n\n… cut at GitHub's 1 MiB summary limit; the full report is `{run.files['json']}`.\n"
    return body.encode()[: max(0, limit - utf8_len(note))].decode(errors="ignore") + note


def _plain(text: str) -> str:
    return md(text, max_len=500)


def _code(text: str) -> str:
    return md_code(text, max_len=500, in_table=False)


def _read_first(*files: str) -> str:
    for f in files:
        with contextlib.suppress(OSError), open(f, encoding="utf-8") as fh:
            return fh.read()
    return ""


def _summary_header(plan: Plan, final: int) -> str:
    lines = [f"<!-- sourcegate action: judge {plan.judge}, exit {final} -->", ""]
    lines += [f"- **sourcegate:** {_plain(note)}" for note in plan.notes]
    return "\n".join(lines) + ("\n\n" if plan.notes else "\n")
