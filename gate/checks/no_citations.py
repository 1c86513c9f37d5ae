"""``no_citations``: the answer cites nothing at all."""

from __future__ import annotations

from gate.checks.base import Subject
from gate.model import Finding, Outcome


class NoCitations:
    """An answer without a single citation cannot be checked against its sources."""

    id = "no_citations"
    description = "The answer cites no source."

    def run(self, subject: Subject) -> Outcome:
        """A finding when the run cites nothing."""
        if subject.cited:
            return Outcome()
        return Outcome(findings=(Finding(self.id, "the answer cites no source"),))
