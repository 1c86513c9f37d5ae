"""A report and its runs -> the spans of every case, with OpenInference kinds and attributes. Pure.

Per case, one trace::

    case <id>            CHAIN      question, answer, verdict, regime, the soft figures, every check,
    │                               hard failures and warnings (as events and attributes)
    ├── search           RETRIEVER  the literal query, the regime, each result as a retrieval document
    │   └── web_search   TOOL       the call to the search API: its latency and, where known, its cost
    ├── fetch_page       TOOL       one per page read: URL, HTTP status, final URL, the source's facts
    ├── llm              LLM        one per model call the trace recorded, but the last: model, tokens, cost
    ├── synthesis        LLM        the last model call (or the answer alone): the answer, its citations,
    │                               and the judged claims it made, each with its verdict and verified quote
    └── attempt          GUARDRAIL  one per draft the agent guarded: the URLs rejected, the findings, kept

Times come from the recording (:mod:`gate.deliver.spans.timing`): a timed search, page read or model
call is a span of its recorded start and duration; one the trace did not time is an instant at the
run's start (a page: when it was fetched) marked ``sourcegate.timing = not_recorded``. The case span
covers all of them. A run without any time starts at the Unix epoch.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from types import MappingProxyType

from gate.deliver.spans.ids import search_place, span_id, trace_id
from gate.deliver.spans.model import AttributeValue, SpanEvent, SpanSpec
from gate.deliver.spans.sources import SourceFacts, source_facts
from gate.deliver.spans.timing import TIMING, Window, nanos, window
from gate.model import Attempt, ModelCall, Page, Run, SearchResult
from gate.results import CaseResult, SearchCharge
from gate.usage.search import search_charges, total_cost
from gate.verdict.report import Report

__all__ = ["KIND", "build_spans"]

KIND = "openinference.span.kind"


def build_spans(report: Report, runs: Mapping[str, Run]) -> tuple[SpanSpec, ...]:
    """Every case's spans, in the report's case order; ``runs`` maps case ids to their runs."""
    out: list[SpanSpec] = []
    for result in report.cases:
        out.extend(_case_spans(report, result, runs.get(result.id)))
    return tuple(out)


def _iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def _attrs(pairs: Mapping[str, AttributeValue | None]) -> Mapping[str, AttributeValue]:
    return MappingProxyType({k: v for k, v in pairs.items() if v is not None})


def _run_start(run: Run) -> int:
    """Where the run starts (ns): its ``started_at``, else its first timed call or fetch, else 1970."""
    start = nanos(run.started_at)
    if start is not None:
        return start
    moments = [nanos(m) for m in (*(p.started_at or p.fetched_at for p in run.pages),
                                  *(c.started_at for c in run.searches), *(c.started_at for c in run.model_calls))]
    return min((m for m in moments if m is not None), default=0)


def _case_spans(report: Report, result: CaseResult, run: Run | None) -> list[SpanSpec]:
    trace = trace_id(report.golden_name, report.golden_version, result.id, run)
    root = span_id(trace, "case")
    if run is None:
        return [_root(report, result, None, trace, root, Window(0, 0, False), ())]
    facts = source_facts(run, result)
    start = _run_start(run)
    children: list[SpanSpec] = []
    timed = {c.query: c for c in run.searches}
    charges = _charges(result, run)
    by_query = {c.query: c for c in charges if c.query is not None}
    by_url = {c.url: c for c in reversed(charges) if c.url is not None}
    for index, query in _searches(run):
        place = search_place(index)
        retriever = span_id(trace, place)
        shown = [r for r in run.results if r.query == index]
        call = timed.get(index) if index is not None else None
        when = window(None, None, start) if call is None else window(call.started_at, call.duration_ms, start)
        children.append(SpanSpec(
            name="search", trace_id=trace, span_id=retriever, parent_id=root, start_ns=when.start, end_ns=when.end,
            attributes=_retriever_attributes(result, index, query, shown, facts, when)))
        children.append(SpanSpec(
            name="web_search", trace_id=trace, span_id=span_id(trace, f"{place}/tool"), parent_id=retriever,
            start_ns=when.start, end_ns=when.end, attributes=_attrs({
                KIND: "TOOL", "tool.name": "web_search",
                "input.value": json.dumps({"query": query}, ensure_ascii=False) if query is not None else None,
                "input.mime_type": "application/json" if query is not None else None,
                "sourcegate.results": len(shown), TIMING: when.timing,
                "sourcegate.latency_ms": call.duration_ms if call is not None else None,
                "sourcegate.search.depth": call.depth if call is not None else None,
                **_charged(by_query.get(index) if index is not None else None)})))
    children.extend(_page_spans(run, facts, trace, root, start, by_url))
    last = max([start, *(c.end_ns for c in children)])
    children.extend(_llm_spans(run, facts, trace, root, last, _claims(result)))
    last = max([last, *(c.end_ns for c in children)])
    children.extend(_attempt_span(attempt, i, trace, root, last) for i, attempt in enumerate(run.attempts))
    whole = Window(min([start, *(c.start_ns for c in children)]), max([start, *(c.end_ns for c in children)]),
                   False)
    return [_root(report, result, run, trace, root, whole, run.model_calls, charges), *children]


def _page_spans(run: Run, facts: SourceFacts, trace: int, root: int, start: int,
                by_url: dict[str, SearchCharge]) -> list[SpanSpec]:
    """A TOOL span per page the run read (an HTTP error marks it failed), each with what it cost when a
    provider read it."""
    spans = []
    for i, page in enumerate(run.pages):
        fetched = nanos(page.fetched_at)
        when = window(page.started_at, page.duration_ms, start if fetched is None else fetched)
        bad = page.status is not None and page.status >= 400
        spans.append(SpanSpec(
            name="fetch_page", trace_id=trace, span_id=span_id(trace, f"fetch/{i}"), parent_id=root,
            start_ns=when.start, end_ns=when.end,
            attributes=_page_attributes(page, facts, when, by_url.get(page.url) if page.provider else None),
            error=f"HTTP {page.status}" if bad else None))
    return spans


def _charges(result: CaseResult, run: Run) -> tuple[SearchCharge, ...]:
    """What the run's calls to search APIs cost, as the report priced them; for a case the report did not
    price (one of an earlier version), what the APIs' replies said they billed, the others without a price."""
    return result.search_charges or search_charges(run, {})


def _charged(charge: SearchCharge | None) -> dict[str, AttributeValue | None]:
    """A call to a search API: its provider, the kind of call, and its cost and where that comes from
    (``billed``, ``price_table``, ``replayed``, or ``no_price``, with no cost)."""
    if charge is None:
        return {}
    return {"sourcegate.search.provider": charge.provider, "sourcegate.search.operation": charge.operation,
            "sourcegate.search.credits": charge.credits, "sourcegate.cost_usd": charge.cost_usd,
            "sourcegate.cost_basis": charge.basis}


def _root(report: Report, result: CaseResult, run: Run | None, trace: int, root: int, whole: Window,
          calls: Sequence[ModelCall], charges: Sequence[SearchCharge] = ()) -> SpanSpec:
    attributes = dict(_root_attributes(report, result, run))
    costs = [c.cost_usd for c in calls] + [c.cost_usd for c in charges]
    known = [c for c in costs if c is not None]
    if known:
        attributes["sourcegate.cost_usd"] = sum(known)
    if charges:
        spent, unpriced = total_cost(tuple(charges))
        attributes["sourcegate.search.unpriced"] = unpriced
        if spent is not None:
            attributes["sourcegate.search.cost_usd"] = spent
    return SpanSpec(
        name=f"case {result.id}", trace_id=trace, span_id=root, parent_id=None, start_ns=whole.start,
        end_ns=whole.end, attributes=MappingProxyType(attributes), events=_events(result, whole.end),
        error=("hard failures: " + ", ".join(_failed_checks(result))) if result.failed else None)


def _llm_spans(run: Run, facts: SourceFacts, trace: int, root: int, last: int,
               claims: Mapping[str, AttributeValue | None]) -> list[SpanSpec]:
    """One LLM span per recorded model call (the last one gives the answer: ``synthesis``, with the
    judged ``claims`` of it), or one ``synthesis`` span at the end of the run when the trace recorded none."""
    calls = run.model_calls or (ModelCall(),)
    out = []
    for i, call in enumerate(calls):
        final = i == len(calls) - 1
        when = window(call.started_at, call.duration_ms, last)
        out.append(SpanSpec(
            name="synthesis" if final else "llm", trace_id=trace, parent_id=root,
            span_id=span_id(trace, "synthesis" if final else f"llm/{i}"), start_ns=when.start, end_ns=when.end,
            attributes=_llm_attributes(run, facts, call, when, final, i if run.model_calls else None,
                                       claims if final else {})))
    return out


def _attempt_span(attempt: Attempt, index: int, trace: int, root: int, last: int) -> SpanSpec:
    """One draft the agent guarded (an instant at the end of the run when the trace did not time it):
    its findings as the guardrail's output (JSON) and one event each."""
    when = window(attempt.started_at, attempt.duration_ms, last)
    findings = [{"check": f.check, "url": f.url, "message": f.message} for f in attempt.findings]
    return SpanSpec(
        name="attempt", trace_id=trace, span_id=span_id(trace, f"attempt/{index}"), parent_id=root,
        start_ns=when.start, end_ns=when.end, attributes=_attrs({
            KIND: "GUARDRAIL", TIMING: when.timing, "sourcegate.attempt.index": index,
            "sourcegate.attempt.kept": attempt.kept, "sourcegate.attempt.rejected": attempt.rejected or None,
            "output.value": json.dumps(findings, ensure_ascii=False), "output.mime_type": "application/json"}),
        events=tuple(SpanEvent("sourcegate.rejection", when.end, _attrs({
            "sourcegate.check": f.check, "sourcegate.message": f.message, "url.full": f.url}))
            for f in attempt.findings))


def _searches(run: Run) -> Iterable[tuple[int | None, str | None]]:
    """Each query with its index; results attributed to no query form one search of their own."""
    yield from enumerate(run.queries)
    if any(r.query is None for r in run.results):
        yield None, None


def _failed_checks(result: CaseResult) -> tuple[str, ...]:
    return tuple(dict.fromkeys(f.check for f in result.hard_failures))


def _root_attributes(report: Report, result: CaseResult, run: Run | None) -> Mapping[str, AttributeValue]:
    pairs: dict[str, AttributeValue | None] = {
        KIND: "CHAIN",
        "input.value": result.question,
        "input.mime_type": "text/plain",
        "output.value": None if run is None else run.answer,
        "output.mime_type": None if run is None else "text/plain",
        "sourcegate.case.id": result.id,
        "sourcegate.golden_set.name": report.golden_name,
        "sourcegate.golden_set.version": report.golden_version,
        "sourcegate.verdict": "fail" if result.failed else "pass",
        "sourcegate.gate.verdict": report.verdict,
        "sourcegate.regime": result.regime,
        "sourcegate.shape": result.shape,
        "sourcegate.hard_failures": _failed_checks(result),
        "sourcegate.hard_failure_count": len(result.hard_failures),
        "sourcegate.warnings": tuple(dict.fromkeys(w.kind for w in result.warnings)),
        "sourcegate.freshness.median_age_days": result.counts.median_source_age_days,
        "sourcegate.figures.citations": result.counts.citations,
        "sourcegate.figures.unique_domains": result.counts.unique_domains,
        "sourcegate.figures.results": result.counts.results,
        "sourcegate.figures.pages_read": result.counts.pages_read,
        "sourcegate.figures.retrieval_succeeded": result.counts.retrieval_succeeded,
    }
    for name, value in result.soft.items():
        pairs[f"sourcegate.soft.{name}"] = value
    for status in result.checks:
        pairs[f"sourcegate.check.{status.check}"] = status.status
    if run is not None:
        pairs.update({f"sourcegate.agent.{k}": v for k, v in run.agent})
    return _attrs(pairs)


def _claims(result: CaseResult) -> dict[str, AttributeValue | None]:
    """The judged claims of the answer: how many of each verdict, then each claim with its verdict, what
    the judge quoted and where, and the quote the code found on a page it read (``quote``: verified)."""
    judgement = result.judgement
    if judgement is None:
        return {}
    pairs: dict[str, AttributeValue | None] = {"sourcegate.claims.count": judgement.claim_count}
    for verdict, n in judgement.counts.items():
        pairs[f"sourcegate.claims.{verdict}"] = n
    verdicts = {v.claim_id: v for v in judgement.verdicts}
    found = {q.claim: q for q in reversed(result.quotes) if q.claim}  # the first quote of each claim
    for i, claim in enumerate(judgement.claims):
        v, quote = verdicts.get(claim.id), found.get(claim.id)
        at = f"sourcegate.claim.{i}"
        pairs.update({
            f"{at}.id": claim.id,
            f"{at}.text": claim.text,
            f"{at}.citations": claim.citations,
            f"{at}.verdict": (v.verdict if v is not None else None) or "unscored",
            f"{at}.unscored_reason": None if v is None else v.unscored_reason,
            f"{at}.evidence": None if v is None else v.evidence,
            f"{at}.located": None if v is None else v.located,
            f"{at}.located_url": None if v is None else v.located_url,
            f"{at}.overruled": None if v is None or not v.overruled else True,
            f"{at}.judge_verdict": None if v is None or not v.overruled else v.judge_verdict,
            f"{at}.overrule_reason": None if v is None else v.overrule_reason,
            f"{at}.quote": None if quote is None else quote.quote,
            f"{at}.quote_url": None if quote is None else quote.url,
        })
    return pairs


def _events(result: CaseResult, at: int) -> tuple[SpanEvent, ...]:
    failures = [SpanEvent("sourcegate.hard_failure", at, _attrs({
        "sourcegate.check": f.check, "sourcegate.message": f.message, "url.full": f.url}))
        for f in result.hard_failures]
    warnings = [SpanEvent("sourcegate.warning", at, _attrs({
        "sourcegate.warning": w.kind, "sourcegate.message": w.message})) for w in result.warnings]
    return tuple(failures + warnings)


def _retriever_attributes(result: CaseResult, index: int | None, query: str | None,
                          shown: list[SearchResult], facts: SourceFacts, when: Window) -> Mapping[str, AttributeValue]:
    pairs: dict[str, AttributeValue | None] = {
        KIND: "RETRIEVER",
        TIMING: when.timing,
        "input.value": query,
        "input.mime_type": None if query is None else "text/plain",
        "sourcegate.query.index": index,
        "sourcegate.regime": result.regime,
        "sourcegate.results": len(shown),
    }
    pairs.update(_query_scores(result, index))
    for j, r in enumerate(shown):
        doc = f"retrieval.documents.{j}.document"
        pairs[f"{doc}.id"] = r.url
        pairs[f"{doc}.content"] = r.snippet or r.title
        metadata = {"url": r.url, "title": r.title, "position": r.position, **facts.describe(r.url)}
        if r.published is not None:  # the result's own date (the source's facts may hold the page's)
            metadata["published"] = r.published.isoformat()
        pairs[f"{doc}.metadata"] = json.dumps(metadata, ensure_ascii=False, sort_keys=True)
    return _attrs(pairs)


def _query_scores(result: CaseResult, index: int | None) -> dict[str, AttributeValue | None]:
    """The judge's scores of the query at ``index`` and what of the case's constraints and entities it
    did not keep (each, where known)."""
    if index is None:
        return {}
    score = result.judgement.query_score(index) if result.judgement is not None else None
    kept = result.queries[index] if index < len(result.queries) else None
    return {
        "sourcegate.query.constraint_preservation": None if score is None else score.constraint_preservation,
        "sourcegate.query.entity_recall": None if score is None else score.entity_recall,
        "sourcegate.query.dropped_constraints": None if kept is None else kept.dropped_constraints,
        "sourcegate.query.dropped_entities": None if kept is None else kept.dropped_entities,
    }


def _page_attributes(page: Page, facts: SourceFacts, when: Window,
                     charge: SearchCharge | None) -> Mapping[str, AttributeValue]:
    source = facts.describe(page.url)
    pairs: dict[str, AttributeValue | None] = {
        KIND: "TOOL",
        TIMING: when.timing,
        "sourcegate.latency_ms": page.duration_ms,
        "tool.name": "fetch_page",
        "input.value": page.url,
        "input.mime_type": "text/plain",
        "output.value": page.text,
        "output.mime_type": "text/plain",
        "url.full": page.url,
        "http.response.status_code": page.status,
        "sourcegate.page.final_url": page.final_url,
        "sourcegate.page.truncated": page.truncated,
        "sourcegate.page.fetched_at": None if page.fetched_at is None else _iso(page.fetched_at),
        "sourcegate.page.published": None if page.published is None else page.published.isoformat(),
        **{f"sourcegate.source.{k}": v for k, v in source.items()},
        "sourcegate.search.depth": page.depth,
        **_charged(charge),
    }
    return _attrs(pairs)


def _llm_attributes(run: Run, facts: SourceFacts, call: ModelCall, when: Window, final: bool,
                    index: int | None, claims: Mapping[str, AttributeValue | None]) -> Mapping[str, AttributeValue]:
    pairs: dict[str, AttributeValue | None] = {
        KIND: "LLM",
        TIMING: when.timing,
        "llm.model_name": call.model or dict(run.agent).get("model"),
        "sourcegate.model_call.index": index,
        **_token_counts(call),
    }
    if final:
        pairs.update({
            "input.value": run.question,
            "input.mime_type": "text/plain",
            "output.value": run.answer,
            "output.mime_type": "text/plain",
            "llm.output_messages.0.message.role": "assistant",
            "llm.output_messages.0.message.content": run.answer,
            "sourcegate.citations": facts.cited_urls,
            **claims,
        })
    return _attrs(pairs)


def _token_counts(call: ModelCall) -> dict[str, AttributeValue | None]:
    """OpenInference's token counts (the prompt counts the cache's tokens too) and the cost."""
    parts = (call.input_tokens, call.cache_read_tokens, call.cache_write_tokens)
    prompt = None if all(p is None for p in parts) else sum(p or 0 for p in parts)
    total = None if prompt is None and call.output_tokens is None else (prompt or 0) + (call.output_tokens or 0)
    return {
        "llm.token_count.prompt": prompt,
        "llm.token_count.completion": call.output_tokens,
        "llm.token_count.total": total,
        "llm.token_count.prompt_details.cache_read": call.cache_read_tokens,
        "llm.token_count.prompt_details.cache_write": call.cache_write_tokens,
        "llm.cost.total": call.cost_usd,
        "sourcegate.latency_ms": call.duration_ms,
    }
