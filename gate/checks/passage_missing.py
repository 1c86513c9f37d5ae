"""``passage_missing``: a quoted passage that is not on the page it is attributed to."""

from __future__ import annotations

from gate.checks.base import Subject
from gate.checks.passage import WorkBudget, normalise
from gate.model import Finding, Outcome
from gate.urls import canonical


class PassageMissing:
    """A citation's quote must be on the cited page (normalised exact, then fuzzy match).

    A quote or page past the fuzzy match's bounds (:data:`gate.checks.passage.MAX_FUZZY_QUOTE_CHARS` and
    the others) must be on the page exactly; otherwise it is a finding that says it was too large
    to check fuzzily. So is a quote left once the run's quotes have spent
    :data:`gate.checks.passage.MAX_RUN_FUZZY_WORK`.
    """

    id = "passage_missing"
    description = "A passage attributed to a source is not on that page."

    def run(self, subject: Subject) -> Outcome:
        """One finding per quoted citation whose passage the page does not hold."""
        threshold = subject.config.passage_threshold
        findings = []
        quoted = 0
        seen: set[tuple[str, str]] = set()
        budget = WorkBudget()  # all the run's quotes share one bound on the fuzzy work
        for c in subject.citations:
            if not c.quote or not c.quote.strip():
                continue
            key = canonical(c.url)
            pages = subject.texts(key)
            if not pages:
                continue  # never read: reported by unread_citation / fabricated_url
            # A URL cited again with another quote has that quote checked too; the same quote again
            # (however it is spaced or cased) gets the same answer, so it is not a second failure.
            if (key, normalise(c.quote)) in seen:
                continue
            seen.add((key, normalise(c.quote)))
            quoted += 1
            # A page read more than once (in parts, or again) holds the quote if any read of it does.
            match = max((subject.index(p).find(c.quote, threshold, budget) for p in pages),
                        key=lambda m: (m.found, m.score))
            if not match.found:
                short = c.quote if len(c.quote) <= 120 else c.quote[:117] + "..."
                cut = all(p.truncated for p in pages)
                note = " (the page was truncated when read)" if cut else ""
                if match.too_large is not None:
                    # Not a silent pass: a quote too large to align is held to the exact search.
                    why = f"not on the page exactly; too large to check fuzzily: {match.too_large}"
                elif match.method == "number_mismatch":
                    why = f"a close match ({match.score:.0f}/100) has other numbers than the quote"
                else:
                    why = f"best match {match.score:.0f}/100, needs {threshold:.0f}"
                findings.append(Finding(self.id, f"quote not on {c.url} ({why}){note}: \"{short}\"", c.url))
        if not quoted:
            return Outcome(not_checked="no quoted passages on read pages")
        return Outcome(findings=tuple(findings))
