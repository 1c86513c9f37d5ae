"""Baseline report vs current report -> a :class:`Comparison` value. Pure: no I/O, no clock.

The comparison states facts; :mod:`gate.decide` turns them into a verdict. Only the cases the
two reports share are compared (added and removed cases are listed, never silently dropped), so
a set figure's baseline and PR values are always means over the same cases.

Per case: hard failures new, kept and fixed (matched by check and canonical URL, not wording), soft figures
that moved, claims that flipped (:mod:`gate.claimdiff`), unscored claims. Per set: each figure with
its paired sign test (:mod:`gate.figurediff`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from gate.claimdiff import ClaimFlip, claim_flips, unscored_count
from gate.config import Config
from gate.figurediff import MOVED, SET_FIGURES, FigureChange, FigureStatus, figure_change, sign_test
from gate.model import Finding
from gate.results import CaseResult, Report, Verdict
from gate.urls import canonical

__all__ = [
    "MOVED", "SET_FIGURES", "BaselineOrigin", "CaseChange", "Comparison", "FigureChange", "FigureStatus",
    "Moved", "compare", "failure_key", "sign_test",
]


@dataclass(frozen=True)
class BaselineOrigin:
    """Where the baseline came from: the file, and the git revision it was read at (if any)."""

    file: str
    ref: str | None = None
    commit: str | None = None
    changed_files: tuple[str, ...] = ()
    """golden-set files (runs, snapshots, judgements, baseline, golden.yaml) the PR changed vs ``ref``"""
    redefined_cases: tuple[str, ...] = ()
    """cases whose definition in golden.yaml differs from the one at ``ref``"""


@dataclass(frozen=True)
class Moved:
    """One soft figure of one case that changed."""

    name: str
    baseline: float | None
    current: float | None


@dataclass(frozen=True)
class CaseChange:
    """What changed in one case the two reports share."""

    id: str
    new_failures: tuple[Finding, ...]
    fixed_failures: tuple[Finding, ...]
    kept_failures: tuple[Finding, ...]
    moved: tuple[Moved, ...]
    flips: tuple[ClaimFlip, ...]
    unscored: tuple[int, int]
    """unscored claims in the baseline and now"""

    @property
    def changed(self) -> bool:
        """True when anything about this case differs from the baseline."""
        return bool(self.new_failures or self.fixed_failures or self.moved or self.flips
                    or self.unscored[0] != self.unscored[1])


@dataclass(frozen=True)
class Comparison:
    """Everything the decision and the reporters need to know about PR vs baseline."""

    origin: BaselineOrigin
    baseline_version: int | None
    current_version: int | None
    baseline_verdict: Verdict
    baseline_forced: bool
    baseline_written_at: str | None
    baseline_age_days: float | None
    max_age_days: float | None
    common: tuple[str, ...]
    added: tuple[str, ...]
    removed: tuple[str, ...]
    cases: tuple[CaseChange, ...]
    figures: tuple[FigureChange, ...]
    unjudged: tuple[str, ...] = ()
    """common cases the baseline judged but this run, with the judge on, did not (a missing judge cache)"""
    block_on: str = "all"
    """``compare.block_on``: ``new`` when only failures the baseline did not have block"""

    def blocks(self, case_id: str, finding: Finding) -> bool:
        """Whether a hard failure of this run blocks: always, unless ``block_on: new`` and the baseline had it."""
        if self.block_on != "new":
            return True
        change = self.case(case_id)
        return change is None or finding not in change.kept_failures

    @property
    def version_mismatch(self) -> bool:
        """The baseline was recorded for another golden-set version."""
        return self.baseline_version != self.current_version

    @property
    def stale(self) -> bool:
        """The baseline is older than ``compare.max_baseline_age_days``."""
        return (self.max_age_days is not None and self.baseline_age_days is not None
                and self.baseline_age_days > self.max_age_days)

    def case(self, case_id: str) -> CaseChange | None:
        """The change record of a common case."""
        return next((c for c in self.cases if c.id == case_id), None)

    def notes(self) -> tuple[str, ...]:
        """Plain-text remarks a reader must see: mismatches, stale or forced baselines, edits."""
        out = []
        if self.version_mismatch:
            out.append(f"the baseline is for golden-set version {self.baseline_version}, this run is version "
                       f"{self.current_version}: only the {len(self.common)} common cases are compared")
        elif self.added or self.removed:
            out.append(f"the baseline covers other cases: only the {len(self.common)} common cases "
                       "are compared")
        if self.added:
            out.append(f"{len(self.added)} case(s) not in the baseline: " + ", ".join(self.added))
        if self.removed:
            out.append(f"{len(self.removed)} baseline case(s) not in this run: " + ", ".join(self.removed))
        if self.stale:
            out.append(f"the baseline is {self.baseline_age_days:.0f} days old "
                       f"(more than compare.max_baseline_age_days = {self.max_age_days:g}): refresh it")
        if self.baseline_forced:
            out.append(f"the baseline was forced from a run whose verdict was {self.baseline_verdict}")
        if self.origin.redefined_cases:
            out.append("case definitions changed in golden.yaml by this PR: "
                       + ", ".join(self.origin.redefined_cases))
        if self.origin.changed_files:
            out.append(f"this PR changes {len(self.origin.changed_files)} golden-set file(s); "
                       "the baseline was "
                       f"read from {self.origin.ref}, not from the working tree")
        return tuple(out)


def failure_key(f: Finding) -> tuple[str, str | None]:
    """What makes two findings "the same failure": the check and the URL, not the wording.

    The URL is compared canonically (:func:`gate.urls.canonical`), as the checks compare it: a PR
    that writes ``http://example.org/a`` where the baseline had ``https://www.example.org/a/`` cites
    the same page, and its failure is the baseline's, not a new one.
    """
    return f.check, canonical(f.url) if f.url is not None else None


def _split(current: Sequence[Finding], baseline: Sequence[Finding]) -> tuple[list[Finding], ...]:
    before = Counter(failure_key(f) for f in baseline)
    new, kept = [], []
    for f in current:
        k = failure_key(f)
        if before[k] > 0:
            before[k] -= 1
            kept.append(f)
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
    base_by_id = {c.id: c for c in baseline.cases}
    cur_ids = [c.id for c in current.cases]
    pairs = [(base_by_id[c.id], c) for c in current.cases if c.id in base_by_id]
    stamp = baseline.stamp
    return Comparison(
        origin=origin,
        baseline_version=baseline.golden_version,
        current_version=current.golden_version,
        baseline_verdict=baseline.verdict,
        baseline_forced=stamp is not None and stamp.forced,
        baseline_written_at=stamp.written_at if stamp else None,
        baseline_age_days=_age_days(stamp.written_at if stamp else None, now),
        max_age_days=config.compare.max_baseline_age_days,
        common=tuple(c.id for _, c in pairs),
        added=tuple(i for i in cur_ids if i not in base_by_id),
        removed=tuple(i for i in base_by_id if i not in set(cur_ids)),
        cases=tuple(case_change(b, c) for b, c in pairs),
        figures=tuple(figure_change(k, label, f, pairs, sel) for k, label, f, sel in SET_FIGURES),
        unjudged=_unjudged(pairs) if current.judge_mode != "off" else (),
        block_on=config.compare.block_on,
    )


def _unjudged(pairs: list[tuple[CaseResult, CaseResult]]) -> tuple[str, ...]:
    # A PR that deletes the judge cache must not make the judged half of the gate vanish quietly:
    # with the judge on, a case the baseline judged and this run did not is a gap, not a pass.
    return tuple(c.id for b, c in pairs
                 if b.judgement is not None and b.judgement.claim_count and c.judgement is None)
