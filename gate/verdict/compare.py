"""Baseline report vs current report -> a :class:`Comparison` value. Pure: no I/O, no clock.

The comparison states facts; :mod:`gate.verdict.decide` turns them into a verdict. Only the cases the
two reports share are compared (added and removed cases are listed, never silently dropped), so
a set figure's baseline and PR values are always means over the same cases. With a baseline read
at a git revision (``--baseline-ref``), a removed case keeps its baseline result for the decision
(:attr:`Comparison.removed_results`): a pull request cannot pass by deleting its failing cases.

Per case: hard failures new, kept and fixed (matched by check and canonical URL, not wording), soft figures
that moved, claims that flipped (:mod:`gate.verdict.claimdiff`), unscored claims. Per set: each figure with
its paired sign test (:mod:`gate.verdict.figurediff`).
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime

from gate.config import Config
from gate.model import Finding
from gate.results import CaseResult
from gate.urls import canonical
from gate.verdict.claimdiff import claim_flips, unscored_count
from gate.verdict.comparison import (
    MOVED,
    BaselineOrigin,
    CaseChange,
    Comparison,
    FigureChange,
    FigureStatus,
    Moved,
    RemovedCase,
)
from gate.verdict.figurediff import SET_FIGURES, Selector, figure_status, paired_change, sign_test
from gate.verdict.report import Report

__all__ = [
    "MOVED", "SET_FIGURES", "BaselineOrigin", "CaseChange", "Comparison", "FigureChange", "FigureStatus",
    "Moved", "RemovedCase", "compare", "compare_cases", "failure_key", "sign_test",
]


def failure_key(f: Finding) -> tuple[str, str | None]:
    """What makes two findings "the same failure": the check and the URL, not the wording.

    The URL is compared canonically (:func:`gate.urls.canonical`), as the checks compare it: a PR
    that writes ``http://example.org/a`` where the baseline had ``https://www.example.org/a/`` cites
    the same page, and its failure is the baseline's, not a new one.
    """
    return f.check, canonical(f.url) if f.url is not None else None


def _split(current: Sequence[Finding], baseline: Sequence[Finding]) -> tuple[list[Finding], ...]:
    before: dict[tuple[str, str | None], list[Finding]] = {}
    for f in baseline:
        before.setdefault(failure_key(f), []).append(f)
    new, kept = [], []
    for f in current:
        k = failure_key(f)
        if before.get(k):
            b = before[k].pop(0)
            # the baseline's equal value, when it is one: a comparison of many cases then holds one
            # copy of each kept failure, not two
            kept.append(b if b == f else f)
        else:
            new.append(f)
    now = Counter(failure_key(f) for f in current)
    fixed = []
    for f in baseline:
        k = failure_key(f)
        if now[k] > 0:
            now[k] -= 1
        else:
            fixed.append(f)
    return new, kept, fixed


def _moved(base: CaseResult, cur: CaseResult) -> tuple[Moved, ...]:
    out = []
    for name in sorted(set(base.soft) | set(cur.soft), key=_soft_order):
        b, c = base.soft.get(name), cur.soft.get(name)
        if (b is None) != (c is None) or (b is not None and c is not None and abs(c - b) > MOVED):
            out.append(Moved(name, b, c))
    return tuple(out)


def _soft_order(name: str) -> tuple[int, str]:
    order = [f for _, _, f, _ in SET_FIGURES]
    return (order.index(name) if name in order else len(order), name)


def case_change(base: CaseResult, cur: CaseResult) -> CaseChange:
    """Compare one case with its baseline."""
    new, kept, fixed = _split(cur.hard_failures, base.hard_failures)
    return CaseChange(
        id=cur.id, new_failures=tuple(new), fixed_failures=tuple(fixed), kept_failures=tuple(kept),
        moved=_moved(base, cur), flips=claim_flips(base.judgement, cur.judgement),
        unscored=(unscored_count(base.judgement), unscored_count(cur.judgement)),
        baseline_answer=base.answer if None not in (base.answer, cur.answer) and base.answer != cur.answer
        else None,
    )


def _age_days(written_at: str | None, now: datetime | None) -> float | None:
    if written_at is None or now is None:
        return None
    try:
        then = datetime.fromisoformat(written_at.replace("Z", "+00:00"))
    except ValueError:
        return None
    if then.tzinfo is None or now.tzinfo is None:
        then, now = then.replace(tzinfo=None), now.replace(tzinfo=None)
    return max(0.0, (now - then).total_seconds() / 86400)


def compare(baseline: Report, current: Report, config: Config, origin: BaselineOrigin,
            now: datetime | None = None) -> Comparison:
    """Compare ``current`` with ``baseline``; ``now`` (given by the caller) dates the baseline."""
    return compare_cases(baseline, current.cases, current.golden_version, current.judge_mode, config,
                         origin, now)


def compare_cases(baseline: Report, cases: Iterable[CaseResult], version: int | None, judge_mode: str,
                  config: Config, origin: BaselineOrigin, now: datetime | None = None) -> Comparison:
    """Compare the case results of a run (golden-set ``version``, judged in ``judge_mode``) with
    ``baseline``, each set figure with its status under ``config``: the comparison, ready to decide.

    The cases are read once, one at a time: what stays of each is its id, its change record and
    two numbers per set figure (a case store's cases are never all in memory at once).
    """
    base_by_id = {c.id: c for c in baseline.cases}
    cur_ids: list[str] = []
    common: list[str] = []
    changes: list[CaseChange] = []
    unjudged: list[str] = []
    values = {key: _Values() for key, _, _, _ in SET_FIGURES}
    for c in cases:
        cur_ids.append(c.id)
        b = base_by_id.get(c.id)
        if b is None:
            continue
        common.append(c.id)
        changes.append(case_change(b, c))
        if b.judgement is not None and b.judgement.claim_count and c.judgement is None:
            unjudged.append(c.id)
        for key, _, figure, select in SET_FIGURES:
            values[key].add(b, c, figure, select)
    stamp = baseline.stamp
    figures = (paired_change(k, label, f, values[k].base, values[k].pr, values[k].alone)
               for k, label, f, _ in SET_FIGURES)
    current = set(cur_ids)
    removed = tuple(i for i in base_by_id if i not in current)
    return Comparison(
        origin=origin,
        baseline_version=baseline.golden_version,
        current_version=version,
        baseline_verdict=baseline.verdict,
        baseline_forced=stamp is not None and stamp.forced,
        baseline_written_at=stamp.written_at if stamp else None,
        baseline_age_days=_age_days(stamp.written_at if stamp else None, now),
        max_age_days=config.compare.max_baseline_age_days,
        common=tuple(common),
        added=tuple(i for i in cur_ids if i not in base_by_id),
        removed=removed,
        cases=tuple(changes),
        figures=tuple(replace(ch, status=figure_status(ch, config)) for ch in figures),
        # A PR that deletes the judge cache must not make the judged half of the gate vanish quietly:
        # with the judge on, a case the baseline judged and this run did not is a gap, not a pass.
        unjudged=tuple(unjudged) if judge_mode != "off" else (),
        block_on=config.compare.block_on,
        # The baseline the pull request could not edit keeps deciding the cases the pull request
        # deleted; a baseline from the working tree is the pull request's own anyway.
        removed_results=(tuple(RemovedCase(i, base_by_id[i].hard_failures) for i in removed)
                         if origin.trusted else ()),
    )


class _Values:
    """One set figure's values over the paired cases (see :func:`gate.verdict.figurediff.paired_change`)."""

    def __init__(self) -> None:
        self.base: array[float] = array("d")
        self.pr: array[float] = array("d")
        self.alone: array[float] = array("d")

    def add(self, b: CaseResult, c: CaseResult, figure: str, select: Selector | None) -> None:
        if select is not None and not select(c):
            return
        cv = c.soft.get(figure)
        if cv is None:
            return
        self.alone.append(cv)
        bv = b.soft.get(figure)
        if bv is not None and (select is None or select(b)):
            self.base.append(bv)
            self.pr.append(cv)
