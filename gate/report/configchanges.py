"""The section that lists what a pull request changes in the configuration. Pure.

The run was decided under the base revision's configuration; the section says which effective
settings the pull request changes (each weakening, tightening or neutral) and that they apply from
the next pull request after the merge. Setting names and values can come from the pull request's
YAML (a model name in ``judge.prices``), so every one passes through :mod:`gate.text.escape`.
"""

from __future__ import annotations

from gate.report.sections import Section, table
from gate.text.escape import md, md_code
from gate.verdict.configdiff import ConfigChange, Value
from gate.verdict.report import Report

__all__ = ["APPLIES_AFTER_MERGE", "config_changes_section"]

TITLE = "Configuration changed by this pull request"
APPLIES_AFTER_MERGE = ("This run was decided under the base revision's configuration: these settings apply "
                       "from the next pull request after this one is merged.")
EFFECT = {"weakening": "⚠️ weakening", "tightening": "tightening", "neutral": "neutral"}


def _value(v: Value) -> str:
    if v is None:
        return "none"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:g}"
    return md(str(v), max_len=80)


def _tally(changes: tuple[ConfigChange, ...]) -> str:
    counts = [(sum(1 for c in changes if c.effect == e), e) for e in ("weakening", "tightening", "neutral")]
    return ", ".join(f"{n} {e}" for n, e in counts if n)


def config_changes_section(report: Report) -> Section:
    """The changed settings as a table under a heading and the note; empty when nothing changed."""
    changes = report.config_changes
    if not changes:
        return Section(())
    head, rows = table(["setting", "base", "this PR", "effect"], "llll",
                       [[md_code(c.setting, max_len=120), _value(c.base), _value(c.pr), EFFECT[c.effect]]
                        for c in changes])
    return Section((f"### {TITLE}", "", f"{len(changes)} setting(s): {_tally(changes)}. {APPLIES_AFTER_MERGE}",
                    "", *head), rows, title=TITLE.lower(), unit="setting")
