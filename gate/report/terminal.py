"""The terminal report: what ``sourcegate check`` prints when its output is a terminal. Pure.

One line per hard failure, ``case  check  message``, new failures first (marked ``new``)
then those the baseline already had (marked ``baseline``), each block grouped by case in the
report's order. Each URL is printed once on its line: the message names the failure's URL (else it
goes before the message), and with a terminal ``width`` a long line wraps between words, indented,
so that no URL is broken across lines (a URL longer than the line stands alone on its own); the
notes a reader must not miss; then, with ``verbose``, each case's warnings and
one line of figures per case. The one-line verdict (:func:`verdict_line`) is rendered on its own:
it is printed even when every report goes to a file, and it is all that ``-q`` prints.

Plain text, not markdown: URLs are shown exactly as they are so that they can be copied. Untrusted
strings (case ids, URLs, messages, notes that repeat them) pass through
:func:`gate.text.escape.plain`, which removes every control character, so no answer or page
can emit an escape sequence or start a line of its own. Colour is ANSI SGR, only when asked for
(see :mod:`gate.term.color` for when that is).
"""

from __future__ import annotations

import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

from gate.model import Finding
from gate.report.failures import MESSAGE_SHOWN
from gate.results import CaseResult
from gate.text.escape import plain
from gate.verdict.comparison import Comparison
from gate.verdict.report import Report
from gate.verdict.tally import tally_of

__all__ = ["TerminalReporter", "failure_rows", "verdict_line"]

_SGR = {"bold": "1", "dim": "2", "red": "31", "green": "32", "yellow": "33", "cyan": "36",
        "bold_red": "1;31", "bold_green": "1;32", "bold_yellow": "1;33"}
VERDICT_STYLE = {"pass": "bold_green", "fail": "bold_red", "inconclusive": "bold_yellow"}
MAX_ID = 32
"""Case and check columns are padded to their longest value up to this width, then left ragged."""


def paint(text: str, style: str, color: bool) -> str:
    """``text`` in an ANSI style when ``color`` is on; as it is otherwise."""
    return f"\x1b[{_SGR[style]}m{text}\x1b[0m" if color and text else text


@dataclass(frozen=True)
class FailureRow:
    """One hard failure as the terminal shows it; ``tag`` is ``new``, ``baseline`` or empty."""

    tag: str
    case: str
    finding: Finding


def failure_rows(report: Report) -> list[FailureRow]:
    """Every hard failure: new ones first, then the baseline's, each block in case order.

    Without a baseline nothing is marked. A case the baseline does not have counts as new.
    """
    new: list[FailureRow] = []
    old: list[FailureRow] = []
    for c in report.cases:
        _add_rows(c, report.comparison, new, old)
    return new + old


def _add_rows(c: CaseResult, cmp: Comparison | None, new: list[FailureRow], old: list[FailureRow]) -> None:
    """Add one case's failure rows: to ``new`` (every one, without a baseline) and ``old``."""
    if cmp is None:
        new += [FailureRow("", c.id, f) for f in c.hard_failures]
        return
    change = cmp.case(c.id)
    if change is None:
        new += [FailureRow("new", c.id, f) for f in c.hard_failures]
    else:
        new += [FailureRow("new", c.id, f) for f in change.new_failures]
        old += [FailureRow("baseline", c.id, f) for f in change.kept_failures]


def _pad(text: str, width: int) -> str:
    return text + " " * max(0, width - len(text))


def _said(f: Finding) -> str:
    """What the line says of ``f``: its message, after its URL when the message does not name it."""
    message = plain(f.message, max_len=MESSAGE_SHOWN)
    if f.url is None or plain(f.url) in message:
        return message
    return f"{plain(f.url)}  {message}"


def _wrapped(text: str, indent: int, width: int | None) -> list[str]:
    """``text`` in lines of at most ``width`` after an ``indent``, broken between words only (a URL is a
    word); the first line's indent is the caller's, the others are spaces. No ``width``: one line."""
    if width is None or indent + len(text) <= width:
        return [text]
    hang = indent if indent <= width // 2 else 4
    room = width - indent
    first, *rest = (textwrap.wrap(text, room, break_long_words=False, break_on_hyphens=False) or [""]
                    if room >= 20 else ["", text])
    if len(first) > room:  # a URL too long for the first line: it starts the next one
        first, rest = "", [first, *rest]
    lines = [first]
    if rest:
        # textwrap's width counts the indent: the terminal's whole width (it wrapped at width - hang before)
        lines += textwrap.wrap(" ".join(rest), width, break_long_words=False, break_on_hyphens=False,
                               initial_indent=" " * hang, subsequent_indent=" " * hang)
    return lines


def _failure_lines(rows: Sequence[FailureRow], color: bool, width: int | None = None) -> list[str]:
    cells = [(r.tag, plain(r.case, max_len=MAX_ID * 2), plain(r.finding.check), _said(r.finding)) for r in rows]
    tag_w = max((len(t) for t, *_ in cells), default=0)
    case_w = min(MAX_ID, max((len(c) for _, c, *_ in cells), default=0))
    check_w = min(MAX_ID, max((len(k) for _, _, k, *_ in cells), default=0))
    lines = []
    for tag, case, check, said in cells:
        head = paint(_pad(tag, tag_w), "bold_red" if tag == "new" else "dim", color) + "  " if tag_w else ""
        indent = (tag_w + 2 if tag_w else 0) + max(case_w, len(case)) + 2 + max(check_w, len(check)) + 2
        first, *more = _wrapped(said, indent, width)
        lines.append(f"{head}{paint(case, 'bold', color)}{' ' * max(0, case_w - len(case))}  "
                     f"{paint(check, 'yellow', color)}{' ' * max(0, check_w - len(check))}  {first}".rstrip())
        lines += more
    return lines


def _figures(c: CaseResult, color: bool) -> tuple[str, str, str]:
    """One case's figures as (status, name, figures): the parts of its line but the padding."""
    f = c.counts
    status = paint("FAIL", "red", color) if c.failed else paint("ok  ", "green", color)
    parts = [f"citations {f.citations}", f"domains {f.unique_domains}", f"results {f.results}",
             f"pages read {f.pages_read}", f"retrieval {'ok' if f.retrieval_succeeded else 'failed'}"]
    parts += [f"{name.replace('_', ' ')} {value:.2f}" for name, value in c.soft.items() if value is not None]
    if c.hard_failures:
        parts.append(f"{len(c.hard_failures)} hard failure(s)")
    return status, plain(c.id, max_len=MAX_ID * 2), " · ".join(parts)


def _notes(report: Report, case_notes: Sequence[str]) -> list[str]:
    cmp = report.comparison
    notes = [*(cmp.notes() if cmp is not None else ()), *report.warnings, *case_notes]
    return [plain(n, max_len=400) for n in notes]


class TerminalReporter:
    """Renders the failures (and, with ``verbose``, each case's figures) as plain terminal lines."""

    def __init__(self, color: bool = False, verbose: bool = False, width: int | None = None) -> None:
        """``width``: the terminal's columns, which long lines wrap within (None: never wrapped)."""
        self.color = color
        self.verbose = verbose
        self.width = width

    def render(self, report: Report) -> str:
        """Failure lines, notes, optional per-case figures; ends with a newline (empty when nothing to say).

        The verdict line is not part of it: see :func:`verdict_line`. The cases are read once (a
        large report's come back from its spill file), keeping per case its rows and lines.
        """
        new: list[FailureRow] = []
        old: list[FailureRow] = []
        case_notes: list[str] = []  # per-case warnings are never failures: shown with the per-case figures
        figures: list[tuple[str, str, str]] = []
        width = 0
        for c in report.cases:
            _add_rows(c, report.comparison, new, old)
            if self.verbose:
                case_notes += [f"{c.id}: {w.message}" for w in c.warnings]
                figures.append(_figures(c, self.color))
                width = max(width, len(plain(c.id)))
        notes = []
        for n in _notes(report, case_notes):
            first, *more = _wrapped(n, len("note: "), self.width)
            notes += [f"{paint('note:', 'cyan', self.color)} {first}".rstrip(), *more]
        blocks = [_failure_lines(new + old, self.color, self.width), notes]
        if figures:
            width = min(MAX_ID, width)
            blocks.append([f"{status}  {name}{' ' * max(0, width - len(name))}  {parts}"
                           for status, name, parts in figures])
        text = "\n\n".join("\n".join(b) for b in blocks if b)
        return text + "\n" if text else ""


def verdict_line(report: Report, color: bool = False, width: int | None = None) -> str:
    """``sourcegate: FAIL · golden set demo v3 · 4 cases, 3 hard failures (2 new) · <first reason>``, wrapped
    between words within a terminal's ``width`` (None: one line, as a log keeps it)."""
    head = f"sourcegate: {report.verdict.upper()} · "
    first, *more = _wrapped(_verdict_rest(report), len(head), width)
    verdict = paint(report.verdict.upper(), VERDICT_STYLE[report.verdict], color)
    return "\n".join([f"sourcegate: {verdict} · {first}".rstrip(), *more]) + "\n"


def _verdict_rest(report: Report) -> str:
    """The verdict line after its verdict: the set, the cases and failures, the first reason."""
    version = f" v{report.golden_version}" if report.golden_version is not None else ""
    count = report.hard_failure_count
    failures = f"{count} hard failure{'s' if count != 1 else ''}"
    cmp = report.comparison
    if cmp is not None and count:
        # From the failing cases' checks the tally kept (a case store's: no case read back), as the
        # decision counts them: a case the baseline lacks has only new failures.
        new = sum(len(change.new_failures) if (change := cmp.case(case_id)) is not None else len(checks)
                  for case_id, checks in tally_of(report.cases).failing)
        failures += f" ({new} new)"
    cases = len(report.cases)
    ran = f"{cases} case{'s' if cases != 1 else ''}"
    if report.subset is not None:  # never read as the whole set's verdict
        ran = f"{cases} of {report.subset.total} cases (a subset)"
    parts = [f"golden set {plain(report.golden_name, max_len=80)}{version}", f"{ran}, {failures}"]
    if report.reasons and report.verdict != "pass":
        parts.append(plain(report.reasons[0], max_len=200))
    return " · ".join(parts)
