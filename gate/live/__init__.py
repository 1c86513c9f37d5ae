"""The one door to the live web, which record mode and ``drift`` share: searches forwarded to a
provider, pages fetched safely.

``LiveWeb(config.record)`` is the seam the record server calls for what its snapshot lacks:
``search(provider, query) -> SearchRecord`` and ``fetch(url) -> PageRecord``, the same values the
store keeps (:mod:`gate.snapshot.records`). ``policy`` decides which addresses may be reached
(pure), :mod:`gate.text.redact` keeps keys out of everything stored or printed, ``providers`` knows the
search APIs, ``transport`` opens only checked connections under one deadline, ``web`` ties them
together and translates ``requests``' errors into :class:`gate.errors.LiveWebError`.
"""

from __future__ import annotations

from gate.live.policy import AllowList, address_allowed, parse_allow
from gate.live.providers import SEARCH_PROVIDERS, SearchProvider
from gate.live.web import LiveWeb
from gate.text.redact import REDACTED, redact, redact_headers

__all__ = [
    "SEARCH_PROVIDERS",
    "REDACTED",
    "AllowList",
    "LiveWeb",
    "SearchProvider",
    "address_allowed",
    "parse_allow",
    "redact",
    "redact_headers",
]
