"""The markdown report: verdict first, a table per check, then each failing case.

Untrusted strings (questions, URLs, messages quoting pages) only pass through
:func:`gate.report.escape.md`.
"""

from __future__ import annotations

from collections import Counter

from tabulate import tabulate

from gate.checks import CHECKS
from gate.report.comment import baseline_origin, blocking, changed_lists, notes, summary
from gate.report.configchanges import config_changes_section
from gate.report.escape import md, md_code
from gate.report.judged import judged_lines
from gate.report.sections import golden_set
from gate.report.vector import vector_lines
from gate.results import Report

ICON = {"pass": "✅", "fail": "❌", "inconclusive": "⚠️"}


def _check_table(report: Report) -> str:
    rows = []
    for check_id in CHECKS:
        counts = Counter(s.status for c in report.cases for s in c.checks if s.check == check_id)
        rows.append([f"`{check_id}`", counts["fail"], counts["warn"], counts["pass"], counts["not_checked"]])
    # "warned": a soft check's findings (case warnings, never failures), e.g. paraphrase_drift.
    return tabulate(rows, headers=["check", "failed", "warned", "passed", "not checked"], tablefmt="github")


def _case_table(report: Report) -> str:
    rows = []
    for c in report.cases:
        f = c.counts
        rows.append([
            md_code(c.id),
            "❌" if c.failed else "✅",
            f.citations,
            f.unique_domains,
            "yes" if f.retrieval_succeeded else "no",
            ", ".join(sorted({h.check for h in c.hard_failures})) or "-",
        ])
    return tabulate(rows, headers=["case", "", "citations", "domains", "retrieval ok", "failed checks"],
                    tablefmt="github")


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
            _check_table(report),
            "",
            "### Cases",
            "",
            _case_table(report),
            "",
            *vector_lines(report),
        ]
        # one pass, keeping lines, not cases: a report's cases may be read back from a file
        failures: list[str] = []
        warnings: list[str] = []
        for c in report.cases:
            if c.failed:
                failures += [f"**{md_code(c.id, in_table=False)}**: {md(c.question, max_len=200)}", ""]
                change = report.comparison.case(c.id) if report.comparison is not None else None
                for h in c.hard_failures:
                    tag = ("" if report.comparison is None else "🆕 new " if change is None
                           or h not in change.kept_failures else "baseline ")
                    failures.append(f"- {tag}`{h.check}`: {md(h.message, max_len=400)}")
                failures.append("")
            warnings += [f"- {md_code(c.id, in_table=False)} `{w.kind}`: {md(w.message, max_len=400)}"
                         for w in c.warnings]
        if failures:
            lines += ["### Failures", "", *failures]
        if warnings:
            lines += ["### Case warnings", "",
                      "Not failures: constraints or entities of the case that no query kept, "
                      "realtime or fast answers that state current figures without a date, and traces whose "
                      "question differs from the case's.", ""]
            lines += warnings
            lines.append("")
        if report.judge_mode != "off" or any(c.judgement is not None for c in report.cases):
            lines += judged_lines(report)
        unchecked = [(c.id, s) for c in report.cases for s in c.checks if s.status == "not_checked"]
        if unchecked:
            lines += ["<details><summary>Not checked</summary>", ""]
            lines += [f"- {md_code(cid, in_table=False)} `{s.check}`: {md(s.reason or '')}" for cid, s in unchecked]
            lines += ["", "</details>", ""]
        return "\n".join(lines)
