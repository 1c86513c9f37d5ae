"""Comment mode (``comment-from`` set): the second job of the fork-safe pair.

It runs ``sourcegate comment REPORT --pr N`` in-process on a report that an untrusted workflow
uploaded: the report is validated against its schema and rendered again by the comment renderer,
whose escaping keeps every string in it as text. The pull request number comes from the
``pr-number`` input, which the workflow takes from GitHub, never from the artifact. No gate runs.

An artifact of a gate that checked several golden sets holds one ``<name>/report.json`` per set:
each is validated and posted on its own (one comment per set); the step's exit code is the most
severe of theirs, and ``verdict`` the most severe verdict.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Mapping
from typing import TextIO

from gate.action.aggregate import combined_verdict
from gate.action.commands import (
    Tee,
    append_file,
    commands_stopped,
    environ_overlay,
    output_block,
    workflow_command,
)
from gate.action.inputs import Inputs
from gate.errors import InputError
from gate.exitcodes import ExitCode
from gate.goldensets import combined_exit
from gate.jsonio import load_json

__all__ = ["MAX_REPORTS", "REPORT_LIMIT", "run_comment"]

REPORT_LIMIT = 50 * 1024 * 1024
"""A report artifact bigger than this is refused in comment mode (it is untrusted input)."""
MAX_REPORTS = 20
"""An artifact with more reports than this is refused (each would be a comment of its own)."""

_POSTED = re.compile(r"^sourcegate: PR comment (created|updated): (\S+)$", re.MULTILINE)


def run_comment(inputs: Inputs, env: Mapping[str, str], out: TextIO) -> int:
    """``sourcegate comment REPORT --pr N`` in-process for each report of the artifact: it validates
    the report against its schema and renders it again with the comment renderer's escaping, so the
    artifact is only data."""
    from gate import cli
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
        tee = Tee(out)  # one stream with the stop-commands tokens, so nothing overtakes them
        out.flush()
        with commands_stopped(out), environ_overlay({"GITHUB_TOKEN": inputs.github_token}), \
                contextlib.redirect_stderr(tee):
            code = cli.main(["comment", file, "--pr", str(inputs.pr_number),
                             *(f"--comment-author={login}" for login in inputs.comment_authors)])
        codes.append(code)
        if code not in (ExitCode.PASS, ExitCode.PUBLISH):  # 5: GitHub refused or failed the comment
            continue
        verdicts.append(str(load_json(file).get("verdict", "")))
        posted = _POSTED.search(tee.text())
        if posted is None:
            codes[-1] = ExitCode.PUBLISH
            print(workflow_command("error", f"the pull request comment was not posted ({file}): see the "
                                   "message above", title="sourcegate"), file=out)
        else:
            urls.append(posted.group(2))
    if verdicts:
        append_file(env.get("GITHUB_OUTPUT"), output_block("verdict", combined_verdict(verdicts))
                    + output_block("comment-url", "\n".join(urls)))
    return combined_exit(codes)


def _reports(source: str) -> list[str]:
    """The report files of ``comment-from``: the file itself; a folder's ``report.json``; else the
    ``report.json`` of each of its subfolders (the gate's report-dir of several golden sets), sorted."""
    if not os.path.isdir(source):
        return [source]
    top = os.path.join(source, "report.json")
    if os.path.exists(top):
        return [top]
    found = sorted(f for name in os.listdir(source)
                   if os.path.isfile(f := os.path.join(source, name, "report.json")))
    return found or [top]
