"""``no_primary_source``: a case class that must cite a primary source cites none.

The classes come from ``checks.require_primary`` (default ``regulatory``, ``medical``, ``legal``).
A source is primary when a rule says so (the case's own site, a government or standards body, a
documentation host) or the judge typed it so; a source neither typed is *unknown*, and an unknown
source never counts as primary. The failure stands however grounded the answer is: a regulatory
answer built on an encyclopedia and a forum is not sourced, even if every sentence is on them.
"""

from __future__ import annotations

from gate.checks.base import Subject
from gate.model import Finding, Outcome


def source_kinds(subject: Subject) -> dict[str, str | None]:
    """Cited URL (as cited) -> ``primary``, ``secondary`` or None (unknown), in citation order."""
    return {raw: subject.source_kind(key) for key, raw in subject.cited.items()}


class NoPrimarySource:
    """Zero primary citations in a case whose class requires one."""

    id = "no_primary_source"
    description = "A case class that requires primary sources cites none."

    def run(self, subject: Subject) -> Outcome:
        """A finding when the class requires a primary source and no cited source is primary."""
        cls = subject.case.cls
        if cls is None or cls not in subject.config.require_primary:
            return Outcome()  # nothing is required of this class: nothing can be missing
        if not subject.cited:
            return Outcome(not_checked="no citations")
        kinds = source_kinds(subject)
        if "primary" in kinds.values():
            return Outcome()
        unknown = [u for u, k in kinds.items() if k is None]
        secondary = len(kinds) - len(unknown)
        also = f"; unknown (never primary): {', '.join(unknown)}" if unknown else ""
        return Outcome(findings=(Finding(
            self.id,
            f"a {cls} case must cite a primary source: {len(kinds)} cited, {secondary} secondary{also}",
        ),))
