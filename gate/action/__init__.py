"""The GitHub Action's entrypoint: ``INPUT_*`` in, the gate run in-process, outputs and exit code out.

The container runs ``python -m gate.action`` (``__main__.py``). Inputs arrive as environment
variables named by the runner as ``INPUT_`` + the input name upper-cased with spaces turned into
``_`` (dashes are kept: ``golden-set`` is ``INPUT_GOLDEN-SET``); nothing is ever interpolated into
a shell. The gate runs through :func:`gate.cli.main`, the same code as the command line, so the
action and ``sourcegate check`` cannot disagree.

The flow is the layout:

* ``inputs.py``: the ``INPUT_*`` variables read into a frozen :class:`Inputs`; the judge mode.
* ``plan.py``: what a check run will do, decided from the inputs and the event (pure).
* ``check.py``: check mode (default): run ``sourcegate check`` once per golden set, then write
  ``GITHUB_OUTPUT``, append to ``GITHUB_STEP_SUMMARY``, annotate each hard failure and set the
  exit code.
* ``aggregate.py``: how several golden sets make one step's outputs and verdict (pure).
* ``comment.py``: comment mode (``comment-from`` set), the second job of the fork-safe pair: it
  runs ``sourcegate comment REPORT --pr N`` on a report that an untrusted workflow uploaded.
* ``outcome.py``: the verdict, exit code, figures and annotations read from a JSON report.
* ``commands.py``: workflow commands, escaping, output blocks, masking. While the gate runs,
  workflow commands are stopped (``::stop-commands::``) so that no text from a page, an answer or
  a golden-set file can act as one in the log.
* ``entrypoint.py``: :func:`main`, the one place where exceptions become exit codes.

Exit codes (the CLI's table): 0 pass, 1 the gate failed, 2 input error, 3 inconclusive,
4 internal error. ``fail-on: none`` turns 1 and 3 into 0; input and internal errors still fail.

Importing this package stays cheap: neither the gate (``gate.cli``), nor ``requests``, nor the
Anthropic SDK is imported until a mode runs.
"""

from __future__ import annotations

from gate.action.aggregate import SetRun, combined_verdict, step_outputs
from gate.action.commands import escape_data, escape_property, output_block, workflow_command
from gate.action.entrypoint import main
from gate.action.inputs import (
    FAIL_ON,
    INPUT_NAMES,
    JUDGE_MODES,
    OUTPUT_NAMES,
    Inputs,
    discover_golden_sets,
    input_env_name,
    read_inputs,
    resolve_judge,
)
from gate.action.outcome import (
    MAX_ANNOTATIONS,
    SetOutcome,
    annotation_lines,
    exit_code,
    outcome_from_report,
    set_annotation_lines,
)
from gate.action.plan import Plan, plan_check

__all__ = [
    "FAIL_ON",
    "INPUT_NAMES",
    "JUDGE_MODES",
    "MAX_ANNOTATIONS",
    "OUTPUT_NAMES",
    "Inputs",
    "SetOutcome",
    "Plan",
    "SetRun",
    "annotation_lines",
    "combined_verdict",
    "discover_golden_sets",
    "escape_data",
    "escape_property",
    "exit_code",
    "input_env_name",
    "main",
    "outcome_from_report",
    "output_block",
    "plan_check",
    "read_inputs",
    "resolve_judge",
    "set_annotation_lines",
    "step_outputs",
    "workflow_command",
]
