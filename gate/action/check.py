"""Check mode: run ``sourcegate check`` in-process as planned, then report it to the runner.

Prepares git (the mounted workspace is trusted, the baseline commit must be in the checkout), runs
:func:`gate.cli.main` with workflow commands stopped, then writes ``GITHUB_OUTPUT``, appends to
``GITHUB_STEP_SUMMARY``, annotates each hard failure and maps the verdict and ``fail-on`` to the
exit code. The gate is the same code as the command line, so the two cannot disagree.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, TextIO

from gate.action.commands import Tee, append_file, commands_stopped, environ_overlay, output_block, workflow_command
from gate.action.inputs import Inputs, discover_golden_set
from gate.action.outcome import annotation_lines, exit_code, figure, outcome_from_report
from gate.action.plan import Plan, plan_check
from gate.errors import EXIT_FAIL, EXIT_INCONCLUSIVE, EXIT_PASS, InputError

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
    """Run the gate as the inputs and the event say; write outputs, summary and annotations."""
    from gate import cli
    from gate.jsonio import load_json

    root = os.path.abspath(env.get("GITHUB_WORKSPACE") or os.getcwd())
    paths = list(inputs.golden_set) or [discover_golden_set(root)]
    pr = _pr_context(env)
    plan = plan_check(inputs, paths, pr)
    _prepare_git(env, root, plan.baseline_ref)
    for note in plan.notes:
        print(workflow_command("notice", note, title="sourcegate"), file=out)
    for f in plan.files.values():
        with contextlib.suppress(FileNotFoundError):
            os.remove(f)  # a report left by an earlier step must never be read as this one's

    updates: dict[str, str | None] = {"ANTHROPIC_API_KEY": inputs.api_key if plan.judge == "live" else None}
    if inputs.github_token:
        updates["GITHUB_TOKEN"] = inputs.github_token
    tee = Tee(sys.stderr)
    out.flush()
    with commands_stopped(out), environ_overlay(updates), contextlib.redirect_stderr(tee):
        code = cli.main(list(plan.argv))

    outcome = None
    if code in (EXIT_PASS, EXIT_FAIL, EXIT_INCONCLUSIVE) and os.path.isfile(plan.files["json"]):
        outcome = outcome_from_report(load_json(plan.files["json"]))
    final = exit_code(code, outcome, inputs.fail_on)

    outputs = {
        "verdict": outcome.verdict if outcome else "error",
        "exit-code": str(final),
        "report-path": plan.files["json"] if outcome else "",
        "markdown-path": plan.files["markdown"] if outcome else "",
        "hard-failures": str(len(outcome.hard_failures)) if outcome else "",
        "soft-warnings": str(len(outcome.soft_warnings)) if outcome else "",
        "grounding-rate": figure(outcome.grounding_rate) if outcome else "",
        "hallucination-rate": figure(outcome.hallucination_rate) if outcome else "",
        "judge": plan.judge,
    }
    append_file(env.get("GITHUB_OUTPUT"), "".join(output_block(k, v) for k, v in outputs.items()))

    if outcome is None:
        error = tee.text().strip().splitlines()
        message = error[-1] if error else f"sourcegate stopped with exit code {code}"
        print(workflow_command("error", message, title="sourcegate could not run"), file=out)
        append_file(env.get("GITHUB_STEP_SUMMARY"), _summary_header(plan, final)
                    + f"sourcegate could not run (exit {code}): {_code(message)}\n")
        return final
    for line in annotation_lines(outcome, paths, root):
        print(line, file=out)
    body = _read_first(plan.files["summary"], plan.files["markdown"])
    if len(body.encode()) > SUMMARY_LIMIT:
        body = body.encode()[:SUMMARY_LIMIT].decode(errors="ignore") + (
            f"\n\n… cut at GitHub's 1 MiB summary limit; the full report is `{plan.files['json']}`.\n")
    append_file(env.get("GITHUB_STEP_SUMMARY"), _summary_header(plan, final) + body + "\n")
    verdict_line = _verdict_line(outcome.verdict, inputs.fail_on, final)
    if verdict_line is not None:
        print(verdict_line, file=out)
    return final


def _verdict_line(verdict: str, fail_on: str, final: int) -> str | None:
    """The annotation that says why the step failed, or why a green step is not a pass.

    ``fail-on: none`` keeps the step green, but a ``fail`` or ``inconclusive`` verdict is still
    said in an annotation: an unavailable judge is never a silent pass.
    """
    if final == EXIT_PASS and verdict == "pass":
        return None
    message = f"verdict {verdict} with fail-on {fail_on}: exit {final}"
    if verdict == "inconclusive":
        message += (" (an inconclusive run is not a pass: the judge could not score enough claims; "
                    "the job summary lists them)")
    kind = "error" if final not in (EXIT_PASS, EXIT_INCONCLUSIVE) else "warning"
    return workflow_command(kind, message, title="sourcegate")


def _plain(text: str) -> str:
    from gate.report.escape import md

    return md(text, max_len=500)


def _code(text: str) -> str:
    from gate.report.escape import md_code

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
