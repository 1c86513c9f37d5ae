"""Comment mode (``comment-from`` set): the second job of the fork-safe pair.

It runs ``sourcegate comment REPORT --pr N`` in-process on a report that an untrusted workflow
uploaded: the report is validated against its schema and rendered again by the comment renderer,
whose escaping keeps every string in it as text. The pull request number comes from the
``pr-number`` input, which the workflow takes from GitHub, never from the artifact. No gate runs.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Mapping
from typing import TextIO

from gate.action.commands import Tee, append_file, commands_stopped, environ_overlay, output_block, workflow_command
from gate.action.inputs import Inputs
from gate.errors import EXIT_INTERNAL, EXIT_PASS, InputError

__all__ = ["REPORT_LIMIT", "run_comment"]

REPORT_LIMIT = 50 * 1024 * 1024
"""A report artifact bigger than this is refused in comment mode (it is untrusted input)."""

_POSTED = re.compile(r"^sourcegate: PR comment (created|updated): (\S+)$", re.MULTILINE)


def run_comment(inputs: Inputs, env: Mapping[str, str], out: TextIO) -> int:
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

    tee = Tee(sys.stderr)
    out.flush()
    with commands_stopped(out), environ_overlay({"GITHUB_TOKEN": inputs.github_token}), \
            contextlib.redirect_stderr(tee):
        code = cli.main(["comment", file, "--pr", str(inputs.pr_number)])
    if code not in (EXIT_PASS, EXIT_INTERNAL):  # 4 is also how `comment` says GitHub refused it
        return code
    posted = _POSTED.search(tee.text())
    verdict = str(load_json(file).get("verdict", ""))
    append_file(env.get("GITHUB_OUTPUT"), output_block("verdict", verdict)
                + output_block("comment-url", posted.group(2) if posted else ""))
    if posted is None:
        print(workflow_command("error", "the pull request comment was not posted: see the message above",
                               title="sourcegate"), file=out)
        return EXIT_INTERNAL
    return EXIT_PASS
