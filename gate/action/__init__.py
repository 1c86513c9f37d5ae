"""The GitHub Action's entrypoint: ``INPUT_*`` in, the gate run in-process, outputs and exit code out.

The container runs ``python -m gate.action`` (``__main__.py``). Inputs arrive as environment
variables named by the runner as ``INPUT_`` + the input name upper-cased with spaces turned into
``_`` (dashes are kept: ``golden-set`` is ``INPUT_GOLDEN-SET``); nothing is ever interpolated into
a shell. The gate runs in-process as Python, through the functions the commands use
(:func:`gate.pipeline.run_set`, :func:`gate.deliver.delivery.deliver`, ...), so the action and
``sourcegate check`` cannot disagree; the action gets the report back as a value, and passes the
judge's key and the GitHub token on as values too: it never builds a command line, never changes
the process environment and never reads back a file it wrote.

The flow is the layout:

* ``inputs.py``: the ``INPUT_*`` variables read into a frozen :class:`Inputs`; the judge mode.
* ``plan.py``: what a check run will do, decided from the inputs and the event (pure): the
  :class:`~gate.pipeline.SetRequest` of each golden set (or the merge of its shards), its report
  files, the comment and the notes.
* ``check.py``: check mode (default): run the gate once per golden set and write its reports as
  ``sourcegate check`` does, then write ``GITHUB_OUTPUT``, append to ``GITHUB_STEP_SUMMARY``,
  annotate each hard failure and set the exit code, all from the sets' reports.
* ``aggregate.py``: how several golden sets make one step's outputs and verdict (pure).
* ``notrun.py``: sets with no verdict: the sets the base commit has and the pull request dropped
  (with ``golden-set`` empty), and the comment that updates a set's earlier one when it could not run.
* ``comment.py``: comment mode (``comment-from`` set), the second job of the fork-safe pair: it
  does the job of ``sourcegate comment REPORT --pr N`` on a report that an untrusted workflow uploaded.
* ``outcome.py``: the verdict, exit code, figures and annotations of a set's report.
* ``commands.py``: workflow commands, escaping, output blocks, masking. While the gate runs,
  workflow commands are stopped (``::stop-commands::``) so that no text from a page, an answer or
  a golden-set file can act as one in the log.
* ``entrypoint.py``: :func:`main`, where exceptions become exit codes (through
  :func:`gate.errors.guarded`, the command line's one handler) and, on any error, the
  ``verdict=error`` and ``exit-code`` outputs.

Exit codes (the command line's table): 0 pass, 1 the gate failed, 2 input error, 3 inconclusive,
4 internal error. ``fail-on: none`` turns 1 and 3 into 0; input and internal errors still fail.

Importing this package loads neither ``requests`` nor a judge SDK, nor the command line's parser
(``gate.cli``): the HTTP client is imported when a mode talks to GitHub, an SDK when a live judge
is built.
"""

from __future__ import annotations

from gate.action.aggregate import SetRun, combined_verdict, step_outputs
from gate.action.check import Gate, run_gate
from gate.action.commands import escape_data, escape_property, output_block, workflow_command
from gate.action.entrypoint import main
from gate.action.inputs import (
    ACTION_JUDGE_MODES,
    FAIL_ON,
    INPUT_NAMES,
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
from gate.action.plan import SetPlan, plan_check

__all__ = [
    "FAIL_ON",
    "INPUT_NAMES",
    "ACTION_JUDGE_MODES",
    "MAX_ANNOTATIONS",
    "OUTPUT_NAMES",
    "Gate",
    "Inputs",
    "SetOutcome",
    "SetPlan",
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
    "run_gate",
    "set_annotation_lines",
    "step_outputs",
    "workflow_command",
]
