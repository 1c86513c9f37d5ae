"""Calibrate ``paraphrase_drift`` on human-labelled claims: ``python -m tests.calibrate_drift``.

The data is ExpertQA (``tests/fixtures/attribution/``, MIT, see its ATTRIBUTION.md): answers'
cited sentences, the text of the pages they cite as the annotators saw it, and experts' judgement
of whether that text supports the sentence. Every claim with evidence text is scored the way the
check scores a cited sentence on a read page (its best page when it cites several); a claim is
*flagged* when the check would report it at a given ``max_drift``.

- precision: of the flagged claims, the share the experts labelled not supported;
- recall: of the claims labelled not supported, the share flagged.

The chosen threshold has the highest precision among those that catch at least a fifth of the
unsupported claims (``MIN_RECALL``): a flag must be worth reading, and a check that flags almost
nothing, or almost everything, says nothing. Ties go to the higher recall. Deterministic: no
randomness, no network.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from gate.checks.paraphrase_drift import Drift, sentence_drift
from gate.checks.passage import normalise

FIXTURE = Path(__file__).parent / "fixtures" / "attribution" / "expertqa.rand_test.first59.jsonl"
THRESHOLDS = tuple(range(0, 101, 5))
LABELS = ("Complete", "Incomplete", "Partial", "Missing")
"""Support labels kept; ``N/A`` marks a claim the annotators had no evidence for."""
MIN_RECALL = 0.2
_MARKERS = re.compile(r"\s*\[\^?\d+(?:\s*[-,]\s*\d+)*\]")


@dataclass(frozen=True)
class Claim:
    """One labelled claim: the cited sentence, the texts of its cited pages, the experts' label."""

    sentence: str
    pages: tuple[str, ...]
    supported: bool


@dataclass(frozen=True)
class Row:
    """The check against the labels at one threshold."""

    max_drift: float
    flagged: int
    true_flags: int
    unsupported: int

    @property
    def precision(self) -> float:
        """Of the flagged claims, the share labelled not supported."""
        return self.true_flags / self.flagged if self.flagged else 0.0

    @property
    def recall(self) -> float:
        """Of the claims labelled not supported, the share flagged."""
        return self.true_flags / self.unsupported if self.unsupported else 0.0

    def f(self) -> float:
        """F1: the harmonic mean of precision and recall."""
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0


def load_claims(path: Path = FIXTURE) -> list[Claim]:
    """Every claim with a support label and at least one evidence text, in file order."""
    claims = []
    for line in path.read_text(encoding="utf-8").splitlines():
        for answer in json.loads(line)["answers"].values():
            for c in answer["claims"]:
                texts = tuple(e.split("\n\n", 1)[1] for e in c.get("evidence") or ()
                              if "\n\n" in e and e.split("\n\n", 1)[1].strip())
                if texts and c["support"] in LABELS:
                    claims.append(Claim(_MARKERS.sub("", c["claim_string"]).strip(), texts,
                                        c["support"] == "Complete"))
    return claims


def best(claim: Claim) -> Drift:
    """The claim's drift against all of its evidence texts, as the check scores a sentence and its pages."""
    return sentence_drift(claim.sentence, [(str(i), normalise(p)) for i, p in enumerate(claim.pages)])[1]


def flagged(d: Drift, max_drift: float) -> bool:
    """Would the check report this drift at ``max_drift``?"""
    return bool(d.numbers or d.names) or d.score > max_drift


def table(claims: Sequence[Claim], thresholds: Sequence[float] = THRESHOLDS) -> list[Row]:
    """Precision and recall of the check against the labels, per threshold."""
    scored = [(best(c), c.supported) for c in claims]
    unsupported = sum(1 for _, ok in scored if not ok)
    rows = []
    for t in thresholds:
        marks = [ok for d, ok in scored if flagged(d, t)]
        rows.append(Row(float(t), len(marks), sum(1 for ok in marks if not ok), unsupported))
    return rows


def choose(rows: Sequence[Row]) -> Row:
    """The row with the highest precision among those with recall >= ``MIN_RECALL``; higher recall among equals."""
    return max((r for r in rows if r.recall >= MIN_RECALL), key=lambda r: (round(r.precision, 6), r.recall))


def main(argv: Sequence[str] | None = None) -> int:
    """Print the table and the chosen threshold."""
    claims = load_claims()
    rows = table(claims)
    unsupported = rows[0].unsupported
    print(f"{len(claims)} labelled claims with evidence text, {unsupported} not supported "
          f"(base rate {unsupported / len(claims):.3f})")
    scored = [best(c) for c in claims]
    for what, hits in (("numbers", [c for c, d in zip(claims, scored, strict=True) if d.numbers]),
                       ("names", [c for c, d in zip(claims, scored, strict=True) if d.names])):
        bad = sum(1 for c in hits if not c.supported)
        print(f"{what} not on the page: {len(hits)} claims, {bad} of them not supported")
    print(f"{'max_drift':>9} {'flagged':>7} {'true':>5} {'precision':>9} {'recall':>6} {'F1':>5}")
    for r in rows:
        print(f"{r.max_drift:>9.0f} {r.flagged:>7} {r.true_flags:>5} {r.precision:>9.3f} {r.recall:>6.3f}"
              f" {r.f():>5.3f}")
    chosen = choose(rows)
    verdict = "hard" if chosen.precision >= 0.9 else "soft (warnings)"
    print(f"chosen max_drift {chosen.max_drift:.0f}: precision {chosen.precision:.3f}, recall {chosen.recall:.3f}"
          f" -> {verdict} by default (hard needs precision >= 0.9)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
