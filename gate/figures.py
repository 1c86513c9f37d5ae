"""The per-query vector: four axes plus the judged rates, as named soft figures.

Axes, each in [0, 1] except query quality (1-5):

- ``query_quality``: judged constraint preservation and entity recall of the agent's queries;
- ``freshness``: share of dated cited sources within the age limit of the question's regime;
- ``diversity``: unique cited sites over the class floor, capped at 1;
- ``citation_validity``: how far the answer's citations can be trusted, URL by URL and claim by claim.
  Without a judgement it is the share of cited URLs that no URL-level hard check flagged
  (``fabricated_url``, ``unread_citation``, ``url_unresolved``, ``passage_missing``). With a
  judgement it is that share **times** the claims' attribution share: of the grounded claims that
  cite a source (the judge's quote was found on some retrieved page), the share whose quote is on a
  page they cite (:attr:`gate.judgement.RunJudgement.attribution_share`). A claim grounded only in
  another retrieved source is misattributed, a citation-validity failure for that claim. The figure
  is 1 only when every cited URL is sound and every grounded claim cites where its support is; it
  falls with either kind of failure. With no grounded claim that cites a source, the URL share
  stands alone; with no citation at all there is nothing to measure (None).

Judged rates: ``grounding_rate``, ``hallucination_rate``, ``primary_share``.
"""

from __future__ import annotations

from gate.checks.base import Subject
from gate.checks.stale_sources import source_dates

AXES = ("query_quality", "freshness", "diversity", "citation_validity")
JUDGED = ("grounding_rate", "hallucination_rate", "primary_share")
SOFT_FIGURES = AXES + JUDGED
HIGHER_IS_BETTER = {name: name != "hallucination_rate" for name in SOFT_FIGURES}

URL_CHECKS = frozenset({"fabricated_url", "unread_citation", "url_unresolved", "passage_missing"})


def freshness(subject: Subject) -> float | None:
    """Share of dated cited sources young enough for the regime; None when it does not apply."""
    regime = subject.regime
    if regime is None or subject.run.started_at is None:
        return None
    limit = subject.config.stale_days.get(regime)
    if limit is None:
        return None
    dated, _ = source_dates(subject)
    if not dated:
        return None
    day = subject.run.started_at.date()
    return sum(1 for d in dated.values() if (day - d).days <= limit) / len(dated)


def diversity(subject: Subject, unique_domains: int) -> float | None:
    """Unique cited sites over the floor for the case class, capped at 1."""
    if not subject.cited:
        return None
    floor = subject.config.floor_for(subject.case.cls)
    return 1.0 if floor <= 0 else min(1.0, unique_domains / floor)


def citation_validity(subject: Subject, bad_urls: set[str], attribution: float | None = None) -> float | None:
    """Share of cited URLs that no URL-level hard check flagged, times the claims' ``attribution`` share.

    ``attribution`` is None when there is no judgement, or no grounded claim that cites a source;
    the URL share then stands alone (see the module docstring).
    """
    if not subject.cited:
        return None
    from gate.urls import canonical

    bad = {canonical(u) for u in bad_urls}
    urls = sum(1 for k in subject.cited if k not in bad) / len(subject.cited)
    return urls if attribution is None else urls * attribution
