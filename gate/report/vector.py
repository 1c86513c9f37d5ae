"""The per-query vector section of the markdown report: the four axes, grounding beside citation
validity, and why each axis has its value (``docs/axes.md``). A pure renderer."""

from __future__ import annotations

from gate.figures import AXES
from gate.report.escape import md, md_code
from gate.report.sections import num, table
from gate.results import Report

LABELS = {"query_quality": "query quality", "freshness": "freshness", "diversity": "diversity",
          "citation_validity": "citation validity"}


def vector_lines(report: Report) -> list[str]:
    """The vector table (grounding per answer next to alignment per (claim, URL) pair) and each axis's note."""
    # one pass, keeping the lines (not the cases: a report's may be read back from a file)
    cells: list[list[str]] = []
    notes: list[str] = []
    for c in report.cases:
        if not (c.soft or c.axes):
            continue
        cells.append([md_code(c.id), num(c.soft.get("query_quality")), num(c.soft.get("freshness")),
                      num(c.soft.get("diversity")), num(c.soft.get("grounding_rate")),
                      num(c.soft.get("citation_validity"))])
        notes += [f"- {md_code(c.id, in_table=False)} {LABELS[a]}: {md(c.axes[a], max_len=400)}"
                  for a in AXES if a in c.axes]
    if not cells:
        return []
    head, rows = table(
        ["case", "query quality", "freshness", "diversity", "grounding (per answer)",
         "citation validity (per claim and URL)"],
        "lrrrrr", cells)
    lines = ["### Per-query vector", "", *head, *rows, ""]
    if notes:
        lines += ["<details><summary>Why each axis has its value</summary>", "", *notes, "", "</details>", ""]
    return lines
