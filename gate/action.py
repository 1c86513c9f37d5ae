"""The GitHub Action's entrypoint: ``INPUT_*`` in, the gate run in-process, outputs and exit code out.

The container runs ``python -m gate.action``. Inputs arrive as environment variables named by the
runner as ``INPUT_`` + the input name upper-cased with spaces turned into ``_`` (dashes are kept:
``golden-set`` is ``INPUT_GOLDEN-SET``); nothing is ever interpolated into a shell. The gate runs
through :func:`gate.cli.main`, the same code as the command line, so the action and ``sourcegate
check`` cannot disagree.

Two modes:

* **check** (default): resolve the judge mode, the baseline ref and the comment from the inputs and
  the event, run ``sourcegate check``, then write ``GITHUB_OUTPUT``, append to
  ``GITHUB_STEP_SUMMARY``, annotate each hard failure and map the verdict and ``fail-on`` to the
  exit code.
* **comment** (``comment-from`` set): the second job of the fork-safe pair. It runs ``sourcegate
  comment REPORT --pr N`` on a report that an untrusted workflow uploaded: the report is validated
  against its schema and rendered again by the comment renderer, whose escaping keeps every string
  in it as text. The pull request number comes from the ``pr-number`` input, which the workflow
  takes from GitHub, never from the artifact.

While the gate runs, workflow commands are stopped (``::stop-commands::``) so that no text from a
page, an answer or a golden-set file can act as one in the log.

Exit codes (the CLI's table): 0 pass, 1 the gate failed, 2 input error, 3 inconclusive,
4 internal error. ``fail-on: none`` turns 1 and 3 into 0; input and internal errors still fail.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import fmean
from typing import TYPE_CHECKING, Any, TextIO

from gate.errors import (
    EXIT_FAIL,
    EXIT_INCONCLUSIVE,
    EXIT_INPUT,
    EXIT_INTERNAL,
    EXIT_PASS,
    GateError,
    InputError,
)

if TYPE_CHECKING:
    from gate.github import PullRequestContext

__all__ = [
    "FAIL_ON",
    "INPUT_NAMES",
    "JUDGE_MODES",
    "OUTPUT_NAMES",
    "Inputs",
    "Outcome",
    "Plan",
    "annotation_lines",
    "discover_golden_set",
    "plan_check",
    "escape_data",
    "escape_property",
    "exit_code",
    "input_env_name",
    "main",
    "outcome_from_report",
    "output_block",
    "read_inputs",
    "resolve_judge",
    "workflow_command",
]

INPUT_NAMES = (
    "golden-set", "config", "judge", "anthropic-api-key", "github-token", "comment", "baseline-ref",
    "fail-on", "report-dir", "comment-from", "pr-number",
)
"""Every input ``action.yml`` declares; a test keeps the two lists equal."""
OUTPUT_NAMES = (
    "verdict", "exit-code", "report-path", "markdown-path", "hard-failures", "soft-warnings",
    "grounding-rate", "hallucination-rate", "judge", "comment-url",
)
"""Every output ``action.yml`` declares (``comment-url`` in comment mode only)."""
JUDGE_MODES = ("auto", "live", "replay", "off")
FAIL_ON = ("hard", "soft", "none")
SNAPSHOT_ROOT = "cached-snapshots"
SUMMARY_LIMIT = 1024 * 1024 - 4096
"""GitHub refuses a step summary over 1 MiB; keep a margin for the notes around it."""
REPORT_LIMIT = 50 * 1024 * 1024
"""A report artifact bigger than this is refused in comment mode (it is untrusted input)."""

_TRUE = {"true", "yes", "1", "on"}
_FALSE = {"false", "no", "0", "off", ""}


# --------------------------------------------------------------------------------------------
# Inputs


def input_env_name(name: str) -> str:
    """The variable the runner sets for input ``name`` (actions/runner, ``Handler.cs``)."""
    return "INPUT_" + name.replace(" ", "_").upper()


@dataclass(frozen=True)
class Inputs:
    """The action's inputs, parsed and checked; see ``action.yml`` for what each one means."""

    golden_set: tuple[str, ...] = ()
    config: str | None = None
    judge: str = "auto"
    api_key: str = ""
    github_token: str = ""
    comment: bool = True
    baseline_ref: str | None = None
    fail_on: str = "hard"
    report_dir: str = "sourcegate-report"
    comment_from: str | None = None
    pr_number: int | None = None


def _get(env: Mapping[str, str], name: str) -> str:
    return env.get(input_env_name(name), "").strip()


def _choice(env: Mapping[str, str], name: str, allowed: Sequence[str], default: str) -> str:
    value = _get(env, name).lower() or default
    if value not in allowed:
        raise InputError(f"input {name!r} must be one of {', '.join(allowed)}; got {value!r}")
    return value


def _flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = _get(env, name).lower()
    if not raw:
        return default
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise InputError(f"input {name!r} must be true or false; got {raw!r}")


def read_inputs(env: Mapping[str, str]) -> Inputs:
    """Parse the ``INPUT_*`` variables; a malformed value is an :class:`InputError` (exit 2)."""
    golden = tuple(line.strip() for line in _get(env, "golden-set").splitlines() if line.strip())
    ref = _get(env, "baseline-ref") or None
    if ref is not None and (ref.startswith("-") or any(c.isspace() for c in ref)):
        # A ref starting with '-' would be read by git as an option.
        raise InputError(f"input 'baseline-ref' is not a git revision: {ref!r}")
    report_dir = _get(env, "report-dir") or "sourcegate-report"
    if os.path.isabs(report_dir) or ".." in report_dir.replace("\\", "/").split("/"):
        raise InputError(
            f"input 'report-dir' must be a relative path inside the workspace; got {report_dir!r}"
        )
    number_text = _get(env, "pr-number")
    number: int | None = None
    if number_text:
        if not number_text.isdigit() or int(number_text) <= 0:
            raise InputError(f"input 'pr-number' must be a positive integer; got {number_text!r}")
        number = int(number_text)
    return Inputs(
        golden_set=golden,
        config=_get(env, "config") or None,
        judge=_choice(env, "judge", JUDGE_MODES, "auto"),
        api_key=_get(env, "anthropic-api-key"),
        github_token=_get(env, "github-token"),
        comment=_flag(env, "comment", True),
        baseline_ref=ref,
        fail_on=_choice(env, "fail-on", FAIL_ON, "hard"),
        report_dir=report_dir,
        comment_from=_get(env, "comment-from") or None,
        pr_number=number,
    )


def resolve_judge(requested: str, has_key: bool) -> tuple[str, str | None]:
    """The judge mode to run and, when it differs from what a reader might expect, why."""
    if requested == "auto":
        if has_key:
            return "live", None
        return "replay", (
            "no anthropic-api-key was given (pull requests from forks get no secrets): "
            "the judge replays its cache; claims missing from it stay unscored, and too many unscored "
            "claims make the run inconclusive, never a pass"
        )
    if requested == "live" and not has_key:
        return "replay", (
            "judge 'live' was asked for but no anthropic-api-key was given: the judge replays its cache "
            "instead; claims missing from it stay unscored"
        )
    return requested, None


def discover_golden_set(root: str) -> str:
    """The one golden set under ``cached-snapshots/``; none or several is an input error."""
    base = os.path.join(root, SNAPSHOT_ROOT)
    found = sorted(
        os.path.join(SNAPSHOT_ROOT, name)
        for name in (os.listdir(base) if os.path.isdir(base) else ())
        if os.path.isfile(os.path.join(base, name, "golden.yaml"))
    )
    if len(found) == 1:
        return found[0]
    if not found:
        raise InputError(f"no golden set found under {SNAPSHOT_ROOT}/: set the 'golden-set' input")
    raise InputError(
        f"several golden sets under {SNAPSHOT_ROOT}/ ({', '.join(found)}): choose one with the "
        "'golden-set' input (run the action once per set, for example with a matrix)"
    )


# --------------------------------------------------------------------------------------------
# Workflow commands and files


def escape_data(text: str) -> str:
    """Escape a workflow command's message (``%``, CR, LF), as ``@actions/core`` does."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Escape a workflow command's property value: the message escapes plus ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(name: str, message: str, **props: str | None) -> str:
    """One ``::name key=value,...::message`` line, every part escaped."""
    rendered = ",".join(f"{k}={escape_property(v)}" for k, v in props.items() if v is not None)
    return f"::{name}{' ' + rendered if rendered else ''}::{escape_data(message)}"


def output_block(name: str, value: str, delimiter: str | None = None) -> str:
    """``name<<DELIM`` / value / ``DELIM``: safe for any value, with a delimiter it cannot contain."""
    delimiter = delimiter or f"ghadelimiter_{secrets.token_hex(16)}"
    if delimiter in value or delimiter in name:
        raise ValueError("the output delimiter occurs in the value")
    return f"{name}<<{delimiter}\n{value}\n{delimiter}\n"


def _append(path: str | None, text: str) -> None:
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(text)


@contextlib.contextmanager
def _commands_stopped(out: TextIO) -> Iterator[None]:
    """Stop workflow-command processing while untrusted text may reach the log."""
    token = secrets.token_hex(16)
    print(f"::stop-commands::{token}", file=out, flush=True)
    try:
        yield
    finally:
        sys.stderr.flush()
        print(f"::{token}::", file=out, flush=True)


@contextlib.contextmanager
def _environ(updates: Mapping[str, str | None]) -> Iterator[None]:
    """Set (or, with None, remove) process variables for the in-process CLI; restore them after."""
    saved = {k: os.environ.get(k) for k in updates}
    try:
        for k, v in updates.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        yield
    finally:
        for k, old in saved.items():
            if old is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = old


# --------------------------------------------------------------------------------------------
# The report and the exit code


@dataclass(frozen=True)
class Outcome:
    """What the outputs, annotations and exit code need from a JSON report."""

    verdict: str
    hard_failures: tuple[tuple[str, str, str | None, str], ...]
    """(case id, check id, url, message) for each hard failure"""
    grounding_rate: float | None = None
    hallucination_rate: float | None = None
    soft_warnings: tuple[str, ...] = field(default=())


def _mean(cases: Sequence[Mapping[str, Any]], name: str) -> float | None:
    values = [v for c in cases if isinstance(v := (c.get("soft") or {}).get(name), int | float)]
    return fmean(values) if values else None


def outcome_from_report(report: Mapping[str, Any]) -> Outcome:
    """Read the verdict, hard failures, key figures and soft warnings from report JSON data."""
    cases = [c for c in report.get("cases", []) if isinstance(c, Mapping)]
    failures = tuple(
        (str(c.get("id", "")), str(f.get("check", "")), f.get("url"), str(f.get("message", "")))
        for c in cases
        for f in c.get("hard_failures", [])
        if isinstance(f, Mapping)
    )
    summary = report.get("summary") if isinstance(report.get("summary"), Mapping) else {}
    listed = summary.get("soft_warnings") if isinstance(summary, Mapping) else None
    if isinstance(listed, list):
        warnings = tuple(str(w) for w in listed)
    else:
        # decide() marks every soft figure out of bounds that does not block with "(warning".
        warnings = tuple(r for r in report.get("reasons", []) if isinstance(r, str) and "(warning" in r)
    return Outcome(
        verdict=str(report.get("verdict", "")),
        hard_failures=failures,
        grounding_rate=_mean(cases, "grounding_rate"),
        hallucination_rate=_mean(cases, "hallucination_rate"),
        soft_warnings=warnings,
    )


def exit_code(cli_code: int, outcome: Outcome | None, fail_on: str) -> int:
    """The step's exit code from the CLI's, the verdict and ``fail-on``."""
    if cli_code in (EXIT_INPUT, EXIT_INTERNAL) or outcome is None:
        return cli_code if cli_code in (EXIT_INPUT, EXIT_INTERNAL) else EXIT_INTERNAL
    if fail_on == "none":
        return EXIT_PASS
    if outcome.verdict == "fail":
        return EXIT_FAIL
    if outcome.verdict == "inconclusive":
        return EXIT_INCONCLUSIVE
    if outcome.verdict == "pass":
        return EXIT_FAIL if fail_on == "soft" and outcome.soft_warnings else EXIT_PASS
    return EXIT_INTERNAL


def _fmt(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"


# --------------------------------------------------------------------------------------------
# Check mode

MAX_ANNOTATIONS = 10
"""GitHub shows at most 10 error annotations of one step; the rest are summed up in one."""


@dataclass(frozen=True)
class Plan:
    """What the check run will do, decided from the inputs and the event before anything runs."""

    argv: tuple[str, ...]
    judge: str
    baseline_ref: str | None
    comment: bool
    notes: tuple[str, ...]
    files: Mapping[str, str]


def plan_check(inputs: Inputs, paths: Sequence[str], pr: PullRequestContext | None) -> Plan:
    """The CLI arguments and the notes for the log and the summary. Pure: no I/O."""
    notes: list[str] = []
    judge, why = resolve_judge(inputs.judge, bool(inputs.api_key))
    if why:
        notes.append(why)
    elif inputs.api_key and judge != "live":
        notes.append(f"judge '{judge}' was asked for: the anthropic-api-key is not used")
    baseline = inputs.baseline_ref or (pr.base_sha if pr is not None else None)
    if baseline is None:
        notes.append("not a pull request and no baseline-ref: the baseline is read from the working tree")
    comment = inputs.comment and pr is not None and bool(inputs.github_token)
    if inputs.comment and pr is None:
        notes.append("not a pull request: no comment is posted")
    elif inputs.comment and not inputs.github_token:
        notes.append("no github-token: no comment is posted")
    elif comment and pr is not None and pr.is_fork:
        notes.append(
            "pull request from a fork: its token is usually read-only, so the comment may be refused; "
            "the verdict does not change, and the fork-safe pair in docs/action.md posts it instead"
        )
    d = inputs.report_dir
    files = {
        "json": os.path.join(d, "report.json"),
        "markdown": os.path.join(d, "report.md"),
        "summary": os.path.join(d, "summary.md"),
        "junit": os.path.join(d, "junit.xml"),
    }
    argv = ["check", *paths, "--json", files["json"], "--markdown", files["markdown"],
            "--summary", files["summary"], "--junit", files["junit"], "--judge", judge]
    if inputs.config:
        argv += ["--config", inputs.config]
    if baseline:
        argv += ["--baseline-ref", baseline]
    if comment:
        argv.append("--comment")
    return Plan(tuple(argv), judge, baseline, comment, tuple(notes), files)


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


def _annotation_file(case: str, paths: Sequence[str], root: str) -> str | None:
    candidates = []
    for p in paths:
        if os.path.isdir(p):
            candidates += [os.path.join(p, "runs", f"{case}.json"), os.path.join(p, "golden.yaml")]
        elif os.path.splitext(os.path.basename(p))[0] == case or len(paths) == 1:
            candidates.append(p)
    for c in candidates:
        if os.path.isfile(c):
            return os.path.relpath(os.path.abspath(c), root).replace(os.sep, "/")
    return None


def annotation_lines(outcome: Outcome, paths: Sequence[str], root: str) -> list[str]:
    """One ``::error`` line per hard failure (file and case), at most :data:`MAX_ANNOTATIONS`."""
    lines = []
    failures = outcome.hard_failures
    shown = failures if len(failures) <= MAX_ANNOTATIONS else failures[: MAX_ANNOTATIONS - 1]
    for case, check, url, message in shown:
        text = message if url is None or url in message else f"{message} ({url})"
        lines.append(workflow_command("error", text, file=_annotation_file(case, paths, root),
                                      title=f"sourcegate {check}: {case}"))
    if len(shown) < len(failures):
        lines.append(workflow_command(
            "error", f"{len(failures) - len(shown)} more hard failures: see the job summary and the report",
            title="sourcegate: more hard failures"))
    return lines


class _Tee:
    """Writes to a stream and keeps a copy, so the CLI's error message can become an annotation."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.parts: list[str] = []

    def write(self, text: str) -> int:
        self.parts.append(text)
        return self.stream.write(text)

    def flush(self) -> None:
        self.stream.flush()


def _run_check(inputs: Inputs, env: Mapping[str, str], out: TextIO) -> int:
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
    tee = _Tee(sys.stderr)
    out.flush()
    with _commands_stopped(out), _environ(updates), contextlib.redirect_stderr(tee):
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
        "grounding-rate": _fmt(outcome.grounding_rate) if outcome else "",
        "hallucination-rate": _fmt(outcome.hallucination_rate) if outcome else "",
        "judge": plan.judge,
    }
    _append(env.get("GITHUB_OUTPUT"), "".join(output_block(k, v) for k, v in outputs.items()))

    if outcome is None:
        error = "".join(tee.parts).strip().splitlines()
        message = error[-1] if error else f"sourcegate stopped with exit code {code}"
        print(workflow_command("error", message, title="sourcegate could not run"), file=out)
        _append(env.get("GITHUB_STEP_SUMMARY"), _summary_header(plan, final)
                + f"sourcegate could not run (exit {code}): {_code(message)}\n")
        return final
    for line in annotation_lines(outcome, paths, root):
        print(line, file=out)
    body = _read_first(plan.files["summary"], plan.files["markdown"])
    if len(body.encode()) > SUMMARY_LIMIT:
        body = body.encode()[:SUMMARY_LIMIT].decode(errors="ignore") + (
            f"\n\n… cut at GitHub's 1 MiB summary limit; the full report is `{plan.files['json']}`.\n")
    _append(env.get("GITHUB_STEP_SUMMARY"), _summary_header(plan, final) + body + "\n")
    if final != EXIT_PASS:
        print(workflow_command("error" if final != EXIT_INCONCLUSIVE else "warning",
                               f"verdict {outcome.verdict} with fail-on {inputs.fail_on}: exit {final}",
                               title="sourcegate"), file=out)
    return final


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


# --------------------------------------------------------------------------------------------
# Comment mode (the second job of the fork-safe pair)


_POSTED = re.compile(r"^sourcegate: PR comment (created|updated): (\S+)$", re.MULTILINE)


def _run_comment(inputs: Inputs, env: Mapping[str, str], out: TextIO) -> int:
    """``sourcegate comment REPORT --pr N`` in-process: it validates the report against its schema
    and renders it again with the comment renderer's escaping, so the artifact is only data."""
    from gate import cli
    from gate.jsonio import load_json

    if inputs.pr_number is None:
        raise InputError(
            "comment mode needs the 'pr-number' input, taken from GitHub (never from the artifact)"
        )
    if not inputs.github_token:
        raise InputError("comment mode needs a 'github-token' that may write pull request comments")
    source = inputs.comment_from or ""
    file = os.path.join(source, "report.json") if os.path.isdir(source) else source
    try:
        size = os.path.getsize(file)
    except OSError as e:
        raise InputError("no report here (was the artifact downloaded into the workspace?)", file=file) from e
    if size > REPORT_LIMIT:
        raise InputError(f"the report is {size} bytes; more than {REPORT_LIMIT} is refused", file=file)

    tee = _Tee(sys.stderr)
    out.flush()
    with _commands_stopped(out), _environ({"GITHUB_TOKEN": inputs.github_token}), \
            contextlib.redirect_stderr(tee):
        code = cli.main(["comment", file, "--pr", str(inputs.pr_number)])
    if code not in (EXIT_PASS, EXIT_INTERNAL):  # 4 is also how `comment` says GitHub refused it
        return code
    posted = _POSTED.search("".join(tee.parts))
    verdict = str(load_json(file).get("verdict", ""))
    _append(env.get("GITHUB_OUTPUT"), output_block("verdict", verdict)
            + output_block("comment-url", posted.group(2) if posted else ""))
    if posted is None:
        print(workflow_command("error", "the pull request comment was not posted: see the message above",
                               title="sourcegate"), file=out)
        return EXIT_INTERNAL
    return EXIT_PASS


# --------------------------------------------------------------------------------------------
# Entry point


def _mask(inputs: Inputs, out: TextIO) -> None:
    for secret in (inputs.api_key, inputs.github_token):
        for line in secret.splitlines():
            if line.strip():
                print(workflow_command("add-mask", line), file=out)


def main(env: Mapping[str, str] | None = None, argv: Sequence[str] | None = None) -> int:
    """Run the action; ``env`` defaults to the process environment, ``argv`` must be empty."""
    environ: Mapping[str, str] = os.environ if env is None else env
    out = sys.stdout
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        if args:
            raise InputError(
                f"gate.action takes no arguments (inputs come from INPUT_* variables); got {args!r}"
            )
        inputs = read_inputs(environ)
        _mask(inputs, out)
        # Run as if the process environment were `env`: the in-process CLI reads os.environ.
        overlay = {} if env is None else {k: v for k, v in env.items()}
        with _environ(overlay):
            if inputs.comment_from:
                return _run_comment(inputs, environ, out)
            return _run_check(inputs, environ, out)
    except GateError as e:
        print(workflow_command("error", str(e), title="sourcegate"), file=out, flush=True)
        return e.exit_code
    except Exception as e:  # the last resort: our bug, said so with the trace
        import traceback

        traceback.print_exc()
        print(workflow_command("error", f"internal error ({type(e).__name__}); please report it",
                               title="sourcegate"), file=out, flush=True)
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
