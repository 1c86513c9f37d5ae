"""The per-query vector section of the markdown report: the four axes, grounding beside citation
validity, why each axis has its value (``docs/axes.md``), and which query of a case lost a constraint or
an entity of its question. A pure renderer."""

from __future__ import annotations

from gate.judgement import QueryScore
from gate.report.queries import lost_words, query_rows
from gate.report.sections import num, table
from gate.results import CaseResult
from gate.score.figures import AXES
from gate.text.escape import md, md_code

LABELS = {"query_quality": "query quality", "freshness": "freshness", "diversity": "diversity",
          "citation_validity": "citation validity"}


class VectorLines:
    """The vector table and the axes' notes, taken a case at a time (the lines are kept, not the cases:
    a report's may be read back from a file)."""

    def __init__(self) -> None:
        """No case yet."""
        self.cells: list[list[str]] = []
        self.notes: list[str] = []
        self.lost: list[str] = []

    def add(self, c: CaseResult) -> None:
        """Take one case's row and notes (none when it has no vector)."""
        self.lost += [_lost_line(c, r.number, r.query, lost_words(r.kept), r.score)
                      for r in query_rows(c) if r.lost and r.kept is not None]
        if not (c.soft or c.axes):
            return
        self.cells.append([md_code(c.id), num(c.soft.get("query_quality")), num(c.soft.get("freshness")),
                           num(c.soft.get("diversity")), num(c.soft.get("grounding_rate")),
                           num(c.soft.get("citation_validity"))])
        self.notes += [f"- {md_code(c.id, in_table=False)} {LABELS[a]}: {md(c.axes[a], max_len=400)}"
                       for a in AXES if a in c.axes]

    def lines(self) -> list[str]:
        """The section: the vector table (grounding per answer next to alignment per (claim, URL) pair)
        and each axis's note; nothing when no case has a vector."""
        if not self.cells and not self.lost:
            return []
        head, rows = table(
            ["case", "query quality", "freshness", "diversity", "grounding (per answer)",
             "citation validity (per claim and URL)"],
            "lrrrrr", self.cells)
        lines = ["### Per-query vector", "", *head, *rows, ""] if self.cells else ["### Per-query vector", ""]
        if self.notes:
            lines += ["<details><summary>Why each axis has its value</summary>", "", *self.notes, "", "</details>",
                      ""]
        if self.lost:
            lines += ["<details><summary>Queries that lost a constraint or an entity of the question</summary>", "",
                      *self.lost, "", "</details>", ""]
        return lines


def _lost_line(c: CaseResult, number: int, query: str, lost: str, score: QueryScore | None) -> str:
    judged = (f" (constraint preservation {score.constraint_preservation}, entity recall {score.entity_recall})"
              if score is not None else "")
    return (f"- {md_code(c.id, in_table=False)} query {number} «{md(query, max_len=200)}» lost "
            f"{md(lost, max_len=400)}{judged}")

