"""``unread_citation``: a cited URL the agent was shown (by a search, the question, or a link on a page
it read) but never opened."""

from __future__ import annotations

from gate.checks.base import Subject
from gate.model import Finding, Outcome


class UnreadCitation:
    """Cited and seen, but never fetched (a URL gets at most one of this and fabricated_url).

    Seen is a search result or a redirect target, a URL the question gives, or a link on a page the
    agent read: a link seen on a page is not made up, but citing it unread cites what the agent
    never opened.
    """

    id = "unread_citation"
    description = ("A cited URL appeared in search results, the question or a page the agent read, but the agent "
                   "never read the page.")

    def run(self, subject: Subject) -> Outcome:
        """One finding per cited URL that was seen but not read."""
        return Outcome(findings=tuple(
            Finding(self.id, f"cited {raw}, which {_where(subject, key)} but never fetched", raw)
            for key, raw in subject.cited.items()
            if key not in subject.read and subject.seen(key)
        ))


def _where(subject: Subject, key: str) -> str:
    if key in subject.in_results or key in subject.redirect_targets:
        return "was in the search results"
    if key in subject.in_question:
        return "the question gave"
    return f"a page the agent read links to ({subject.linked()[key]})"
