"""The comparison of a report with its baseline, as values: what changed per case and per set figure.

:mod:`gate.verdict.compare` builds a :class:`Comparison` (pure); :mod:`gate.verdict.decide` reads it, and gives
each set figure its :class:`FigureStatus`; the reporters render it. These values sit below the
report (a report carries its comparison), so nothing here imports the results.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from gate.model import Finding, Verdict
from gate.score.figures import HIGHER_IS_BETTER
from gate.verdict.claimdiff import ClaimFlip

__all__ = [
    "MOVED", "BaselineOrigin", "CaseChange", "Comparison", "FigureChange", "FigureStatus", "Moved", "RemovedCase",
]

MOVED = 1e-6
"""Per-case changes smaller than this are ties (float noise, not a change)."""


@dataclass(frozen=True)
class FigureStatus:
    """How one set figure stands against its bounds, its baseline and judge noise (set by compare)."""

    status: str
    """``blocking``, ``noise`` (would block but within noise), ``too_few`` (would block, but the set has fewer
    paired cases than ``compare.min_cases``: it never can), ``warn``, ``improved``, ``worse`` or
    ``ungated`` (a figure with no bounds, such as the retrieval split: worse, or not), ``ok`` or ``n/a``"""
    why: str


@dataclass(frozen=True)
class FigureChange:
    """One set figure: baseline and PR means over the same paired cases, and the paired sign test."""

    key: str
    label: str
    figure: str
    baseline: float | None
    current: float | None
    pairs: int
    """common cases with a value on both sides"""
    worse: int
    better: int
    p_value: float | None
    """one-sided sign-test probability of at least ``worse`` regressions by chance; None without pairs"""
    status: FigureStatus | None = None
    """against the bounds, the baseline and judge noise: set by :func:`gate.verdict.compare.compare_cases`"""

    @property
    def delta(self) -> float | None:
        """PR minus baseline (None when either side has no value)."""
        if self.baseline is None or self.current is None:
            return None
        return self.current - self.baseline

    @property
    def higher_is_better(self) -> bool:
        """Whether a larger value is an improvement."""
        return HIGHER_IS_BETTER.get(self.figure, True)

    @property
    def worsening(self) -> float:
        """How much worse the PR is (positive) or better (negative); 0 when unknown."""
        d = self.delta
        if d is None:
            return 0.0
        return -d if self.higher_is_better else d


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

    @property
    def trusted(self) -> bool:
        """The baseline was read at a git revision (``--baseline-ref``): the pull request could not edit it."""
        return self.ref is not None


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
    baseline_answer: str | None = None
    """the baseline's answer (as its report keeps it), when it differs from this run's; None when the
    answers are the same or either report holds none"""

    @property
    def changed(self) -> bool:
        """True when anything about this case differs from the baseline."""
        return bool(self.new_failures or self.fixed_failures or self.moved or self.flips
                    or self.unscored[0] != self.unscored[1])


@dataclass(frozen=True)
class RemovedCase:
    """A baseline case this run does not have, with the hard failures the baseline records for it."""

    id: str
    failures: tuple[Finding, ...]


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
    removed_results: tuple[RemovedCase, ...] = ()
    """the removed cases decided by their baseline result, in the baseline's order: every removed case
    when the baseline is trusted (:attr:`BaselineOrigin.trusted`), none otherwise. Their hard failures
    count as failures the baseline already had, so a pull request cannot pass by deleting failing cases"""

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
        return self._by_id.get(case_id)

    @cached_property
    def _by_id(self) -> dict[str, CaseChange]:
        # asked once per case by the decision and the reporters: an index, not a scan each time
        index: dict[str, CaseChange] = {}
        for c in self.cases:
            index.setdefault(c.id, c)
        return index

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
        if self.removed_results:
            failing = sum(1 for r in self.removed_results if r.failures)
            out.append(f"{len(self.removed_results)} baseline case(s) not in this run, decided by their "
                       "baseline result" + (f" ({failing} of them with hard failures)" if failing else "")
                       + ": " + ", ".join(r.id for r in self.removed_results))
        elif self.removed:
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
