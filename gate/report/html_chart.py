"""A case's four-axis vector and its grounding as inline SVG, against the baseline's. Pure.

Every number and word in the SVG is the gate's own (figure names, values it computed); nothing of a
run reaches it. Two sizes: a labelled chart in the case's body and a strip of five bars in its
summary line, so a collapsed case still shows its vector.
"""

from __future__ import annotations

from collections.abc import Mapping

from gate.score.figures import HIGHER_IS_BETTER
from gate.verdict.comparison import MOVED, CaseChange

__all__ = ["CHART_FIGURES", "axis_chart", "axis_strip"]

CHART_FIGURES = (("query_quality", "query quality", 5.0), ("freshness", "freshness", 1.0),
                 ("diversity", "diversity", 1.0), ("citation_validity", "citation validity", 1.0),
                 ("grounding_rate", "grounding", 1.0))
"""(figure, label, the top of its scale): the four axes, then grounding."""

_ROW = 22
_LABEL = 118
_TRACK = 130


def _values(soft: Mapping[str, float | None], change: CaseChange | None,
            figure: str) -> tuple[float | None, float | None]:
    """This run's value and the baseline's (the same when it did not move; None without a baseline)."""
    now = soft.get(figure)
    if change is None:
        return now, None
    moved = next((m for m in change.moved if m.name == figure), None)
    return now, (moved.baseline if moved is not None else now)


def _trend(figure: str, now: float | None, then: float | None) -> str:
    if now is None or then is None or abs(now - then) <= MOVED:
        return ""
    better = (now > then) == HIGHER_IS_BETTER.get(figure, True)
    return " better" if better else " worse"


def _num(value: float | None, top: float) -> str:
    if value is None:
        return "–"
    return f"{value:.2f}/5" if top == 5.0 else f"{value:.2f}"


def _x(value: float, top: float, width: float) -> float:
    return round(max(0.0, min(1.0, value / top)) * width, 1)


def axis_chart(soft: Mapping[str, float | None], change: CaseChange | None) -> str:
    """The labelled chart: one row per figure, this run's bar, the baseline's value as a tick."""
    rows = []
    said = []
    for i, (figure, label, top) in enumerate(CHART_FIGURES):
        now, then = _values(soft, change, figure)
        y = 6 + i * _ROW
        row = [f'<text x="0" y="{y + 11}">{label}</text>',
               f'<rect class="track" x="{_LABEL}" y="{y}" width="{_TRACK}" height="14" rx="2"/>']
        if now is not None:
            row.append(f'<rect class="bar{_trend(figure, now, then)}" x="{_LABEL}" y="{y + 2}" '
                       f'width="{_x(now, top, _TRACK)}" height="10" rx="1"/>')
        if then is not None:
            x = _LABEL + _x(then, top, _TRACK)
            row.append(f'<line class="base" x1="{x}" x2="{x}" y1="{y - 2}" y2="{y + 16}"/>')
        moved = change is not None and any(m.name == figure for m in change.moved)
        was = f" (was {_num(then, top)})" if moved else ""
        shade = ' class="none"' if now is None else ""
        row.append(f'<text x="{_LABEL + _TRACK + 6}" y="{y + 11}"{shade}>{_num(now, top)}{was}</text>')
        rows.append("".join(row))
        said.append(f"{label} {_num(now, top)}{was}")
    height = 6 + len(CHART_FIGURES) * _ROW
    legend = "; the dark tick is the baseline's value" if change is not None else ""
    title = "Per-query vector: " + ", ".join(said) + legend
    return (f'<svg class="axes" role="img" width="390" height="{height}" viewBox="0 0 390 {height}" '
            f'><title>{title}</title>{"".join(rows)}</svg>')


def axis_strip(soft: Mapping[str, float | None], change: CaseChange | None) -> str:
    """Five small bars (the figures of :data:`CHART_FIGURES`, in order) for a case's summary line."""
    bars = []
    for i, (figure, _, top) in enumerate(CHART_FIGURES):
        now, then = _values(soft, change, figure)
        if now is not None:
            h = max(1.0, _x(now, top, 16))
            bars.append(f'<rect class="bar{_trend(figure, now, then)}" x="{i * 12}" y="{16 - h}" width="9" '
                        f'height="{h}"/>')
    return ('<svg class="mini" aria-hidden="true" width="58" height="16" viewBox="0 0 58 16">'
            f'<path class="track" d="M0 0h9v16h-9zM12 0h9v16h-9zM24 0h9v16h-9zM36 0h9v16h-9zM48 0h9v16h-9z"/>'
            f'{"".join(bars)}</svg>')
