"""The action's entry point, and the one place where its exceptions become exit codes.

:func:`main` masks the secret inputs before anything else is printed (before they are even
parsed), refuses arguments (inputs come only from ``INPUT_*`` variables), then runs comment mode
when ``comment-from`` is set and check mode otherwise. A :class:`~gate.errors.GateError` is an
``::error`` line and its own exit code (2 for input errors); anything else is our bug: the trace,
an ``::error`` line and exit 4.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Mapping, Sequence

from gate.action.check import run_check
from gate.action.commands import environ_overlay, mask, workflow_command
from gate.action.comment import run_comment
from gate.action.inputs import SECRET_INPUTS, input_env_name, read_inputs
from gate.errors import EXIT_INTERNAL, GateError, InputError

__all__ = ["main"]


def main(env: Mapping[str, str] | None = None, argv: Sequence[str] | None = None) -> int:
    """Run the action; ``env`` defaults to the process environment, ``argv`` must be empty."""
    environ: Mapping[str, str] = os.environ if env is None else env
    out = sys.stdout
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        # Masked before the inputs are parsed, so no message about any input can come first.
        mask(tuple(environ.get(input_env_name(name), "") for name in SECRET_INPUTS), out)
        if args:
            raise InputError(
                f"gate.action takes no arguments (inputs come from INPUT_* variables); got {args!r}"
            )
        inputs = read_inputs(environ)
        # Run as if the process environment were `env`: the in-process CLI reads os.environ.
        overlay = {} if env is None else {k: v for k, v in env.items()}
        with environ_overlay(overlay):
            if inputs.comment_from:
                return run_comment(inputs, environ, out)
            return run_check(inputs, environ, out)
    except GateError as e:
        print(workflow_command("error", str(e), title="sourcegate"), file=out, flush=True)
        return e.exit_code
    except Exception as e:  # the last resort: our bug, said so with the trace
        traceback.print_exc()
        print(workflow_command("error", f"internal error ({type(e).__name__}); please report it",
                               title="sourcegate"), file=out, flush=True)
        return EXIT_INTERNAL
