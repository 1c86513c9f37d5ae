"""A report and its runs -> the spans of every case, with OpenInference kinds and attributes. Pure.

Per case, one trace::

    case <id>            CHAIN      question, answer, verdict, regime, the soft figures, every check,
    │                               hard failures and warnings (as events and attributes)
    ├── search           RETRIEVER  the literal query, the regime, each result as a retrieval document
    │   └── web_search   TOOL       the call to the search API
    ├── fetch_page       TOOL       one per page read: URL, HTTP status, final URL, the source's facts
    └── synthesis        LLM        the model and the answer

Times come from the recording: the root starts at the run's ``started_at`` and ends at its last
``fetched_at``; a page fetch starts when it was fetched. A trace records no durations, so the
spans it gives no end are instants. A run without any time starts at the Unix epoch.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import datetime
from types import MappingProxyType
from typing import TYPE_CHECKING

from gate.deliver.spans.ids import span_id, trace_id
from gate.deliver.spans.model import AttributeValue, SpanEvent, SpanSpec
from gate.deliver.spans.sources import SourceFacts, source_facts
from gate.model import Page, Run, SearchResult
from gate.results import CaseResult
from gate.verdict.report import Report

if TYPE_CHECKING:
    from gate.judge.model import RunJudgement

__all__ = ["KIND", "build_spans"]

KIND = "openinference.span.kind"


def build_spans(report: Report, runs: Mapping[str, Run]) -> tuple[SpanSpec, ...]:
    """Every case's spans, in the report's case order; ``runs`` maps case ids to their runs."""
    out: list[SpanSpec] = []
    for result in report.cases:
        out.extend(_case_spans(report, result, runs.get(result.id)))
    return tuple(out)


def _ns(moment: datetime | None) -> int | None:
    return None if moment is None else int(moment.timestamp()) * 1_000_000_000 + moment.microsecond * 1000


def _times(run: Run | None) -> tuple[int, int]:
    """(start, end) of the run in ns: its start (else its first fetch) to its last fetch."""
    if run is None:
        return 0, 0
    fetched = [t for t in (_ns(p.fetched_at) for p in run.pages) if t is not None]
    start = _ns(run.started_at)
    if start is None:
        start = min(fetched, default=0)
    return start, max([start, *fetched])


def _iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def _attrs(pairs: Mapping[str, AttributeValue | None]) -> Mapping[str, AttributeValue]:
    return MappingProxyType({k: v for k, v in pairs.items() if v is not None})


def _case_spans(report: Report, result: CaseResult, run: Run | None) -> list[SpanSpec]:
    trace = trace_id(report.golden_name, report.golden_version, result.id)
    root = span_id(trace, "case")
    start, end = _times(run)
    spans = [SpanSpec(
        name=f"case {result.id}", trace_id=trace, span_id=root, parent_id=None, start_ns=start, end_ns=end,
        attributes=_root_attributes(report, result, run), events=_events(result, end),
        error=("hard failures: " + ", ".join(_failed_checks(result))) if result.failed else None,
    )]
    if run is None:
        return spans
    facts = source_facts(run, result)
    for index, query in _searches(run):
        place = f"search/{'unattributed' if index is None else index}"
        retriever = span_id(trace, place)
        shown = [r for r in run.results if r.query == index]
        spans.append(SpanSpec(
            name="search", trace_id=trace, span_id=retriever, parent_id=root, start_ns=start, end_ns=start,
            attributes=_retriever_attributes(result, index, query, shown, facts)))
        spans.append(SpanSpec(
            name="web_search", trace_id=trace, span_id=span_id(trace, f"{place}/tool"), parent_id=retriever,
            start_ns=start, end_ns=start, attributes=_attrs({
                KIND: "TOOL", "tool.name": "web_search",
                "input.value": json.dumps({"query": query}, ensure_ascii=False) if query is not None else None,
                "input.mime_type": "application/json" if query is not None else None,
                "sourcegate.results": len(shown)})))
    for i, page in enumerate(run.pages):
        moment = _ns(page.fetched_at)
        at = start if moment is None else moment
        bad = page.status is not None and page.status >= 400
        spans.append(SpanSpec(
            name="fetch_page", trace_id=trace, span_id=span_id(trace, f"fetch/{i}"), parent_id=root,
            start_ns=at, end_ns=at, attributes=_page_attributes(page, facts),
            error=f"HTTP {page.status}" if bad else None))
    spans.append(SpanSpec(
        name="synthesis", trace_id=trace, span_id=span_id(trace, "synthesis"), parent_id=root,
        start_ns=end, end_ns=end, attributes=_llm_attributes(run, facts)))
    return spans


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
    if result.judgement is not None:
        pairs.update(_claims(result.judgement))
    if run is not None:
        pairs.update({f"sourcegate.agent.{k}": v for k, v in run.agent})
    return _attrs(pairs)


def _claims(judgement: RunJudgement) -> dict[str, AttributeValue | None]:
    pairs: dict[str, AttributeValue | None] = {"sourcegate.claims.count": judgement.claim_count}
    for verdict, n in judgement.counts.items():
        pairs[f"sourcegate.claims.{verdict}"] = n
    return pairs


def _events(result: CaseResult, at: int) -> tuple[SpanEvent, ...]:
    failures = [SpanEvent("sourcegate.hard_failure", at, _attrs({
        "sourcegate.check": f.check, "sourcegate.message": f.message, "url.full": f.url}))
        for f in result.hard_failures]
    warnings = [SpanEvent("sourcegate.warning", at, _attrs({
        "sourcegate.warning": w.kind, "sourcegate.message": w.message})) for w in result.warnings]
    return tuple(failures + warnings)


def _retriever_attributes(result: CaseResult, index: int | None, query: str | None,
                          shown: list[SearchResult], facts: SourceFacts) -> Mapping[str, AttributeValue]:
    pairs: dict[str, AttributeValue | None] = {
        KIND: "RETRIEVER",
        "input.value": query,
        "input.mime_type": None if query is None else "text/plain",
        "sourcegate.query.index": index,
        "sourcegate.regime": result.regime,
        "sourcegate.results": len(shown),
    }
    if result.judgement is not None and index is not None:
        for score in result.judgement.query_scores:
            if score.index == index:
                pairs["sourcegate.query.constraint_preservation"] = score.constraint_preservation
                pairs["sourcegate.query.entity_recall"] = score.entity_recall
    for j, r in enumerate(shown):
        doc = f"retrieval.documents.{j}.document"
        pairs[f"{doc}.id"] = r.url
        pairs[f"{doc}.content"] = r.snippet or r.title
        metadata = {"url": r.url, "title": r.title, "position": r.position, **facts.describe(r.url)}
        if r.published is not None:  # the result's own date (the source's facts may hold the page's)
            metadata["published"] = r.published.isoformat()
        pairs[f"{doc}.metadata"] = json.dumps(metadata, ensure_ascii=False, sort_keys=True)
    return _attrs(pairs)


def _page_attributes(page: Page, facts: SourceFacts) -> Mapping[str, AttributeValue]:
    source = facts.describe(page.url)
    pairs: dict[str, AttributeValue | None] = {
        KIND: "TOOL",
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
    }
    return _attrs(pairs)


def _llm_attributes(run: Run, facts: SourceFacts) -> Mapping[str, AttributeValue]:
    model = dict(run.agent).get("model")
    return _attrs({
        KIND: "LLM",
        "llm.model_name": model,
        "input.value": run.question,
        "input.mime_type": "text/plain",
        "output.value": run.answer,
        "output.mime_type": "text/plain",
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.content": run.answer,
        "sourcegate.citations": facts.cited_urls,
    })
