"""The hard checks a draft can fail, run on a recording in progress: the agent's own guardrail.

Pure: a :class:`gate.model.Run` built in memory goes in, the findings of the checks come out. These
are the real checks of :data:`gate.checks.CHECKS`, the same the gate runs in CI, so an answer the
guard lets through cannot fail them there for the same pages and case. They are every hard check
that the draft, the run so far and the case decide alone (:data:`GUARD_CHECKS`); ``stale_sources``
and ``no_primary_source`` are left to the gate, which may take the question's freshness regime or a
source's type from its judge.
"""

from __future__ import annotations

from dataclasses import replace

from gate.checks import CHECKS, Subject
from gate.checks.closest import Closest
from gate.checks.passage import Match, PageIndex, WorkBudget
from gate.config import Config
from gate.model import Case, Finding, Run

GUARD_CHECKS = ("fabricated_url", "unread_citation", "url_unresolved", "passage_missing", "domain_cap",
                "no_citations", "domain_floor", "rejected_url_kept")
"""The hard checks a draft can be refused by: a finding names the citation to drop or replace (its URL), or
says what the answer as a whole lacks (``no_citations``, ``domain_floor``: no URL). ``rejected_url_kept``
refuses a draft that brings back a URL an earlier attempt of the run rejected."""


class _Remembered(PageIndex):
    """A page index that answers a passage it was asked before from memory (a Match is a value)."""

    __slots__ = ("_closest", "_found")

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self._found: dict[str, Match] = {}
        self._closest: dict[str, Closest | None | str] = {}

    def find(self, passage: str, budget: WorkBudget | None = None) -> Match:
        """The same answer as :meth:`PageIndex.find`, computed once per passage.

        A miss under a run's ``budget`` may be the budget's doing (no typo forgiven once it is
        spent), so only a match, or a miss with no budget in play, is remembered.
        """
        found = self._found.get(passage)
        if found is None:
            found = super().find(passage, budget)
            if found.found or budget is None:
                self._found[passage] = found
        return found

    def closest(self, part: str, budget: WorkBudget | None = None) -> Closest | None | str:
        """The same answer as :meth:`PageIndex.closest`, computed once per part (a bound not met is asked again)."""
        if part in self._closest:
            return self._closest[part]
        found = super().closest(part, budget)
        if not isinstance(found, str):
            self._closest[part] = found
        return found


def guard(run: Run, case: Case, config: Config, indexes: dict[int, PageIndex] | None = None) -> tuple[Finding, ...]:
    """What in ``run``'s answer fails a check of :data:`GUARD_CHECKS`, each finding with the check's reason.

    ``indexes`` (``id(page)`` -> its index) carries what was learnt of each page from one call to
    the next: a page is normalised once, and a quote kept through a regeneration is not searched
    for again. The caller keeps the pages alive (the recorder holds them), so ids stay unique.
    """
    subject = Subject.build(run, case, config)
    if indexes is not None:
        for page in run.pages:
            if id(page) not in indexes:
                indexes[id(page)] = _Remembered(page.text)
        subject = replace(subject, _indexes=indexes)
    found: list[Finding] = []
    for check_id in GUARD_CHECKS:
        if check_id not in config.disabled:
            found.extend(CHECKS[check_id].run(subject).findings)
    return tuple(found)
