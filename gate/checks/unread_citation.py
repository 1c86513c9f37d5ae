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
            Finding(self.id, f"cited {raw}, which {_where(key, known)} but never fetched", raw)
            for key, raw in subject.cited.items()
            if (key in known or key in subject.in_question) and key not in subject.read
        ))


def _where(key: str, known: frozenset[str]) -> str:
    return "was in the search results" if key in known else "the question gave"
