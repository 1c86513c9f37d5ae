"""Citation extraction and URL canonicalisation.

Everything here is pure and offline: the Public Suffix List comes from the snapshot bundled with
tldextract, never from the network. ``canonicalise.py`` owns the matching key of a URL, ``hosts.py``
its host as browsers read it, ``domains.py`` registered domains, ``extract.py`` which URLs an answer cites,
``anchors.py`` the links of a page's text (markdown and HTML).
"""

from __future__ import annotations

from gate.urls.canonicalise import canonical
from gate.urls.domains import is_under, registered_domain
from gate.urls.extract import extract_urls
from gate.urls.hosts import host

__all__ = ["canonical", "extract_urls", "host", "is_under", "registered_domain"]
