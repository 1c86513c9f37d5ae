"""One step, several golden sets: each set's part of the run, and the step's outputs from all of them.

Each golden set of the ``golden-set`` input runs on its own (:class:`SetRun`); the step then says
one thing. The rules, pure:

* ``verdict``: the most severe of the sets' verdicts, in the order of :data:`VERDICT_SEVERITY`
  (``error`` when a set could not run, then ``fail``, ``inconclusive``, ``pass``), matching the
  exit-code order of :mod:`gate.load.goldensets`.
* ``exit-code``: the most severe of the exit codes each set alone would give under ``fail-on``
  (:func:`gate.exitcodes.combined_exit`).
* ``hard-failures`` and ``soft-warnings``: sums over the sets that ran.
* ``grounding-rate`` and ``hallucination-rate``: the mean over every judged case of every set, the
  same figure as for one set (where it is the mean over that set's judged cases).
* ``report-path`` and ``markdown-path``: one path per line, one line per set that ran.
* ``sets``: a JSON array with each set's own figures, in the order the sets ran.

With one set every output is what it always was.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import fmean

from gate.action.commands import workflow_command
from gate.action.outcome import SetOutcome, figure
from gate.exitcodes import ExitCode
from gate.verdict.report import Report

__all__ = ["VERDICT_SEVERITY", "SetRun", "combined_verdict", "sets_output", "step_outputs", "failure_annotation"]

VERDICT_SEVERITY = ("error", "fail", "inconclusive", "pass")
"""Verdicts, most severe first: the step's ``verdict`` output is the first one any set had."""


@dataclass(frozen=True)
class SetRun:
    """One golden set's part of a step: what ran, what it said, and the exit code it alone gives."""

    paths: tuple[str, ...]
    name: str | None
    """the set's name, when the step has several sets (else the report says it)"""
    files: Mapping[str, str] = field(default_factory=dict)
    """the report files it was asked to write (``json``, ``markdown``, ``summary``, ``junit``)"""
    gate_code: int = ExitCode.PASS
    """the gate's exit code for the set, as ``sourcegate check`` would exit"""
    outcome: SetOutcome | None = None
    """None when the set could not run (an input or internal error)"""
    final: int = ExitCode.PASS
    """its exit code under ``fail-on``"""
    error: str | None = None
    """why it could not run: the gate's last message"""
    report: Report | None = field(default=None, repr=False)
    """the set's report, when it has one to show (``outcome`` is read from it)"""

    @property
    def verdict(self) -> str:
        """``pass``, ``fail``, ``inconclusive``, or ``error`` when the set could not run."""
        return self.outcome.verdict if self.outcome is not None else "error"

    @property
    def label(self) -> str:
        """The set's name (from the step, else its report), else its paths."""
        return self.name or (self.outcome.golden if self.outcome else None) or ", ".join(self.paths)


def combined_verdict(verdicts: Iterable[str]) -> str:
    """The most severe of several verdicts; one the table does not know counts as ``error``."""
    seen = {v if v in VERDICT_SEVERITY else "error" for v in verdicts}
    return next((v for v in VERDICT_SEVERITY if v in seen), "pass")


def _rate(values: Sequence[float]) -> float | None:
    return fmean(values) if values else None


def _set_entry(run: SetRun) -> dict[str, object]:
    o = run.outcome

    def rounded(value: float | None) -> float | None:
        return None if value is None else round(value, 4)

    return {
        "name": run.label,
        "paths": list(run.paths),
        "verdict": run.verdict,
        "exit-code": run.final,
        "report-path": run.files.get("json") if o else None,
        "hard-failures": len(o.hard_failures) if o else None,
        "soft-warnings": len(o.soft_warnings) if o else None,
        "grounding-rate": rounded(o.grounding_rate) if o else None,
        "hallucination-rate": rounded(o.hallucination_rate) if o else None,
    }


def sets_output(runs: Sequence[SetRun]) -> str:
    """The ``sets`` output: a JSON array, one object per set (``null`` where a set has no figure)."""
    return json.dumps([_set_entry(r) for r in runs], ensure_ascii=False)


def step_outputs(runs: Sequence[SetRun], judge: str, final: int) -> dict[str, str]:
    """Every output of a check step, from its sets (see the module docstring for each rule)."""
    ran = [r for r in runs if r.outcome is not None]
    outcomes = [r.outcome for r in ran if r.outcome is not None]

    def total(count: int) -> str:
        return str(count) if outcomes else ""

    return {
        "verdict": combined_verdict(r.verdict for r in runs),
        "exit-code": str(final),
        "report-path": "\n".join(r.files["json"] for r in ran),
        "markdown-path": "\n".join(r.files["markdown"] for r in ran),
        "hard-failures": total(sum(len(o.hard_failures) for o in outcomes)),
        "soft-warnings": total(sum(len(o.soft_warnings) for o in outcomes)),
        "grounding-rate": figure(_rate([v for o in outcomes for v in o.grounding_rates])),
        "hallucination-rate": figure(_rate([v for o in outcomes for v in o.hallucination_rates])),
        "judge": judge,
        "sets": sets_output(runs),
    }


def failure_annotation(runs: Sequence[SetRun], fail_on: str, final: int) -> str | None:
    """The annotation that says why the step failed, or why a green step is not a pass.

    ``fail-on: none`` keeps the step green, but a ``fail`` or ``inconclusive`` verdict is still
    said in an annotation: an unavailable judge is never a silent pass. One set that could not run
    has its own annotation already; with several, this line lists every set's verdict.
    """
    verdict = combined_verdict(r.verdict for r in runs)
    if (final == ExitCode.PASS and verdict == "pass") or (len(runs) == 1 and verdict == "error"):
        return None
    message = f"verdict {verdict} with fail-on {fail_on}: exit {final}"
    if len(runs) > 1:
        message += " (golden sets: " + ", ".join(f"{r.label} {r.verdict}" for r in runs) + ")"
    if any(r.verdict == "inconclusive" for r in runs):
        message += (" (an inconclusive run is not a pass: the judge could not score enough claims; "
                    "the job summary lists them)")
    kind = "error" if final not in (ExitCode.PASS, ExitCode.INCONCLUSIVE) else "warning"
    return workflow_command(kind, message, title="sourcegate")
