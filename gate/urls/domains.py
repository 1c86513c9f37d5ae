"""Registered domains (eTLD+1) and subdomain tests, from the Public Suffix List.

The list is the snapshot bundled with tldextract, never fetched from the network.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from gate.urls.hosts import host, map_host

if TYPE_CHECKING:
    import tldextract

__all__ = ["is_under", "registered_domain"]

_extractor: tldextract.TLDExtract | None = None


def _get_extractor() -> tldextract.TLDExtract:
    """Build the offline tldextract instance on first use (loading the bundled list takes a moment)."""
    global _extractor
    if _extractor is None:
        import tldextract

        # suffix_list_urls=() and cache_dir=None: use only the bundled snapshot, never fetch or write.
        _extractor = tldextract.TLDExtract(
            suffix_list_urls=(), cache_dir=None, include_psl_private_domains=True
        )
    return _extractor


@functools.lru_cache(maxsize=4096)  # per URL: a run reuses its own URLs; a set of 8,000 runs must not keep them all
def registered_domain(host_or_url: str) -> str:
    """Return the registered domain (eTLD+1) of a host or URL, private PSL section included.

    ``news.bbc.co.uk`` gives ``bbc.co.uk``; ``alice.github.io`` stays ``alice.github.io`` because
    ``github.io`` is a (private) public suffix. IPs, ``localhost`` and hosts with no known suffix
    give the host itself.
    """
    hostname = host(host_or_url)
    if not hostname:
        return hostname
    result = _get_extractor()(hostname)
    # top_domain_under_public_suffix replaces the deprecated registered_domain in newer tldextract.
    domain = getattr(result, "top_domain_under_public_suffix", None)
    if domain is None:
        domain = result.registered_domain
    return str(domain) if domain else hostname


def is_under(host: str, domain: str) -> bool:
    """Return True if ``host`` equals ``domain`` or is a subdomain of it (case-insensitive, www. ignored)."""
    h = _bare_host(host)
    d = _bare_host(domain)
    if not h or not d:
        return False
    return h == d or h.endswith("." + d)


def _bare_host(name: str) -> str:
    """A host name as :func:`map_host` gives it (lower-cased, no ``www.``); URLs are reduced to their host."""
    if "/" in name:
        return host(name)
    return map_host(name.strip())
