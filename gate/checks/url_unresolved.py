"""``url_unresolved``: a cited page that did not load, or that redirected to another site."""

from __future__ import annotations

from gate.checks.base import Subject
from gate.model import Finding, Outcome
from gate.urls import canonical, host, registered_domain


class UrlUnresolved:
    """The recorded fetch of a cited URL failed, or sent the reader to a different site."""

    id = "url_unresolved"
    description = "A cited URL did not resolve (non-2xx) or redirected to another registered domain."

    def run(self, subject: Subject) -> Outcome:
        """One finding per cited URL whose fetch failed or left its site."""
        if subject.minimal:
            return Outcome(not_checked="the minimal trace shape records no HTTP status")
        findings = []
        unknown = 0
        read = 0
        for key, raw in subject.cited.items():
            page = subject.read.get(key)
            if page is None:
                continue  # never read: unread_citation or fabricated_url says so
            read += 1
            if page.status is None:
                unknown += 1
            elif not 200 <= page.status < 300:
                findings.append(Finding(self.id, f"fetching {raw} returned HTTP {page.status}", raw))
                continue
            # Citing the final URL of a redirect is fine; citing the requested one is not
            # when the redirect left the site (a parked or hijacked domain, a login wall...).
            if page.final_url and canonical(page.url) == key:
                before = registered_domain(host(page.url))
                after = registered_domain(host(page.final_url))
                if before != after:
                    findings.append(Finding(
                        self.id, f"{raw} redirected to another site: {page.final_url}", raw))
        if not read:
            return Outcome(not_checked="no cited page was read")
        if not findings and unknown == read:
            return Outcome(not_checked="the trace records no HTTP status for the cited pages")
        return Outcome(findings=tuple(findings))
