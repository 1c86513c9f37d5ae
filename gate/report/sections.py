"""The building blocks of the PR comment and the job summary: sections of markdown lines. Pure.

Each :class:`Section` has a head, rows and a tail, so that :func:`fit` can trim a long one row by
row without breaking a table or leaving a ``<details>`` open. Every untrusted string (case ids,
questions, URLs, messages, claims, notes that name them) passes through :mod:`gate.text.escape`
exactly once; the numbers and fixed words around them are ours.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from gate.text.escape import md, md_code

__all__ = ["COMMENT_OMISSION", "ICON", "Measure", "Section", "fit", "golden_set", "num", "signed", "table",
           "table_row", "utf8_len"]

ICON = {"pass": "✅", "fail": "❌", "inconclusive": "⚠️"}

Measure = Callable[[str], int]
"""How a limit counts text: ``len`` (characters, as GitHub counts a comment) or :func:`utf8_len`."""
COMMENT_OMISSION = ("_This comment was trimmed to fit GitHub's 65,536-character limit{left}. The full report "
                    "is in the job summary of this workflow run and in its report artifact._")
"""The line :func:`fit` adds when it trimmed the PR comment (``{left}`` names what was left out)."""


def utf8_len(text: str) -> int:
    """The size of ``text`` in UTF-8 bytes, as GitHub counts a job summary."""
    return len(text.encode("utf-8", "surrogatepass"))


@dataclass(frozen=True)
class Section:
    """A block of markdown; ``keep`` sections are never trimmed."""

    head: tuple[str, ...]
    rows: tuple[str, ...] = ()
    tail: tuple[str, ...] = ()
    keep: bool = False
    unit: str = "row"
    title: str = ""

    def lines(self, rows: int | None = None) -> list[str]:
        """The section with all its rows, or only the first ``rows`` and a line saying how many are left."""
        if rows is None or rows >= len(self.rows):
            return [*self.head, *self.rows, *self.tail, ""]
        cut = list(self.rows[:rows])
        left = len(self.rows) - rows
        note = f"_… {left} more {self.unit}(s) not shown here: see the job summary or the report artifact._"
        # A note line right under a table row would be read as another row: end the table first.
        return [*self.head, *cut, *self.tail, "", note, ""]

    def size(self, rows: int | None = None, measure: Measure = len) -> int:
        """What this section takes (joined with newlines): characters, or whatever ``measure`` counts."""
        return sum(measure(x) + 1 for x in self.lines(rows))


def table(headers: Sequence[str], align: str,
          rows: Sequence[Sequence[str]]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A GitHub table as (head lines, row lines); ``align`` has one ``l`` or ``r`` per column."""
    rule = "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|"
    return (table_row(headers), rule), tuple(table_row(r) for r in rows)


def table_row(cells: Sequence[str]) -> str:
    """One line of a GitHub table (the cells already escaped)."""
    return "| " + " | ".join(cells) + " |"


def num(value: float | None) -> str:
    """A figure to two decimals, or an en dash when there is none."""
    return "–" if value is None else f"{value:.2f}"


def signed(value: float | None) -> str:
    """A delta with its sign (an en dash when unknown)."""
    if value is None:
        return "–"
    return "0.00" if abs(value) < 0.005 else f"{value:+.2f}"


def fit(sections: Sequence[Section], limit: int, *, measure: Measure = len,
        omission: str = COMMENT_OMISSION) -> str:
    """Join ``sections`` into at most ``limit`` (as ``measure`` counts), trimming the trimmable ones in order.

    ``keep`` sections always stay. The others share what is left, smallest first: each is added
    whole if it fits its share, else cut to the rows that do (a section whose head does not fit is
    left out); the order on the page stays. A line at the end (``omission``, whose ``{left}`` names
    what was left out) says that the text was trimmed and where the full report is.
    """
    kept = sum(s.size(measure=measure) for s in sections if s.keep)
    whole = sum(s.size(measure=measure) for s in sections)
    if whole <= limit:
        return "\n".join(line for s in sections for line in s.lines()).rstrip("\n") + "\n"
    titles = ", ".join(s.title for s in sections if not s.keep)
    budget = limit - kept - measure(omission) - measure(titles) - 20
    # Fair shares, smallest section first: a short section (claims that flipped) is never pushed
    # out by a long one (thousands of failures); the long ones are cut to what is left.
    chosen: dict[int, int | None] = {}
    sizes = {i: s.size(measure=measure) for i, s in enumerate(sections) if not s.keep}
    order = sorted(sizes, key=lambda i: (sizes[i], i))
    for n, i in enumerate(order):
        s, share = sections[i], budget // (len(order) - n)
        if sizes[i] <= share:
            chosen[i] = None
            budget -= sizes[i]
            continue
        rows = _rows_that_fit(s, share, measure)
        if rows is not None:
            chosen[i] = rows
            budget -= s.size(rows, measure)
    left = [s.title for i, s in enumerate(sections) if not s.keep and i not in chosen]
    note = omission.format(left=f" (left out: {', '.join(left)})" if left else "")
    out: list[str] = []
    for i, s in enumerate(sections):
        if s.keep:
            if i == len(sections) - 1:
                out += [note, ""]
            out += s.lines()
        elif i in chosen:
            out += s.lines(chosen[i])
    return "\n".join(out).rstrip("\n") + "\n"


def _rows_that_fit(s: Section, budget: int, measure: Measure) -> int | None:
    if s.size(0, measure) > budget:
        return None
    lo, hi = 0, len(s.rows)
    while lo < hi:  # the most rows whose cut section still fits
        mid = (lo + hi + 1) // 2
        if s.size(mid, measure) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return lo


def golden_set(name: str, version: int | None, capital: bool = False, max_len: int = 200) -> str:
    """``golden set `name` version 3``; loose trace files have no version, and none is shown."""
    label = f"{'Golden' if capital else 'golden'} set {md_code(name, max_len=max_len, in_table=False)}"
    return label if version is None else f"{label} version {version}"


def quote_list(items: Sequence[str], max_len: int = 2000) -> str:
    """Untrusted names (case ids, files) as one line of inline code spans, capped."""
    parts: list[str] = []
    size = 0
    for i in items:  # stop as soon as the spans are too long: the list may be huge
        parts.append(md_code(i, max_len=max_len + 1, in_table=False))
        size += len(parts[-1]) + 2
        if size - 2 > max_len:
            return md(", ".join(items), max_len=max_len)
    return ", ".join(parts)
