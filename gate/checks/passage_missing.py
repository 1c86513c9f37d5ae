"""``passage_missing``: a quoted passage that is not on the page it is attributed to."""

from __future__ import annotations

from gate.checks.base import Subject
from gate.model import Finding, Outcome
from gate.urls import canonical


class PassageMissing:
    """A citation's quote must be on the cited page (normalised exact, then fuzzy match)."""

    id = "passage_missing"
    description = "A passage attributed to a source is not on that page."

    def run(self, subject: Subject) -> Outcome:
        """One finding per quoted citation whose passage the page does not hold."""
        threshold = subject.config.passage_threshold
        findings = []
        quoted = 0
        for c in subject.citations:
            if not c.quote or not c.quote.strip():
                continue
            page = subject.read.get(canonical(c.url))
            if page is None:
                continue  # never read: reported by unread_citation / fabricated_url
            quoted += 1
            match = subject.index(page).find(c.quote, threshold)
            if not match.found:
                short = c.quote if len(c.quote) <= 120 else c.quote[:117] + "..."
                note = " (the page was truncated when read)" if page.truncated else ""
                findings.append(Finding(
                    self.id,
                    f"quote not on {c.url} (best match {match.score:.0f}/100, needs {threshold:.0f}){note}: "
                    f"\"{short}\"",
                    c.url,
                ))
        if not quoted:
            return Outcome(not_checked="no quoted passages on read pages")
        return Outcome(findings=tuple(findings))
