"""What needs no model: obvious source types, and which case constraints and entities the queries kept.

A source is obviously ``primary`` when it is on the case's own site (``about_domains``), a
government or intergovernmental site, a registry of papers or standards, or a documentation or
investor-relations host; obviously ``secondary`` on encyclopedias, forums, social networks and news
aggregators. Anything else goes to the judge.
"""

from __future__ import annotations

from collections.abc import Sequence

from rapidfuzz import fuzz

from gate.judge.evidence import terms
from gate.judge.model import SourceType
from gate.passage import normalise
from gate.urls import host, is_under, registered_domain

PRIMARY_SUFFIXES = (".gov", ".mil", ".int", ".gov.uk", ".gc.ca", ".gov.au", ".gouv.fr", ".bund.de",
                    ".europa.eu")
PRIMARY_SITES = frozenset({
    "sec.gov", "europa.eu", "arxiv.org", "doi.org", "ietf.org", "rfc-editor.org", "w3.org", "iso.org",
    "legislation.gov.uk", "federalregister.gov", "python.org", "whatwg.org", "ecma-international.org",
})
PRIMARY_HOST_PREFIXES = ("docs.", "developer.", "developers.", "ir.", "investor.", "investors.")
SECONDARY_SITES = frozenset({
    "wikipedia.org", "wikiwand.com", "reddit.com", "quora.com", "medium.com", "substack.com",
    "ycombinator.com", "stackoverflow.com", "stackexchange.com", "youtube.com", "twitter.com", "x.com",
    "facebook.com", "linkedin.com", "msn.com", "yahoo.com", "flipboard.com", "investopedia.com",
    "wikihow.com", "news.google.com",
})
FUZZY_SURVIVAL = 90


def rule_source_type(url: str, about_domains: Sequence[str] = ()) -> SourceType | None:
    """The type of a cited source when a rule decides it, else None (the judge decides)."""
    name = host(url)
    site = registered_domain(url)
    if any(is_under(name, d) for d in about_domains):
        return SourceType(url, "primary", "rule", "the case's own site")
    if site in SECONDARY_SITES or name in SECONDARY_SITES:
        return SourceType(url, "secondary", "rule", "encyclopedia, forum, social network or aggregator")
    if site in PRIMARY_SITES or name.endswith(PRIMARY_SUFFIXES):
        return SourceType(url, "primary", "rule", "government, standards body or paper registry")
    if name.startswith(PRIMARY_HOST_PREFIXES):
        return SourceType(url, "primary", "rule", "documentation or investor-relations site")
    return None


def survives(phrase: str, queries: Sequence[str]) -> bool:
    """True when some query keeps ``phrase``: all its words and numbers, or a close fuzzy match."""
    want = terms(phrase)
    norm = normalise(phrase)
    for q in queries:
        if want and want <= terms(q):
            return True
        if norm and fuzz.partial_ratio(norm, normalise(q)) >= FUZZY_SURVIVAL:
            return True
    return False


def dropped(phrases: Sequence[str], queries: Sequence[str]) -> tuple[str, ...]:
    """The phrases (case constraints or entities) that no query kept."""
    return tuple(p for p in phrases if not survives(p, queries))
