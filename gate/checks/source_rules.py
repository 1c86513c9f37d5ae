"""Source types a rule decides without a model: the obvious primaries and secondaries.

A source is obviously ``primary`` when it is on the case's own site (``about_domains``), a
government or intergovernmental site, a registry of papers or standards, or a documentation or
investor-relations host; obviously ``secondary`` on encyclopedias, forums, social networks and news
aggregators. Anything else is left to the judge. Pure and offline.
"""

from __future__ import annotations

from collections.abc import Sequence

from gate.judgement import SourceType
from gate.urls import host, is_under, registered_domain

__all__ = ["PRIMARY_HOST_PREFIXES", "PRIMARY_SITES", "PRIMARY_SUFFIXES", "SECONDARY_SITES", "rule_source_type"]

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
