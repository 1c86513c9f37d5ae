"""The hard checks a citation can fail, run on a recording in progress: the agent's own guardrail.

Pure: a :class:`gate.model.Run` built in memory goes in, the findings of the citation checks come
out. These are the real checks of :data:`gate.checks.CHECKS`, the same the gate runs in CI, so
an answer the guard lets through cannot fail them there for the same pages. The checks that judge
the answer as a whole (``no_citations``, ``domain_floor``, ``stale_sources``) are left to the gate.
"""

from __future__ import annotations

from dataclasses import replace

from gate.checks import CHECKS, Subject
from gate.config import Config
from gate.model import Case, Finding, Run
from gate.passage import PageIndex

GUARD_CHECKS = ("fabricated_url", "unread_citation", "url_unresolved", "passage_missing", "domain_cap")
"""The checks whose findings each name one citation that can be dropped or replaced."""


def guard(run: Run, case: Case, config: Config, indexes: dict[int, PageIndex] | None = None) -> tuple[Finding, ...]:
    """The citations of ``run`` that fail a citation check, each with the check's reason.

    ``indexes`` (page id -> its normalised text) carries page indexes from one call to the next,
    so a page read once is normalised once however often the answer is checked.
    """
    subject = Subject.build(run, case, config)
    if indexes is not None:
        subject = replace(subject, _indexes=indexes)
    found: list[Finding] = []
    for check_id in GUARD_CHECKS:
        if check_id not in config.disabled:
            found.extend(CHECKS[check_id].run(subject).findings)
    return tuple(found)
