"""Citation validity, per (claim, cited URL) pair. Pure.

Each claim of the answer that cites a URL makes one pair per URL it cites. A pair passes when all
three sub-checks do:

1. **resolved**: the URL was fetched with a 2xx status and no redirect to another site (no
   ``fabricated_url``, ``unread_citation`` or ``url_unresolved`` finding on it);
2. **passage**: an explicit quote cited with it is on the page (no ``passage_missing`` finding);
3. **supported**: the judge found the claim supported and its quote is on *that* page. A claim
   supported by another page it does not cite is misattributed; a claim the judge did not support
   fails here whatever its URL.

The axis is the share of pairs that pass all three. Pairs of unscored claims are left out (unscored
is neither failed nor passed). Without a judgement (or when no claim cites a URL), the pairs are the
cited URLs alone and only the first two sub-checks apply: the note says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from gate.checks.base import Subject
from gate.model import Finding
from gate.score.figures import Axis
from gate.urls import canonical

if TYPE_CHECKING:
    from gate.judgement import RunJudgement

RESOLVED_CHECKS = frozenset({"fabricated_url", "unread_citation", "url_unresolved"})
PASSAGE_CHECKS = frozenset({"passage_missing"})


@dataclass(frozen=True)
class Pair:
    """One (claim, cited URL) pair and its three sub-checks; ``claim_id`` None for a URL without claims."""

    claim_id: int | None
    url: str
    resolved: bool
    passage: bool
    supported: bool | None
    """None when not judged (no judgement): the pair is decided by the first two"""

    @property
    def valid(self) -> bool:
        """True when every sub-check that applies passes."""
        return self.resolved and self.passage and self.supported is not False


def _flagged(failures: tuple[Finding, ...], checks: frozenset[str]) -> set[str]:
    return {canonical(f.url) for f in failures if f.url and f.check in checks}


def _on_page(subject: Subject, key: str, quote: str) -> bool:
    return any(subject.index(p).find(quote).found for p in subject.texts(key))


def pairs(subject: Subject, failures: tuple[Finding, ...], judgement: RunJudgement | None) -> tuple[Pair, ...]:
    """Every scored (claim, cited URL) pair of the run, or the cited URLs alone without claim pairs."""
    unresolved = _flagged(failures, RESOLVED_CHECKS)
    missing = _flagged(failures, PASSAGE_CHECKS)
    out: list[Pair] = []
    if judgement is not None:
        verdicts = {v.claim_id: v for v in judgement.verdicts}
        for claim in judgement.claims:
            v = verdicts.get(claim.id)
            if v is None or v.verdict is None:
                continue
            for url in dict.fromkeys(canonical(u) for u in claim.citations):
                supported = v.verdict == "supported" and bool(v.evidence) and _on_page(subject, url, v.evidence or "")
                out.append(Pair(claim.id, subject.cited.get(url, url), url not in unresolved, url not in missing,
                                supported))
    if out or (judgement is not None and judgement.claims and any(c.citations for c in judgement.claims)):
        return tuple(out)
    return tuple(Pair(None, raw, key not in unresolved, key not in missing, None) for key, raw in subject.cited.items())


def citation_validity(subject: Subject, failures: tuple[Finding, ...], judgement: RunJudgement | None) -> Axis:
    """The share of (claim, cited URL) pairs passing all three sub-checks, with counts in the note."""
    if not subject.cited:
        return Axis(None, "no citations")
    found = pairs(subject, failures, judgement)
    if not found:
        return Axis(None, "every claim that cites a source is unscored")
    ok = sum(1 for p in found if p.valid)
    if found[0].claim_id is None:
        return Axis(ok / len(found), f"{ok} of {len(found)} cited URL(s) resolved with their passages "
                                     "(no judged claim cites a URL: URL checks only)")
    bad = {
        "unresolved": sum(1 for p in found if not p.resolved),
        "passage missing": sum(1 for p in found if not p.passage),
        "not supported by that page": sum(1 for p in found if p.supported is False),
    }
    why = ", ".join(f"{n} {k}" for k, n in bad.items() if n)
    return Axis(ok / len(found), f"{ok} of {len(found)} (claim, URL) pair(s) valid" + (f"; {why}" if why else ""))
