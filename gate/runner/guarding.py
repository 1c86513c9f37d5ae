"""A case's guard on the replay server (``POST /guard``): the gate's hard checks on a draft, against what the
case was served so far. Pure.

An agent that is not in Python guards its drafts through the replay server
(:mod:`gate.replay.routes.guard`); this is what the server asks of the case's scope. The run the draft is
checked against is the one :mod:`gate.runner.assemble` would assemble from the same calls, its earlier
drafts its attempts, and the checks are :func:`gate.record.guard.guard`'s, under the golden set's case
and configuration: what the gate then checks in CI, for the same pages.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from gate.config import Config
from gate.model import Case, Citation, Run
from gate.record.guard import guard
from gate.record.regenerate import rejected_urls
from gate.replay.routes.guard import attempts_of
from gate.replay.routes.wire import Guarded, Served
from gate.runner.assemble import served
from gate.runner.scope import DraftGuard

__all__ = ["case_guard"]

_UNTIMED = datetime(1970, 1, 1, tzinfo=UTC)
"""The start the served calls are timed from: the checks of a draft read no time."""


def case_guard(case: Case, config: Config) -> DraftGuard:
    """The guard of ``case``'s drafts, under ``config`` (its ``checks.disabled``, ``domain_cap``, ...)."""
    def check(calls: Sequence[Served], answer: str, citations: tuple[Citation, ...] | None) -> Guarded:
        got = served(calls, _UNTIMED)
        earlier = attempts_of(calls, None, None)
        run = Run(case=case.id, question=case.question, answer=answer, queries=got.queries, results=got.results,
                  pages=got.pages, citations=citations, attempts=earlier)
        findings = guard(run, case, config)
        so_far = dict.fromkeys(u for a in earlier for u in a.rejected)
        so_far.update(dict.fromkeys(rejected_urls(findings)))
        return Guarded(len(earlier) + 1, findings, tuple(so_far))

    return check
