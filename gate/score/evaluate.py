"""The pure core of one case: a case and its run in, a :class:`CaseResult` out.

No I/O here: loading happens before, rendering after.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING

from gate.checks import CHECKS, Check, Subject
from gate.checks.domains import cited_domains
from gate.checks.frozen_web import frozen_findings
from gate.checks.run_findings import run_findings
from gate.checks.stale_sources import median_age_days
from gate.config import Config
from gate.load.golden import Pairing
from gate.model import SENTENCE_KEPT, Case, Finding, Freshness, FrozenPages, Outcome, Run
from gate.results import CHECK_ERROR, INPUT_ERROR, CaseResult, CaseWarning, CheckStatus, Counts
from gate.score.alignment import citation_validity
from gate.score.case_warnings import case_warnings, dropped_terms, query_survival
from gate.score.citations import citation_marks, kept_answer, page_quotes
from gate.score.figures import REGENERATION, diversity, freshness, needed_regeneration
from gate.urls import canonical
from gate.urls.supported import sentences_by_citation
from gate.usage.search import search_charges, total_cost

if TYPE_CHECKING:
    from gate.judgement import RunJudgement


def retrieval_succeeded(subject: Subject, relevance: int | None = None) -> bool:
    """Enough results and pages (the count rule) and, when the judge scored it, relevant enough results."""
    run, cfg = subject.run, subject.config
    counted = len(run.results) >= cfg.min_results and subject.pages_loaded >= cfg.min_pages
    return counted and (relevance is None or relevance >= cfg.min_relevance)


def counts(subject: Subject, relevance: int | None = None) -> Counts:
    """The reported counts for one run; ``relevance`` is the judged relevance of its search results."""
    run = subject.run
    return Counts(
        citations=len(subject.cited),
        unique_domains=len(cited_domains(subject)),
        results=len(run.results),
        pages_read=len(run.pages),
        quoted_citations=sum(1 for c in subject.citations if c.quote and c.quote.strip()),
        retrieval_succeeded=retrieval_succeeded(subject, relevance),
        median_source_age_days=median_age_days(subject),
    )


@lru_cache(maxsize=4096)
def _status(check: str, status: str, reason: str | None) -> CheckStatus:
    # Statuses repeat across runs (8 checks x a handful of reasons): one shared frozen value each
    # keeps a large set's report from growing by thousands of identical objects.
    return CheckStatus(check, status, reason)


def _run_check(check_id: str, check: Check, subject: Subject) -> Outcome:
    """One check on one run; a check that raises is our bug, reported as a ``check_error`` finding of
    this case (the other checks and cases still run), never an aborted set and never a pass."""
    try:
        return check.run(subject)
    except Exception as e:  # any exception of a check is a bug in it: isolate it to this run
        why = f"the {check_id} check raised {type(e).__name__}: {e} (an internal error: please report it)"
        return Outcome(findings=(Finding(CHECK_ERROR, why),), not_checked=why)


def with_sentences(findings: Sequence[Finding], answer: str) -> tuple[Finding, ...]:
    """``findings``, each with a URL given the first sentence of ``answer`` that cites that URL (cut
    to :data:`gate.model.SENTENCE_KEPT` characters), when there is one."""
    if not any(f.url is not None for f in findings):
        return tuple(findings)
    by_url = sentences_by_citation(answer)
    out = []
    for f in findings:
        text = by_url.get(canonical(f.url)) if f.url is not None and f.sentence is None else None
        if text is not None and len(text) > SENTENCE_KEPT:
            text = text[: SENTENCE_KEPT - 1].rstrip() + "…"
        out.append(replace(f, sentence=text) if text is not None else f)
    return tuple(out)


def evaluate_run(run: Run, case: Case, config: Config, judged_regime: Freshness | None = None, *,
                 judgement: RunJudgement | None = None, checks: Mapping[str, Check] = CHECKS,
                 subject: Subject | None = None, frozen: FrozenPages | None = None) -> CaseResult:
    """Run every enabled hard check on one run, and fold in what the judge said of it, if anything.

    With a ``judgement``, its regime stands in for a case without one (``judged_regime`` by default),
    its source types count in ``diversity`` and ``no_primary_source``, its figures join the soft figures,
    and its claims make the (claim, URL) pairs of ``citation_validity``. ``checks`` is the registry
    to run (default: :data:`gate.checks.CHECKS`). ``subject`` is the run as the pipeline prepared it
    for the judge (:meth:`Subject.build` of this run, case and configuration): the pages the judge
    normalised are not normalised again (None: prepared here). ``frozen``: what the base revision's
    snapshot recorded for the run's pages (:mod:`gate.checks.frozen_web`; None: nothing to compare with).
    """
    if judged_regime is None and judgement is not None:
        judged_regime = judgement.regime
    kinds = {s.url: s.kind for s in judgement.source_types} if judgement is not None else None
    if subject is None:
        subject = Subject.build(run, case, config, judged_regime, kinds)
    else:
        subject = subject.with_judgement(judged_regime, kinds)
    failures: list[Finding] = []
    statuses: list[CheckStatus] = []
    notes: list[str] = []
    warned: list[CaseWarning] = []
    soft_findings: list[Finding] = []
    ran, run_warnings = run_findings(run, config)
    failures.extend(ran)
    warned.extend(run_warnings)
    evidence, unrecorded = frozen_findings(run, frozen, config)
    failures.extend(evidence)
    for check_id, check in checks.items():
        if check_id in config.disabled:
            statuses.append(_status(check_id, "disabled", None))
            continue
        if run.replay is not None and run.replay.agent_error is not None:
            # The agent gave no answer: its agent_error says so once, instead of every check failing.
            statuses.append(_status(check_id, "not_checked", "the agent gave no answer"))
            continue
        outcome = _run_check(check_id, check, subject)
        raised = any(f.check == CHECK_ERROR for f in outcome.findings)
        if outcome.findings and not raised and not config.blocks(check_id):
            # A soft check's findings are shown as case warnings; they never fail the case.
            warned.extend(CaseWarning(f.check, f.message) for f in outcome.findings)
            soft_findings.extend(outcome.findings)
            statuses.append(_status(check_id, "warn", None))
        else:
            failures.extend(outcome.findings)
            statuses.append(_status(check_id, outcome.status, outcome.not_checked))
        notes.extend(f"{check_id}: {n}" for n in outcome.notes)
    charges = search_charges(run, config.search_prices)
    spent, unpriced = total_cost(charges)
    counted = replace(counts(subject, judgement.retrieval_relevance if judgement is not None else None),
                      search_cost_usd=spent, unpriced_searches=unpriced)
    axes = {"freshness": freshness(subject), "diversity": diversity(subject),
            "citation_validity": citation_validity(subject, tuple(failures), judgement)}
    soft = {
        **{name: axis.value for name, axis in axes.items()},
        **(judgement.figures() if judgement is not None else {}),
        REGENERATION: needed_regeneration(run),
    }
    constraints, entities = dropped_terms(case, run)
    answer, dropped = kept_answer(run.answer)
    marks = citation_marks(subject, (*failures, *soft_findings), {s.check: s.status for s in statuses}, judgement)
    return CaseResult(
        id=case.id, question=case.question, hard_failures=with_sentences(failures, run.answer),
        checks=tuple(statuses),
        counts=counted, notes=tuple(notes), regime=subject.regime, shape=run.shape,
        soft=MappingProxyType(soft), judgement=judgement,
        axes=MappingProxyType({name: axis.note for name, axis in axes.items()}),
        dropped_constraints=constraints, dropped_entities=entities,
        warnings=(*case_warnings(case, run, judgement), *warned),
        answer=answer, answer_dropped=dropped, citations=marks, quotes=page_quotes(subject, judgement),
        queries=query_survival(case, run), search_charges=charges,
        unrecorded_pages=unrecorded,
        attempts=tuple(replace(a, started_at=None, duration_ms=None) for a in run.attempts),
    )


def problem_result(case: Case, problem: str) -> CaseResult:
    """A case whose run is missing or unknown: an input error that fails the gate."""
    return CaseResult(
        id=case.id, question=case.question,
        hard_failures=(Finding(INPUT_ERROR, problem),), checks=(), counts=Counts(),
    )


def evaluate_pairing(p: Pairing, config: Config, checks: Mapping[str, Check] = CHECKS) -> CaseResult:
    """Evaluate one case/run pairing."""
    if p.problem is not None or p.run is None:
        return problem_result(p.case, p.problem or "no run")
    return evaluate_run(p.run, p.case, config, checks=checks, frozen=p.frozen)
