"""Talking to the runner: workflow commands, output blocks, masking, and keeping the log safe.

Every value the runner reads is escaped here: a command's message and properties
(:func:`escape_data`, :func:`escape_property`, as ``@actions/core`` does), and outputs are written
as ``name<<DELIM`` blocks with a random delimiter (:func:`output_block`). While the gate runs,
workflow commands are stopped (:func:`commands_stopped`) so that no text from a page, an answer or
a golden-set file can act as one in the log.
"""

from __future__ import annotations

import contextlib
import secrets
import sys
from collections.abc import Iterator
from typing import TextIO

from gate.errors import InputError
from gate.files.outputs import append_file

__all__ = [
    "RunnerFileError",
    "append_runner_file",
    "commands_stopped",
    "escape_data",
    "escape_property",
    "mask",
    "output_block",
    "workflow_command",
]


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


def mask(secrets_to_hide: tuple[str, ...], out: TextIO) -> None:
    """``::add-mask::`` every non-empty line of each secret, so the runner hides it in the log.

    Lines are stripped as the inputs are: the value that flows on is the one that is masked.
    """
    for secret in secrets_to_hide:
        for line in secret.splitlines():
            if line.strip():
                print(workflow_command("add-mask", line.strip()), file=out)


class RunnerFileError(InputError):
    """A runner file (``GITHUB_OUTPUT``, ``GITHUB_STEP_SUMMARY``) that cannot be written (exit 2)."""


def append_runner_file(path: str | None, text: str, what: str = "the runner's file") -> None:
    """Append to a runner file (``GITHUB_OUTPUT``, ``GITHUB_STEP_SUMMARY``) when it is set; one that
    cannot be written is a :class:`RunnerFileError` naming ``what`` and the reason."""
    if path:
        append_file(path, text, what=what, error=RunnerFileError)


@contextlib.contextmanager
def commands_stopped(out: TextIO) -> Iterator[None]:
    """Stop workflow-command processing while untrusted text may reach the log."""
    token = secrets.token_hex(16)
    print(f"::stop-commands::{token}", file=out, flush=True)
    try:
        yield
    finally:
        sys.stderr.flush()
        print(f"::{token}::", file=out, flush=True)
