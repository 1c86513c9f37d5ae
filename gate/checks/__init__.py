"""Hard checks, one module each, by stable id (:data:`CHECKS`), and what they share: whether a quoted
passage is on its page (``passage``, by the rule of ``verbatim`` and ``typos``, with the page's
``closest`` passage for a miss), which case constraints the queries kept (``survival``), obvious
source types (``source_rules``), and the findings of a run's own replay (``run_findings``). Pure."""

from __future__ import annotations

from gate.checks.base import Check, Subject
from gate.checks.domains import DomainCap, DomainFloor
from gate.checks.fabricated_url import FabricatedUrl
from gate.checks.no_citations import NoCitations
from gate.checks.no_primary_source import NoPrimarySource
from gate.checks.paraphrase_drift import ParaphraseDrift
from gate.checks.passage_missing import PassageMissing
from gate.checks.rejected_url_kept import RejectedUrlKept
from gate.checks.stale_sources import StaleSources
from gate.checks.unread_citation import UnreadCitation
from gate.checks.url_unresolved import UrlUnresolved

CHECKS: dict[str, Check] = {
    c.id: c
    for c in (
        FabricatedUrl(),
        UnreadCitation(),
        NoCitations(),
        DomainCap(),
        DomainFloor(),
        UrlUnresolved(),
        PassageMissing(),
        RejectedUrlKept(),
        StaleSources(),
        NoPrimarySource(),
        ParaphraseDrift(),
    )
}

__all__ = ["CHECKS", "Check", "Subject"]
