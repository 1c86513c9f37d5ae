"""The markdown report: verdict first, a table per check, then each failing case.

Untrusted strings (questions, URLs, messages quoting pages) only pass through
:func:`gate.text.escape.md`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from tabulate import tabulate

from gate.checks import CHECKS
from gate.report.attempts import attempt_word, attempts_line, shown_findings
from gate.report.comment import baseline_origin, blocking, changed_lists, notes, summary
from gate.report.configchanges import config_changes_section
from gate.report.judged import judged_lines
from gate.report.sections import ICON, golden_set
from gate.report.unrecorded import unrecorded_section
from gate.report.vector import VectorLines
from gate.results import CaseResult
from gate.text.escape import md, md_code
from gate.verdict.comparison import Comparison
from gate.verdict.report import Report


def _check_table(statuses: Counter[tuple[str, str]]) -> str:
    rows = []
    for check_id in CHECKS:
        rows.append([f"`{check_id}`", statuses[check_id, "fail"], statuses[check_id, "warn"],
                     statuses[check_id, "pass"], statuses[check_id, "not_checked"]])
    # "warned": a soft check's findings (case warnings, never failures), e.g. paraphrase_drift.
    return tabulate(rows, headers=["check", "failed", "warned", "passed", "not checked"], tablefmt="github")


def _case_row(c: CaseResult) -> list[object]:
    f = c.counts
    return [
        md_code(c.id),
        "❌" if c.failed else "✅",
        f.citations,
        f.unique_domains,
        "yes" if f.retrieval_succeeded else "no",
        ", ".join(sorted({h.check for h in c.hard_failures})) or "-",
    ]


def _case_table(rows: list[list[object]]) -> str:
    return tabulate(rows, headers=["case", "", "citations", "domains", "retrieval ok", "failed checks"],
                    tablefmt="github")


def _failure_lines(c: CaseResult, cmp: Comparison | None) -> list[str]:
    lines = [f"**{md_code(c.id, in_table=False)}**: {md(c.question, max_len=200)}", ""]
    change = cmp.case(c.id) if cmp is not None else None
    for h in c.hard_failures:
        tag = ("" if cmp is None else "🆕 new " if change is None
               or h not in change.kept_failures else "baseline ")
        lines.append(f"- {tag}`{h.check}`: {md(h.message, max_len=400)}")
    lines.append("")
    return lines


def _attempt_lines(c: CaseResult) -> list[str]:
    """A case's attempts: a line each, its findings under it."""
    lines = [f"**{md_code(c.id, in_table=False)}**: {attempts_line(c.attempts)}", ""]
    for n, attempt in enumerate(c.attempts, 1):
        lines.append(f"- attempt {n}: {attempt_word(attempt)}")
        findings, more = shown_findings(attempt)
        # a trace's own findings: the agent wrote them, check ids included
        lines += [f"  - {md_code(f.check, max_len=80, in_table=False)}: {md(f.message, max_len=400)}"
                  for f in findings]
        if more:
            lines.append(f"  - and {more} more finding(s)")
    lines.append("")
    return lines


@dataclass
class _Cases:
    """What the markdown report shows of the cases, taken in one pass: counts, rows and lines (a large
    report's cases come back from its spill file, decoded once each)."""

    statuses: Counter[tuple[str, str]] = field(default_factory=Counter)
    rows: list[list[object]] = field(default_factory=list)
    vectors: VectorLines = field(default_factory=VectorLines)
    failures: list[str] = field(default_factory=list)
    attempts: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    unrecorded: list[tuple[str, str]] = field(default_factory=list)
    judged: list[CaseResult] = field(default_factory=list)
    """the judged cases (their judgement is what the judged section shows)"""
    unchecked: list[str] = field(default_factory=list)

    def add(self, c: CaseResult, cmp: Comparison | None) -> None:
        self.statuses.update((s.check, s.status) for s in c.checks)
        self.rows.append(_case_row(c))
        self.vectors.add(c)
        if c.failed:
            self.failures += _failure_lines(c, cmp)
        if c.attempts:
            self.attempts += _attempt_lines(c)
        self.warnings += [f"- {md_code(c.id, in_table=False)} `{w.kind}`: {md(w.message, max_len=400)}"
                          for w in c.warnings]
        self.unrecorded += [(c.id, url) for url in c.unrecorded_pages]
        if c.judgement is not None:
            self.judged.append(c)
        self.unchecked += [f"- {md_code(c.id, in_table=False)} `{s.check}`: {md(s.reason or '')}"
                           for s in c.checks if s.status == "not_checked"]


def _reason_lines(report: Report) -> list[str]:
    """The first reason (a summary of what decides the verdict), then the others as a list."""
    if not report.reasons:
        return []
    lines = [f"**Why:** {md(report.reasons[0], max_len=600)}", ""]
    if len(report.reasons) > 1:
        lines += [*(f"- {md(r, max_len=600)}" for r in report.reasons[1:]), ""]
    return lines


def _comparison_lines(report: Report) -> list[str]:
    """What the PR comment says of the baseline, from the comment's own sections: the table of figures
    (baseline, PR, delta, status), why each blocking one counts, every note (version mismatch, forced
    or stale baseline, warnings), where the baseline came from and what the PR changed."""
    cmp = report.comparison
    sections = [summary(report), blocking(report)] if cmp is not None else []
    lines = ["### Compared with the baseline", ""] if cmp is not None else []
    lines += [line for s in (*sections, notes(report, max_notes=None)) if s.head for line in s.lines()]
    if cmp is not None:
        lines += [f"Compared with the {baseline_origin(cmp)}.", "", *changed_lists(cmp)]
    return lines


class MarkdownReporter:
    """Renders the report as GitHub-flavoured markdown."""

    def render(self, report: Report) -> str:
        """Verdict, per-check table, per-case table, then the failures of each case."""
        cases = _Cases()
        for c in report.cases:  # once: a report's cases may be read back from a file
            cases.add(c, report.comparison)
        lines = [
            f"## {ICON[report.verdict]} sourcegate: **{report.verdict}**",
            "",
            f"{golden_set(report.golden_name, report.golden_version, capital=True)}, "
            f"{len(report.cases)} cases, {report.hard_failure_count} hard failure(s).",
            "",
            *_reason_lines(report),
            *_comparison_lines(report),
            *(config_changes_section(report).lines() if report.config_changes else ()),
            "### Hard checks",
            "",
            _check_table(cases.statuses),
            "",
            "### Cases",
            "",
            _case_table(cases.rows),
            "",
            *cases.vectors.lines(),
        ]
        if cases.failures:
            lines += ["### Failures", "", *cases.failures]
        if cases.unrecorded:
            lines += unrecorded_section(cases.unrecorded).lines()
        if cases.attempts:
            lines += ["### Attempts", "",
                      "The drafts each agent guarded before its answer, and what its guard rejected in them.", "",
                      *cases.attempts]
        if cases.warnings:
            lines += ["### Case warnings", "",
                      "Not failures: constraints or entities of the case that no query kept, "
                      "realtime or fast answers that state current figures without a date, and traces whose "
                      "question differs from the case's.", ""]
            lines += cases.warnings
            lines.append("")
        if report.judge_mode != "off" or cases.judged:
            lines += judged_lines(report, cases.judged)
        if cases.unchecked:
            lines += ["<details><summary>Not checked</summary>", ""]
            lines += cases.unchecked
            lines += ["", "</details>", ""]
        return "\n".join(lines)
