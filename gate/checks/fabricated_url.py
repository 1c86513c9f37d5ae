"""``fabricated_url``: a cited URL that no search result ever showed (nor any redirect led to, nor the
question gave)."""

from __future__ import annotations

from gate.checks.base import Subject
from gate.model import Finding, Outcome


class FabricatedUrl:
    """Cited, but never in any search result, the redirect target of a read page, or the question."""

    id = "fabricated_url"
    description = "A cited URL never appeared in any search result: the agent wrote it from memory."

    def run(self, subject: Subject) -> Outcome:
        """One finding per cited URL that the agent never saw."""
        # A URL the question gives was seen: fetching and citing it is reading what was asked about.
        known = subject.in_results | subject.redirect_targets | subject.in_question
        return Outcome(findings=tuple(
            Finding(self.id, _message(raw, fetched=key in subject.read), raw)
            for key, raw in subject.cited.items()
            if key not in known
        ))


def _message(raw: str, *, fetched: bool) -> str:
    if fetched:
        # The page exists and was read, but the URL itself came from the agent's memory: a guess
        # that happened to resolve is still a guess (url_unresolved catches the ones that did not).
        return f"cited {raw}, which no search result showed: the agent fetched a URL it wrote itself"
    return f"cited {raw} but no search result or redirect ever showed it"
