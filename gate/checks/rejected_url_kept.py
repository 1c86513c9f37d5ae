"""``rejected_url_kept``: the final answer still cites or shows a URL that the agent's own guard rejected in
one of its attempts (the trace's ``attempts``: :meth:`gate.Recorder.regenerate`, the replay server's
``POST /guard``).

A rejected citation is a hard reject: the answer is regenerated without it. An answer that lists it
again, or leaves its link in the text after dropping it from the list, shows the reader the very URL the
agent knew was bad, whatever the other checks now say of it (a URL over the domain cap in one draft
may be within it in the next).
"""

from __future__ import annotations

from gate.checks.base import Subject
from gate.model import Finding, Outcome
from gate.urls import canonical


class RejectedUrlKept:
    """Cited or shown in the answer, after the guard rejected it in an attempt."""

    id = "rejected_url_kept"
    description = "The answer still cites or shows a URL the agent's guard rejected in an attempt."

    def run(self, subject: Subject) -> Outcome:
        """One finding per cited URL that an attempt rejected, naming the first attempt and its check."""
        attempts = subject.run.attempts
        if not attempts:
            return Outcome(not_checked="the trace records no attempts")
        rejected: dict[str, tuple[int, str]] = {}
        for n, attempt in enumerate(attempts, 1):
            checks = {canonical(f.url): f.check for f in attempt.findings if f.url is not None}
            for url in attempt.rejected:
                key = canonical(url)
                rejected.setdefault(key, (n, checks.get(key, "the guard")))
        return Outcome(findings=tuple(
            Finding(self.id, f"the answer cites {raw}, which the guard rejected in attempt {rejected[key][0]} "
                             f"({rejected[key][1]})", raw)
            for key, raw in subject.cited.items() if key in rejected))
