"""The action's entry point, and where its exceptions become exit codes.

:func:`main` masks the secret inputs before anything else is printed (before they are even
parsed), refuses arguments (inputs come only from ``INPUT_*`` variables), then runs comment mode
when ``comment-from`` is set and check mode otherwise. Exceptions are mapped by the one handler of
the command line, :func:`gate.errors.guarded`: a :class:`~gate.errors.GateError` is an
``::error`` line and its own exit code (2 for input errors); anything else is our bug: the trace,
an ``::error`` line and exit 4. Either way the step's outputs say ``verdict=error`` and the
``exit-code``, in check and comment mode alike; a ``GITHUB_OUTPUT`` that cannot be written is an
input error that says so.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from typing import TextIO

from gate.action.check import Gate, run_check, run_gate
from gate.action.commands import RunnerFileError, append_runner_file, mask, output_block, workflow_command
from gate.action.comment import run_comment
from gate.action.inputs import SECRET_INPUTS, input_env_name, read_inputs
from gate.errors import GateError, InputError, guarded
from gate.files.digests import recorded_reads

__all__ = ["main"]


def main(env: Mapping[str, str] | None = None, argv: Sequence[str] | None = None, *,
         gate: Gate = run_gate) -> int:
    """Run the action; ``env`` defaults to the process environment, ``argv`` must be empty.

    ``env`` is the step's environment: the inputs and the CI run's variables are read from it and
    passed on as values (the process environment is never changed). ``gate`` runs each golden set's
    planned request into its report (default: the real gate)."""
    environ: Mapping[str, str] = os.environ if env is None else env
    out = sys.stdout
    args = list(sys.argv[1:] if argv is None else argv)

    def run() -> int:
        # Masked before the inputs are parsed, so no message about any input can come first.
        mask(tuple(environ.get(input_env_name(name), "") for name in SECRET_INPUTS), out)
        if args:
            raise InputError(
                f"gate.action takes no arguments (inputs come from INPUT_* variables); got {args!r}"
            )
        inputs = read_inputs(environ)
        if inputs.comment_from:
            return run_comment(inputs, environ, out)
        with recorded_reads():  # a file the step read is not read again to hash it (gate.files.digests)
            return run_check(inputs, environ, out, gate)

    errors: list[Exception] = []

    def say(error: Exception) -> None:
        errors.append(error)
        _annotate(error, out)

    code = guarded(run, say=say)
    if errors:
        _error_outputs(environ, code, errors[-1], out)
    return code


def _error_outputs(env: Mapping[str, str], code: int, error: Exception, out: TextIO) -> None:
    """``verdict=error`` and the exit code, for a step the gate could not run (check and comment mode)."""
    try:
        append_runner_file(env.get("GITHUB_OUTPUT"),
                           output_block("verdict", "error") + output_block("exit-code", str(code)),
                           "the step's outputs (GITHUB_OUTPUT)")
    except RunnerFileError as e:
        if not isinstance(error, RunnerFileError):  # else said already
            _annotate(e, out)


def _annotate(error: Exception, out: TextIO) -> None:
    """An error as an ``::error`` workflow command: its message is escaped, so it cannot be one itself."""
    said = str(error) if isinstance(error, GateError) else (
        f"internal error ({type(error).__name__}); please report it")
    print(workflow_command("error", said, title="sourcegate"), file=out, flush=True)
