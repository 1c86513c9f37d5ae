"""A partial report cannot forge a verdict: ``sourcegate merge`` checks every case again from its trace.

A shard's partial report comes from another job, which may be one where a pull request's code ran
(an agent re-run on the golden set): its cases are claims. Everything of a case except what the
judge answered is a pure function of the trace, the case, the configuration and the judgement: the
hard checks, the counts, the figures that need no judge (freshness, diversity, citation validity),
the judged figures (computed from the judgement's claims), the case warnings. So the merge runs them
again (:func:`gate.score.evaluate.evaluate_run`) on the golden set's traces as the merge job has them
(its ``runs/``, or ``--runs DIR``), with each shard's judgement, and refuses (an input error, exit 2,
naming the partial report, the case and the field) a partial report

* whose cases are not this golden set's, in the order its traces give (a case left out, added or
  moved: the shards agree with each other, not with the set);
* whose case differs in anything from what its trace gives (``hard_failures: []`` where the trace
  has a fabricated URL, a soft figure, a count, a check's status);
* that leaves out the judgement of a run the judge sees, or gives one to a run it does not.

What is left to the shard is the judge's reply itself: which claims a page supports. A judgement
must read back as its own claims make it (:func:`gate.store.merge.read_partial`), but its verdicts on
claims come from the shard's judge, which is why the shards of the sharded workflow run in jobs
where no pull-request code ran (``docs/trust.md``).

Reading traces is an edge; the checking is the pure core's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from itertools import zip_longest
from typing import Any

from gate.config import Config
from gate.errors import InputError
from gate.files.jsonio import excerpt
from gate.load.golden import BasePages, Pairing, iter_pairings
from gate.model import GoldenSet
from gate.results import CaseResult
from gate.score.evaluate import evaluate_run, problem_result
from gate.store.merge import Merged
from gate.store.serialise import case_from_dict, case_record

__all__ = ["rederive"]


def _judged(p: Pairing, judge_mode: str) -> bool:
    """Whether the shard's judge saw this run: one with an answer, under a judge that is not off."""
    if p.problem is not None or p.run is None:
        return False
    if p.run.replay is not None and p.run.replay.agent_error is not None:
        return False  # no answer to judge: its agent_error says so
    return judge_mode != "off"


def _derived(p: Pairing, claimed: Mapping[str, Any], config: Config, judge_mode: str, file: str,
             where: str) -> CaseResult:
    """The case as its trace gives it, with the shard's judgement where the judge saw it."""
    judged = _judged(p, judge_mode)
    if judged and "judgement" not in claimed:
        raise InputError(f"case {p.case.id!r} has no judgement, which every run with an answer has under "
                         f"judge mode {judge_mode}: a partial report cannot leave its judged claims out",
                         file=file, path=where)
    if not judged and "judgement" in claimed:
        raise InputError(f"case {p.case.id!r} has a judgement, which its run cannot have (the judge "
                         f"did not see it: {'judge mode off' if judge_mode == 'off' else 'no answer'})",
                         file=file, path=f"{where}.judgement")
    if p.problem is not None or p.run is None:
        return problem_result(p.case, p.problem or "no run")
    judgement = case_from_dict(claimed).judgement if judged else None
    return evaluate_run(p.run, p.case, config, judgement=judgement, frozen=p.frozen)


def _first_difference(claimed: Mapping[str, Any], derived: Mapping[str, Any]) -> str | None:
    """The first field (in the order sourcegate writes a case) whose value differs, or None."""
    return next((k for k in (*derived, *claimed) if claimed.get(k) != derived.get(k)), None)


def _shown(value: object) -> str:
    return excerpt(json.dumps(value, ensure_ascii=False, allow_nan=False), 160) if value is not None else "absent"


def rederive(merged: Merged, golden: GoldenSet, config: Config, frozen: BasePages | None = None,
             secrets: tuple[str, ...] = ()) -> None:
    """Check every merged case against its trace (see the module docstring); input errors name the
    partial report, the JSON path of the case and what differs. ``config`` is what the shards ran
    under (their digests were compared with it already); ``frozen``, the base revision's snapshot the
    pages are compared with, as in the shards; ``secrets``, the values redacted from the traces, as the
    shards redacted them."""
    pairings = iter_pairings(golden, frozen=frozen, secrets=secrets)
    for i, (p, record) in enumerate(zip_longest(pairings, merged.cases.records())):
        if p is None or record is None:
            more = "fewer" if p is None else "more"
            raise InputError(f"the shards have {len(merged.cases)} case(s) and this golden set's traces give "
                             f"{more}: the partial reports are not of these traces (a case left out or added)")
        claimed = json.loads(record)
        file, index = merged.origins[i]
        where = f"$.cases[{index}]"
        if claimed["id"] != p.case.id:
            raise InputError(f"the shards put case {claimed['id']!r} at position {i} of the run, where this "
                             f"golden set's traces have {p.case.id!r}: the partial reports are not of these "
                             "traces (a case left out, added or moved)", file=file, path=f"{where}.id")
        derived = json.loads(case_record(_derived(p, claimed, config, merged.judge_mode, file, where)))
        key = _first_difference(claimed, derived)
        if key is not None:
            raise InputError(f"case {p.case.id!r} does not follow from its trace: {key} is "
                             f"{_shown(claimed.get(key))} in the partial report and {_shown(derived.get(key))} "
                             "when the trace is checked again; a partial report cannot say what its trace "
                             "does not", file=file, path=f"{where}.{key}")
