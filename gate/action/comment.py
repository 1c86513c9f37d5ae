"""Comment mode (``comment-from`` set): the second job of the fork-safe pair.

It does the job of ``sourcegate comment REPORT --pr N`` as Python, on a report that an untrusted
workflow uploaded (:func:`gate.store.baseline.read_artifact`, then
:func:`~gate.deliver.comment.post_report`): the report is validated against its schema and
rendered again by the comment renderer, whose escaping keeps every string in it as text. The pull
request number comes from the ``pr-number`` input, which the workflow takes from GitHub, never from
the artifact. No gate runs.

An artifact of a gate that checked several golden sets holds one ``<name>/report.json`` per set:
each is validated and posted on its own (one comment per set); the step's exit code is the most
severe of theirs, and ``verdict`` the most severe verdict (``error`` for a report that could not be
read). ``exit-code`` is written too; an input error before any report is read is the entrypoint's
(``verdict`` ``error``).

A set the gate could not run has a ``not-run.json`` where its ``report.json`` would be
(:mod:`gate.action.notrun`). It is read as strictly as a report (bounded, validated against its
schema) and updates the set's comment of an earlier push in place to say this push could not be
gated, the error shown as text (:func:`~gate.action.notrun.not_run_comment`); none is created when
there is none, and its ``verdict`` is ``error``.
"""

from __future__ import annotations

import contextlib
import io
import os
from collections.abc import Mapping
from typing import TextIO

from gate.action.aggregate import combined_verdict
from gate.action.commands import append_runner_file, commands_stopped, output_block, workflow_command
from gate.action.inputs import Inputs
from gate.action.notrun import NOT_RUN_FILE, not_run_comment, read_not_run
from gate.deliver.comment import post_report
from gate.deliver.publish import comment_authors, gate_run_url, post_comment
from gate.errors import InputError, guarded
from gate.exitcodes import ExitCode, combined_exit
from gate.store.baseline import read_artifact

__all__ = ["MAX_REPORTS", "REPORT_LIMIT", "run_comment"]

REPORT_LIMIT = 50 * 1024 * 1024
"""A report artifact bigger than this is refused in comment mode (it is untrusted input)."""
MAX_REPORTS = 20
"""An artifact with more reports than this is refused (each would be a comment of its own)."""


def run_comment(inputs: Inputs, env: Mapping[str, str], out: TextIO) -> int:
    """``sourcegate comment REPORT --pr N``'s job for each report of the artifact: it validates the
    report against its schema and renders it again with the comment renderer's escaping, so the
    artifact is only data. ``env`` is the step's environment."""
    if inputs.pr_number is None:
        raise InputError(
            "comment mode needs the 'pr-number' input, taken from GitHub (never from the artifact)"
        )
    if not inputs.github_token:
        raise InputError("comment mode needs a 'github-token' that may write pull request comments")
    files = _reports(inputs.comment_from or "")
    if len(files) > MAX_REPORTS:
        raise InputError(f"{len(files)} reports; more than {MAX_REPORTS} is refused (one comment each)",
                         file=inputs.comment_from)
    for file in files:
        try:
            size = os.path.getsize(file)
        except OSError as e:
            raise InputError("no report here (was the artifact downloaded into the workspace?)",
                             file=file) from e
        if size > REPORT_LIMIT:
            raise InputError(f"the report is {size} bytes; more than {REPORT_LIMIT} is refused", file=file)

    codes: list[int] = []
    verdicts: list[str] = []
    urls: list[str] = []
    for file in files:
        post = _post_not_run if os.path.basename(file) == NOT_RUN_FILE else _post
        code, verdict, url = post(file, inputs, env, out)
        codes.append(code)
        verdicts.append(verdict if verdict is not None else "error")  # a report that could not be read
        urls += [url] if url is not None else []
        if code == ExitCode.PUBLISH:
            print(workflow_command("error", f"the pull request comment was not posted ({file}): see the "
                                   "message above", title="sourcegate"), file=out)
    final = combined_exit(codes)
    append_runner_file(env.get("GITHUB_OUTPUT"), output_block("verdict", combined_verdict(verdicts))
                       + output_block("comment-url", "\n".join(urls)) + output_block("exit-code", str(final)),
                       "the step's outputs (GITHUB_OUTPUT)")
    return final


def _post(file: str, inputs: Inputs, env: Mapping[str, str], out: TextIO) -> tuple[int, str | None, str | None]:
    """One report of the artifact posted as a PR comment, with workflow commands stopped while its
    messages reach the log: (exit code, the report's verdict, the comment's URL)."""
    said: dict[str, str] = {}

    def post() -> int:
        # As the command line: a malformed $SOURCEGATE_COMMENT_AUTHORS is an input error.
        authors = comment_authors(inputs.comment_authors or None, env)
        report = read_artifact(file)
        # The token travels as a value, to the comment only.
        done = post_report(report, {**env, "GITHUB_TOKEN": inputs.github_token}, number=inputs.pr_number,
                           authors=authors, err=out)
        said["verdict"] = report.verdict
        if done is None:
            return ExitCode.PUBLISH  # GitHub refused or failed the comment: said above
        said["url"] = done.url or str(done.comment_id)
        return ExitCode.PASS

    out.flush()
    # stderr joins the log's stream too: whatever a library prints stays between the tokens.
    with commands_stopped(out), contextlib.redirect_stderr(out):
        code = guarded(post, err=out)
    return code, said.get("verdict"), said.get("url")


def _post_not_run(file: str, inputs: Inputs, env: Mapping[str, str],
                  out: TextIO) -> tuple[int, str | None, str | None]:
    """A set's ``not-run.json``: its comment of an earlier push updated in place to say this push
    could not be gated (none created), with workflow commands stopped while its messages reach the
    log: (exit code, ``error``, the comment's URL)."""
    said: dict[str, str] = {}

    def post() -> int:
        authors = comment_authors(inputs.comment_authors or None, env)
        record = read_not_run(file)
        body = not_run_comment(record.name, record.error, record.exit_code, gate_run_url(env))
        heard = io.StringIO()  # post_comment says only a failure (or what it did) here
        done = post_comment(body, record.name, {**env, "GITHUB_TOKEN": inputs.github_token},
                            number=inputs.pr_number, err=heard, authors=authors, update_only=True, fails=True)
        out.write(heard.getvalue())
        if done is None and heard.getvalue():
            return ExitCode.PUBLISH  # GitHub refused or failed the update: said above
        if done is None:
            out.write(f"sourcegate: no earlier PR comment of golden set {record.name!r} to mark as not run\n")
            return ExitCode.PASS
        said["url"] = done.url or str(done.comment_id)
        return ExitCode.PASS

    out.flush()
    with commands_stopped(out), contextlib.redirect_stderr(out):
        code = guarded(post, err=out)
    return code, "error", said.get("url")


def _reports(source: str) -> list[str]:
    """The files of ``comment-from``: the file itself; else a folder's ``not-run.json`` or
    ``report.json`` and those of each of its subfolders (the gate's report-dir of several golden
    sets), sorted."""
    if not os.path.isdir(source):
        return [source]
    found = [f for f in (_one(source), *sorted(_one(os.path.join(source, n)) for n in os.listdir(source)))
             if os.path.isfile(f)]
    return found or [os.path.join(source, "report.json")]


def _one(folder: str) -> str:
    """A folder's ``not-run.json`` when it has one (a set without a verdict is never shown as one),
    else its ``report.json``."""
    record = os.path.join(folder, NOT_RUN_FILE)
    return record if os.path.isfile(record) else os.path.join(folder, "report.json")
