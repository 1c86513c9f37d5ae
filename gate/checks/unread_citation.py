"""``unread_citation``: a cited URL the search showed but the agent never opened."""

from __future__ import annotations

from gate.checks.base import Subject
from gate.model import Finding, Outcome


class UnreadCitation:
    """Cited and seen in results, but never fetched (at most one of this and fabricated_url)."""

    id = "unread_citation"
    description = "A cited URL appeared in search results but the agent never read the page."

    def run(self, subject: Subject) -> Outcome:
        """One finding per cited URL that was found but not read."""
        known = subject.in_results | subject.redirect_targets
        return Outcome(findings=tuple(
            Finding(self.id, f"cited {raw}, which was in the search results but never fetched", raw)
            for key, raw in subject.cited.items()
            if key in known and key not in subject.read
        ))
