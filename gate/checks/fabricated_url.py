"""``fabricated_url``: a cited URL the agent never saw: no search result showed it, no redirect led to
it, the question did not give it, the agent did not fetch it, and no page it read links to it."""

from __future__ import annotations

from gate.checks.base import Subject
from gate.model import Finding, Outcome


class FabricatedUrl:
    """Cited, but never shown to the agent: it wrote the URL from memory.

    Seen is what the agent retrieved (``results | pages``) and what it was shown on the way:

    - a search result, or the final URL of a redirect a read page took;
    - a URL the question gives (the agent was handed it);
    - a page it fetched, whether or not a search listed it: a fetch that answered is grounded in
      what it read, and one that did not answer is ``url_unresolved``'s to report;
    - a link (markdown or HTML) in the text of a page it read that answered: the agent saw it on
      the page. Citing such a link without fetching it is ``unread_citation``, not this.
    """

    id = "fabricated_url"
    description = ("A cited URL the agent never saw (no search result, redirect, question, fetch or link on a "
                   "page it read showed it): it wrote the URL from memory.")

    def run(self, subject: Subject) -> Outcome:
        """One finding per cited URL that the agent never saw."""
        return Outcome(findings=tuple(
            Finding(self.id, f"cited {raw} but no search result, redirect or page the agent read ever showed it", raw)
            for key, raw in subject.cited.items()
            if not subject.seen(key)
        ))
