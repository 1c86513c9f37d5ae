"""The PR comment: what a reviewer reads to learn whether the PR made the agent worse, and where.

Order, most important first: the verdict and its one-line reason (the decision's first reason, a
summary of everything that blocks); the summary table (figure, baseline, PR, delta, status; the
hallucination rate also split by retrieval success); why each blocking regression counts; notes a
reader must not miss (version mismatch, stale or forced baseline, files the PR changed); the new
hard failures by case, each with the sentence of the answer that carried its citation, then the
known ones folded into a line per check (:mod:`gate.report.failures`); the pages the base revision's
snapshot never recorded (:mod:`gate.report.unrecorded`); the per-query vector of the
four axes for the cases that changed (without a baseline: that fail); the claims that flipped; a
collapsible ``<details>`` with the rest (every reason, per-case warnings, fixed failures, changed
files); cost and judge-cache figures; golden-set version and baseline commit; the hidden marker.
Nothing is wider than GitHub's column: the failures are lists, not tables, their URLs links with a
shortened text, and the tables left have short cells. Over GitHub's 65,536 characters, sections are
trimmed from the bottom up, keeping the verdict, the summary and the footer (see :func:`gate.report.sections.fit`).

The kept sections are bounded too, whatever the report holds (it is an untrusted artifact in
comment mode): the golden-set name is cut to :data:`MAX_NAME` characters, every string to a few
hundred, and the summary table, the blocking lines and the notes each to a number of characters
(:data:`KEPT_CHARS`), with a line saying how many more the job summary has. So the comment stays
under the limit for any input.

Pure: a report in, markdown out. Untrusted text only through :mod:`gate.text.escape`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from statistics import fmean
from typing import TypeVar

from gate.judge.model import Usage
from gate.report.configchanges import config_changes_section
from gate.report.failures import FailureRead, known_failures, new_failures
from gate.report.judged import batch_note, judge_cache_line
from gate.report.sections import ICON, Section, fit, golden_set, num, quote_list, signed, table, table_row
from gate.report.unrecorded import unrecorded_section
from gate.results import CaseResult, CaseWarning
from gate.score.figures import AXES, REGENERATION
from gate.text.escape import md, md_code, md_link, md_linked
from gate.text.marker import marker
from gate.verdict.comparison import Comparison, FigureChange
from gate.verdict.figurediff import SET_FIGURES
from gate.verdict.report import Report
from gate.version import __version__

__all__ = ["COMMENT_LIMIT", "CaseRead", "CommentReporter", "baseline_origin", "body_sections", "changed_lists",
           "read_cases"]

_T = TypeVar("_T")

COMMENT_LIMIT = 65_536
"""GitHub's limit on a comment body, marker included."""
MARGIN = 512
"""Kept free under the limit: GitHub may count some characters differently than Python does."""
MAX_NOTES = 12
"""Notes shown in the comment (they are never trimmed, so their number is capped)."""
MAX_NAME = 200
"""The golden-set name is cut to this many characters in the comment's heading and footer."""
KEPT_CHARS = 10_000
"""Each kept section with a list (figures, blocking lines, notes) is cut to about this many characters."""

STATUS = {"blocking": "❌ blocking", "noise": "⚠️ within noise", "too_few": "⚠️ too few cases to block",
          "warn": "⚠️ warning", "improved": "✅ improved", "worse": "🔻 worse (not gated)", "ok": "✅",
          "ungated": "not gated", "n/a": "–"}
LABEL = {"query_quality": "query quality", "freshness": "freshness", "diversity": "diversity",
         "citation_validity": "citation validity", REGENERATION: "needed a regeneration"}


def _capped(items: Sequence[_T], render: Callable[[_T], str], more: Callable[[int], str],
            max_chars: int = KEPT_CHARS, max_rows: int | None = None) -> list[str]:
    """The first rendered items (at most ``max_rows``) that fit in ``max_chars``, then ``more(n)`` for the
    ``n`` left out. Items are rendered (and their untrusted text escaped) only as far as they are kept."""
    rows: list[str] = []
    used = 0
    for i, item in enumerate(items):
        if i == max_rows:
            return [*rows, more(len(items) - i)]
        row = render(item)
        used += len(row) + 1
        if used > max_chars:
            return [*rows, more(len(items) - i)]
        rows.append(row)
    return rows


def _name(report: Report) -> str:
    return md_code(report.golden_name, max_len=MAX_NAME, in_table=False)


def header(report: Report) -> Section:
    """The verdict and its one-line reason."""
    why = md(report.reasons[0], max_len=300) if report.reasons else "no reason given"
    more = f" ({len(report.reasons) - 1} more reason(s) below)" if len(report.reasons) > 1 else ""
    return Section((f"## {ICON[report.verdict]} sourcegate: **{report.verdict}** · "
                    f"golden set {_name(report)}", "",
                    f"**Why:** {why}{more}"), keep=True)


def _hard_row(report: Report, cmp: Comparison | None) -> list[str]:
    now = report.hard_failure_count
    if cmp is None:
        return ["hard failures", "–", str(now), "–", "❌" if now else "✅"]
    new = now - sum(len(c.kept_failures) for c in cmp.cases)
    fixed = sum(len(c.fixed_failures) for c in cmp.cases)
    before = sum(len(c.kept_failures) + len(c.fixed_failures) for c in cmp.cases)
    icon = "❌" if new else ("⚠️" if now else "✅")
    return ["hard failures", str(before), str(now), f"{now - before:+d}", f"{icon} {new} new · {fixed} fixed"]


def _figure_cells(f: FigureChange) -> list[str]:
    # The label is read back from the report (an untrusted artifact in comment mode).
    return [md(f.label, max_len=80), num(f.baseline), num(f.current), signed(f.delta),
            STATUS[f.status.status] if f.status else "–"]


def summary(report: Report, read: CaseRead | None = None) -> Section:
    """The summary table: one row per figure with baseline, PR, delta and status (without a baseline,
    the set means of ``read``, the cases read once; read now when not given)."""
    cmp = report.comparison
    rows: list[list[str] | FigureChange] = [_hard_row(report, cmp)]
    if cmp is not None:
        rows += [f for f in cmp.figures if f.baseline is not None or f.current is not None]
        before = sum(c.unscored[0] for c in cmp.cases)
        after = sum(c.unscored[1] for c in cmp.cases)
        rows.append(["unscored claims", str(before), str(after), f"{after - before:+d}",
                     "⚠️" if after else "✅"])
    else:
        figures = (read if read is not None else read_cases(report)).figures
        for key, label, _, _ in SET_FIGURES:
            values = figures.get(key)
            if values:
                rows.append([label, "–", num(fmean(values)), "–", "no baseline"])
    head, _ = table(["figure", "baseline", "PR", "delta", "status"], "lrrrl", ())
    body = _capped(rows, lambda r: table_row(r if isinstance(r, list) else _figure_cells(r)),
                   lambda n: f"| … {n} more figure(s): see the job summary | | | | |")
    return Section(head + tuple(body), keep=True)


def blocking(report: Report) -> Section:
    """Why each blocking regression counts: bounds, tolerance and the sign test, one line per figure."""
    cmp = report.comparison
    first = report.reasons[0] if report.reasons else None
    whys = [f.status.why for f in (cmp.figures if cmp is not None else ())
            if f.status is not None and f.status.status == "blocking"]
    if whys == [first]:
        return Section(())  # the one-line reason above already is this figure's why
    lines = _capped(whys, lambda w: f"❌ **Blocks:** {md(w, max_len=600)}",
                    lambda n: f"❌ … {n} more blocking figure(s): see the job summary")
    # Two trailing spaces end a line without starting a new paragraph.
    return Section(tuple(f"{x}  " if i < len(lines) - 1 else x for i, x in enumerate(lines)), keep=True)


def notes(report: Report, max_notes: int | None = MAX_NOTES) -> Section:
    """What a reader must not miss: no baseline, mismatches, staleness, forced baseline, edits, warnings."""
    cmp = report.comparison
    items = [md(n, max_len=600) for n in (cmp.notes() if cmp is not None else ())]
    if cmp is None and not any(w.startswith("no baseline at ") for w in report.warnings):
        items.append("no baseline to compare with: every hard failure counts; "
                     "record one with `sourcegate baseline update`")
    # Only what can be shown is escaped: a report may carry thousands of warnings.
    shown = report.warnings if max_notes is None else report.warnings[: max(0, max_notes + 1 - len(items))]
    items += [md(w, max_len=600) for w in shown]
    hidden = len(report.warnings) - len(shown)
    if max_notes is not None:  # never trimmed, so their number and size are capped
        items = _capped(items, str, lambda n: f"{n + hidden} more note(s) in the job summary", max_rows=max_notes)
    # Two trailing spaces end a line inside the quote block without starting a new paragraph.
    return Section(tuple(f"> ⚠️ {n}  " if i < len(items) - 1 else f"> ⚠️ {n}" for i, n in enumerate(items)),
                   keep=True)


def _cell(case: CaseResult, name: str, cmp: Comparison | None) -> str:
    change = cmp.case(case.id) if cmp is not None else None
    moved = next((m for m in change.moved if m.name == name), None) if change is not None else None
    if moved is not None:
        return f"{num(moved.baseline)} → {num(moved.current)}"
    return num(case.soft.get(name))


def _failure_cell(case: CaseResult, cmp: Comparison | None) -> str:
    change = cmp.case(case.id) if cmp is not None else None
    if cmp is not None and change is None:
        return f"{len(case.hard_failures)} (new case)" if case.hard_failures else "new case"
    if change is None:
        return str(len(case.hard_failures)) if case.hard_failures else "–"
    parts = [f"{len(change.new_failures)} new" if change.new_failures else "",
             f"{len(change.kept_failures)} kept" if change.kept_failures else "",
             f"{len(change.fixed_failures)} fixed" if change.fixed_failures else ""]
    return " · ".join(p for p in parts if p) or "–"


def _shown(case: CaseResult, cmp: Comparison | None) -> bool:
    """True when the comment shows this case's vector: it changed or is new to the baseline (without a
    baseline: it fails). A case whose failures the baseline had already is in the known failures' line."""
    if cmp is None:
        return case.failed
    change = cmp.case(case.id)
    return change is None or change.changed


def _vector_row(case: CaseResult, cmp: Comparison | None) -> list[str]:
    return [md_code(case.id), *(_cell(case, a, cmp) for a in AXES), _failure_cell(case, cmp)]


def _vector_line(case: CaseResult, cmp: Comparison | None) -> str:
    """One case of the comment's list: its id, the axes that moved (every axis, for a case with nothing
    to compare with), whether it needed a regeneration when that moved, and its hard failures, old and
    new; a list item wraps within GitHub's column."""
    change = cmp.case(case.id) if cmp is not None else None
    moved = {m.name for m in change.moved} if change is not None else set(AXES)
    axes = [f"{LABEL[a]} {_cell(case, a, cmp)}" for a in (*AXES, REGENERATION) if a in moved]
    failures = _failure_cell(case, cmp)
    if failures != "–":
        axes.append(f"hard failures: {failures}")
    return f"- {md_code(case.id, in_table=False)}: {' · '.join(axes) or 'changed'}"


@dataclass
class CaseRead:
    """What the comment and the job summary show of the cases, taken in one pass over them (a large
    report's come back from its spill file, decoded once each): rows, findings and a few numbers."""

    shown: list[str] = field(default_factory=list)
    """a line for each case that changed or is new to the baseline (without one: that fails)"""
    every: list[list[str]] | None = None
    """the vector rows of every case, when asked for (the job summary's "All cases")"""
    new: list[FailureRead] = field(default_factory=list)
    """hard failures as (tag, case id, finding): new ones (or all, without a baseline)"""
    old: list[FailureRead] = field(default_factory=list)
    """hard failures the baseline already had"""
    warned: list[tuple[str, CaseWarning]] = field(default_factory=list)
    unrecorded: list[tuple[str, str]] = field(default_factory=list)
    """(case id, URL) of each page the base revision's snapshot never recorded"""
    usages: list[Usage] = field(default_factory=list)
    """the judge's usage of each judged case"""
    figures: dict[str, list[float]] = field(default_factory=dict)
    """each set figure's values (:data:`gate.verdict.figurediff.SET_FIGURES`) over the cases it selects, in order"""

    def add(self, c: CaseResult, cmp: Comparison | None) -> None:
        """Take what is shown of one case."""
        if _shown(c, cmp):
            self.shown.append(_vector_line(c, cmp))
        if self.every is not None:
            self.every.append(_vector_row(c, cmp))
        change = cmp.case(c.id) if cmp is not None else None
        if cmp is None:
            self.new += [("", c.id, f) for f in c.hard_failures]
        elif change is None:
            self.new += [("new case", c.id, f) for f in c.hard_failures]
        else:
            self.new += [("", c.id, f) for f in change.new_failures]
            self.old += [("", c.id, f) for f in change.kept_failures]
        self.warned += [(c.id, w) for w in c.warnings]
        self.unrecorded += [(c.id, url) for url in c.unrecorded_pages]
        if c.judgement is not None:
            self.usages.append(c.judgement.usage)
        if cmp is None:  # the set means of the summary table, shown only without a baseline
            for key, _, figure, select in SET_FIGURES:
                value = c.soft.get(figure)
                if value is not None and (select is None or select(c)):
                    self.figures.setdefault(key, []).append(value)


def read_cases(report: Report, every: bool = False) -> CaseRead:
    """One pass over the report's cases, keeping what the comment (and, with ``every``, the job summary
    and its row for every case) shows of them."""
    read = CaseRead(every=[] if every else None)
    cmp = report.comparison
    for c in report.cases:
        read.add(c, cmp)
    return read


def changed_cases(lines: list[str], title: str) -> Section:
    """The cases that changed (without a baseline: that fail), a line each (:class:`CaseRead` kept them)."""
    return Section((f"### {title} ({len(lines)})", ""), tuple(lines), title=title.lower(), unit="case")


def vectors(rows: list[list[str]], title: str = "All cases") -> Section:
    """The per-query vector of the four axes, one row per case (the rows :class:`CaseRead` kept)."""
    head, body = table(["case", *(LABEL[a] for a in AXES), "hard failures"], "lrrrrl", rows)
    return Section((f"### {title}", "", *head), body, title=title.lower(), unit="case")


def flips(report: Report) -> Section:
    """Claims whose verdict changed since the baseline."""
    cmp = report.comparison
    rows = []
    for c in cmp.cases if cmp is not None else ():
        for f in c.flips:
            why = f", {md(f.reason.replace('_', ' '), max_len=80)}" if f.reason else ""
            arrow = "🔻" if f.worse else "🔺"
            rows.append(f"- {arrow} {md_code(c.id, in_table=False)} claim {f.number}: "
                        f"{f.before} → {f.after}{why}: “{md(f.text, max_len=200)}”")
    return Section(("### Claims that flipped", ""), tuple(rows), title="claims that flipped", unit="claim")


def details(report: Report, read: CaseRead) -> Section:
    """The collapsible rest: every reason, fixed failures, files and cases the baseline differs in."""
    cmp = report.comparison
    rows = ["**Every reason**", "", *(f"- {md(r, max_len=500)}" for r in report.reasons), ""]
    warned = read.warned
    if warned:
        rows += ["**Case warnings** (not failures)", ""]
        rows += [f"- {md_code(cid, in_table=False)} `{w.kind}`: {md_linked(w.message, max_len=400)}"
                 for cid, w in warned]
        rows.append("")
    if cmp is not None:
        fixed = [(c.id, f) for c in cmp.cases for f in c.fixed_failures]
        if fixed:
            rows += ["**Fixed since the baseline**", ""]
            rows += [f"- {md_code(f.check, in_table=False)} in {md_code(cid, in_table=False)}"
                     + (f": {md_link(f.url)}" if f.url else "")
                     for cid, f in fixed]
            rows.append("")
        rows += changed_lists(cmp)
        same = [c for c in cmp.common if not ((ch := cmp.case(c)) and (ch.changed or ch.kept_failures))]
        if same:
            rows += [f"**Unchanged cases** ({len(same)}): {quote_list(same)}", ""]
    return Section(("<details><summary>Everything else</summary>", ""), tuple(rows), ("</details>",),
                   title="details", unit="line")


def changed_lists(cmp: Comparison) -> list[str]:
    """The golden-set files the PR changed, redefined cases, and cases only one side has: a line each."""
    rows: list[str] = []
    for title, items in (("Golden-set files this PR changes", cmp.origin.changed_files),
                         ("Cases redefined in golden.yaml", cmp.origin.redefined_cases),
                         ("Cases not in the baseline", cmp.added),
                         ("Baseline cases not in this run, decided by their baseline result"
                          if cmp.removed_results else "Baseline cases not in this run", cmp.removed)):
        if items:
            rows += [f"**{title}**: {quote_list(items)}", ""]
    return rows


def baseline_origin(cmp: Comparison) -> str:
    """``baseline `file` at `commit` (`ref`), golden-set version 3, written 2026-01-15``, forced or not."""
    o = cmp.origin
    at = f" at {md_code(o.commit[:12], in_table=False)}" if o.commit else " (working tree)"
    ref = f" ({md_code(o.ref, max_len=80, in_table=False)})" if o.ref else ""
    when = f", written {md(cmp.baseline_written_at[:10])}" if cmp.baseline_written_at else ""
    forced = ", ⚠️ forced over a failing run" if cmp.baseline_forced else ""
    version = f", golden-set version {cmp.baseline_version}" if cmp.baseline_version is not None else ""
    return f"baseline {md_code(o.file, max_len=200, in_table=False)}{at}{ref}{version}{when}{forced}"


def judge_usage_line(report: Report, usages: list[Usage]) -> str:
    """API calls, tokens, prompt-cache tokens, estimated cost, and how many runs the judge cache served."""
    if not usages:
        return f"Judge: {report.judge_mode}, no run judged."
    total = sum(usages, Usage())
    cost = "n/a" if total.cost_usd is None else f"${total.cost_usd:.2f}"
    return (f"Judge ({report.judge_mode}): {total.calls} API call(s), {total.input_tokens:,} input and "
            f"{total.output_tokens:,} output tokens, prompt cache {total.cache_read_tokens:,} read / "
            f"{total.cache_write_tokens:,} written, estimated cost {cost}{batch_note(total)}; "
            f"{judge_cache_line(usages)}.")


def footer(report: Report, read: CaseRead, run_url: str | None = None) -> Section:
    """Cost, golden-set version, baseline commit, where the full report is."""
    cmp = report.comparison
    where = golden_set(report.golden_name, report.golden_version, max_len=MAX_NAME)
    if cmp is not None:
        where += f" · {baseline_origin(cmp)}"
    full = "the job summary" if run_url is None else f"the [job summary]({run_url})"
    return Section((f"<sub>{judge_usage_line(report, read.usages)}<br>{where} · sourcegate {__version__}<br>"
                    f"Full report: {full} and the report artifact of this workflow run.</sub>",), keep=True)


def body_sections(report: Report, run_url: str | None = None, max_notes: int | None = MAX_NOTES,
                  read: CaseRead | None = None, fold: bool = True) -> list[Section]:
    """Every section of the comment, in order (the summary reuses them, with every note and, without
    ``fold``, every known failure listed), from the cases read once (``read``: read now when not given)."""
    read = read if read is not None else read_cases(report)
    based = report.comparison is not None
    return [header(report), summary(report, read), blocking(report), notes(report, max_notes),
            config_changes_section(report), new_failures(read.new, based), known_failures(read.old, fold),
            unrecorded_section(read.unrecorded),
            changed_cases(read.shown, "Cases that changed" if based else "Cases that fail"),
            flips(report), details(report, read), footer(report, read, run_url)]


class CommentReporter:
    """Renders the PR comment, trimmed under GitHub's limit, ending with the hidden marker."""

    def __init__(self, limit: int = COMMENT_LIMIT, run_url: str | None = None) -> None:
        self.limit = limit
        self.run_url = run_url

    def render(self, report: Report) -> str:
        """The comment body, marker included, at most ``limit - MARGIN`` characters."""
        mark = marker(report.golden_name)
        sections = [s for s in body_sections(report, self.run_url) if s.head and (s.keep or s.rows)]
        text = fit(sections, self.limit - MARGIN - len(mark) - 2)
        return f"{text}\n{mark}\n"
