"""Which judged claims flipped between the baseline and this run. Pure.

Claims are matched by their text (case and whitespace folded), not by their number: an edited
answer renumbers its claims, and a flip must be about the same sentence. A claim's state is its
verdict, or ``unscored``; the reason tells a reader why (``quote_not_found`` when the judge's
quote was not on the page and the verdict was overruled).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gate.judgement import RunJudgement

__all__ = ["ClaimFlip", "ClaimState", "claim_flips", "claim_states", "unscored_count"]

UNSCORED = "unscored"
RANK = {"supported": 0, "partial": 1, UNSCORED: 2, "unsupported": 3, "contradicted": 4}
"""Better states first: a flip to a higher rank is a regression."""


@dataclass(frozen=True)
class ClaimState:
    """One claim as the report shows it."""

    number: int
    text: str
    state: str
    reason: str | None = None


@dataclass(frozen=True)
class ClaimFlip:
    """A claim whose state changed: ``claim 3: supported -> unsupported, quote not found``."""

    number: int
    text: str
    before: str
    after: str
    reason: str | None

    @property
    def worse(self) -> bool:
        """True when the claim moved towards unsupported or contradicted."""
        return RANK.get(self.after, 2) > RANK.get(self.before, 2)


def claim_states(judgement: RunJudgement | None) -> tuple[ClaimState, ...]:
    """The claims of a run with their final verdicts (empty when the run was not judged)."""
    if judgement is None:
        return ()
    verdicts = {v.claim_id: v for v in judgement.verdicts}
    out = []
    for claim in judgement.claims:
        v = verdicts.get(claim.id)
        if v is None:
            out.append(ClaimState(claim.id, claim.text, UNSCORED, "not graded"))
            continue
        reason = v.overrule_reason if v.overruled else v.unscored_reason
        if reason is None and v.located == "other_source" and claim.citations:
            reason = "misattributed"
        out.append(ClaimState(claim.id, claim.text, v.verdict or UNSCORED, reason))
    return tuple(out)


def unscored_count(judgement: RunJudgement | None) -> int:
    """Unscored claims of a run (0 when it was not judged)."""
    return 0 if judgement is None else judgement.unscored_count


def _fold(text: str) -> str:
    return " ".join(text.casefold().split())


def claim_flips(before: RunJudgement | None, after: RunJudgement | None) -> tuple[ClaimFlip, ...]:
    """Claims present on both sides whose state differs, numbered as in ``after``."""
    old = {_fold(c.text): c for c in claim_states(before)}
    flips = []
    for c in claim_states(after):
        b = old.get(_fold(c.text))
        if b is not None and b.state != c.state:
            flips.append(ClaimFlip(c.number, c.text, b.state, c.state, c.reason))
    return tuple(flips)
