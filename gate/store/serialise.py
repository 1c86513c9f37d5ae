"""The report as JSON data (``sourcegate-report/1``) and back: the one place the format is written and read.

The JSON reporter (:mod:`gate.report.json`) and the baseline store (:mod:`gate.store.baseline`) both use
it; a baseline is such a report with a ``baseline`` stamp. The ``comparison`` block is read back
too, so that a second, trusted workflow can render the PR comment from the report artifact of an
untrusted one (``sourcegate comment REPORT``, see ``docs/fork-safe.md``): the artifact is validated
against the schema, and every string in it reaches markdown only through the escaping functions.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict
from types import MappingProxyType
from typing import Any

from gate.files.jsonio import dump_json
from gate.files.jsontext import indented
from gate.judge import model as jm
from gate.judge.model import RunJudgement
from gate.judge.summary import judgement_to_dict, summarise, summary_to_dict
from gate.load.shards import ShardMark
from gate.load.subset import Subset
from gate.model import Attempt, Finding
from gate.results import (
    CaseResult,
    CaseWarning,
    CheckStatus,
    CitationMark,
    Counts,
    PageQuote,
    QuerySurvival,
    SearchCharge,
)
from gate.verdict.claimdiff import ClaimFlip
from gate.verdict.comparison import (
    BaselineOrigin,
    CaseChange,
    Comparison,
    FigureChange,
    FigureStatus,
    Moved,
    RemovedCase,
)
from gate.verdict.configdiff import ConfigChange
from gate.verdict.report import BaselineStamp, Report
from gate.verdict.tally import tally_of
from gate.version import __version__

__all__ = [
    "CASE_INDENT", "case_from_dict", "case_record", "case_to_dict", "comparison_from_dict",
    "comparison_to_dict", "dump_report", "finding_from_dict", "finding_to_dict", "report_chunks",
    "report_from_dict", "report_to_dict",
    "shard_from_dict", "shard_to_dict",
]


def case_to_dict(c: CaseResult) -> dict[str, Any]:
    """One case as JSON data."""
    return {
        "id": c.id,
        "question": c.question,
        "hard_failures": [finding_to_dict(f) for f in c.hard_failures],
        "checks": {s.check: {"status": s.status, "reason": s.reason} for s in c.checks},
        "figures": asdict(c.counts),
        "notes": list(c.notes),
        "regime": c.regime,
        "shape": c.shape,
        "soft": dict(c.soft),
        "axes": dict(c.axes),
        "dropped_constraints": list(c.dropped_constraints),
        "dropped_entities": list(c.dropped_entities),
        "warnings": [{"kind": w.kind, "message": w.message} for w in c.warnings],
        "answer": c.answer,
        "answer_dropped": c.answer_dropped,
        "citations": [{"url": m.url, "mark": m.mark} for m in c.citations],
        "quotes": [asdict(q) for q in c.quotes],
        # only when the run sent queries, so a case without any reads as it always did
        **({"queries": [_query_to_dict(q) for q in c.queries]} if c.queries else {}),
        **({"search_charges": [asdict(charge) for charge in c.search_charges]} if c.search_charges else {}),
        **({"unrecorded_pages": list(c.unrecorded_pages)} if c.unrecorded_pages else {}),
        **({"attempts": [{"rejected": list(a.rejected), "findings": [finding_to_dict(f) for f in a.findings],
                          **({"kept": True} if a.kept else {})} for a in c.attempts]} if c.attempts else {}),
        **({"judgement": judgement_to_dict(c.judgement)} if c.judgement is not None else {}),
    }


def _query_to_dict(q: QuerySurvival) -> dict[str, Any]:
    return {"query": q.query, "dropped_constraints": list(q.dropped_constraints),
            "dropped_entities": list(q.dropped_entities)}


CASE_INDENT = "    "
"""A case's depth in the report's text: an item of the top-level ``cases`` list."""


def case_record(c: CaseResult) -> str:
    """One case as it stands in the report's text, its indentation included (see :func:`report_chunks`)."""
    return _indented(case_to_dict(c), CASE_INDENT)


def _indented(data: Any, indent: str) -> str:
    # JSON strings hold no raw newline: every newline of the text is between tokens
    return indent + indented(data).replace("\n", "\n" + indent)  # json.dumps(indent=2)'s text, faster


def report_to_dict(r: Report, cases: Any = None, comparison_cases: Any = None) -> dict[str, Any]:
    """The whole report as JSON data (no clock, no paths of this machine: reproducible).

    ``cases`` and ``comparison_cases`` stand in for the list of cases and the comparison's list of
    cases when given (:func:`report_chunks` writes them apart).
    """
    t = tally_of(r.cases)
    return {
        "format": "sourcegate-report/1",
        "verdict": r.verdict,
        "reasons": list(r.reasons),
        "golden": {"name": r.golden_name, "version": r.golden_version},
        "tool": {"name": "sourcegate", "version": __version__},
        "config": r.config_source,
        "judge_mode": r.judge_mode,
        "warnings": list(r.warnings),
        **({"judge": summary_to_dict(judged)}
           if t.judged and (judged := summarise(r.cases)) is not None else {}),
        "summary": {
            "cases": t.cases,
            "failed_cases": t.failed_cases,
            "hard_failures": t.hard_failures,
            "by_check": dict(sorted(t.by_check.items())),
        },
        "cases": [case_to_dict(c) for c in r.cases] if cases is None else cases,
        **({"baseline": {**asdict(r.stamp), "forced_over": list(r.stamp.forced_over)}} if r.stamp else {}),
        **({"comparison": comparison_to_dict(r.comparison, comparison_cases)} if r.comparison is not None else {}),
        **({"config_changes": [asdict(c) for c in r.config_changes]} if r.config_changes else {}),
        **({"shard": shard_to_dict(r.shard)} if r.shard is not None else {}),
        **({"subset": {"cases": list(r.subset.cases), "total": r.subset.total, "asked": r.subset.asked}}
           if r.subset is not None else {}),
    }


def case_from_dict(d: Mapping[str, Any]) -> CaseResult:
    """One case read back from (schema-valid) report JSON data."""
    judgement = _judgement_from_dict(d["judgement"]) if d.get("judgement") is not None else None
    return CaseResult(
        id=d["id"], question=d.get("question", ""),
        hard_failures=_findings(d["hard_failures"]),
        checks=tuple(CheckStatus(k, v["status"], v.get("reason")) for k, v in d.get("checks", {}).items()),
        counts=Counts(**{k: v for k, v in d["figures"].items() if k in Counts.__dataclass_fields__}),
        notes=tuple(d.get("notes", ())), regime=d.get("regime"), shape=d.get("shape"),
        soft=MappingProxyType(dict(d.get("soft", {}))), judgement=judgement,
        axes=MappingProxyType(dict(d.get("axes", {}))),
        dropped_constraints=tuple(d.get("dropped_constraints", ())),
        dropped_entities=tuple(d.get("dropped_entities", ())),
        warnings=tuple(CaseWarning(w["kind"], w["message"]) for w in d.get("warnings", ())),
        answer=d.get("answer"), answer_dropped=d.get("answer_dropped", 0),
        citations=tuple(CitationMark(m["url"], m["mark"]) for m in d.get("citations", ())),
        quotes=tuple(PageQuote(q["claim"], q["url"], q["before"], q["quote"], q["after"])
                     for q in d.get("quotes", ())),
        queries=tuple(QuerySurvival(q["query"], tuple(q.get("dropped_constraints", ())),
                                    tuple(q.get("dropped_entities", ()))) for q in d.get("queries", ())),
        search_charges=tuple(SearchCharge(**{k: v for k, v in charge.items() if k in SearchCharge.__dataclass_fields__})
                             for charge in d.get("search_charges", ())),
        unrecorded_pages=tuple(d.get("unrecorded_pages", ())),
        attempts=tuple(Attempt(rejected=tuple(a["rejected"]), findings=_findings(a["findings"]),
                               kept=a.get("kept", False)) for a in d.get("attempts", ())),
    )


def _judgement_from_dict(d: Mapping[str, Any]) -> RunJudgement:
    """A judgement as ``dataclasses.asdict`` wrote it (keys this version does not know are ignored)."""
    def build(cls: Any, data: Mapping[str, Any], **nested: Any) -> Any:
        fields = cls.__dataclass_fields__
        kw = {k: (tuple(v) if isinstance(v, list) else v) for k, v in data.items() if k in fields}
        return cls(**{**kw, **nested})

    return build(  # type: ignore[no-any-return]
        jm.RunJudgement, d,
        claims=tuple(build(jm.Claim, c) for c in d.get("claims", ())),
        verdicts=tuple(build(jm.ClaimVerdict, v) for v in d.get("verdicts", ())),
        query_scores=tuple(build(jm.QueryScore, q) for q in d.get("query_scores", ())),
        source_types=tuple(build(jm.SourceType, t) for t in d.get("source_types", ())),
        usage=build(jm.Usage, d.get("usage", {})),
    )


def report_from_dict(d: Mapping[str, Any]) -> Report:
    """A report read back from (schema-valid) JSON data: a baseline is such a report.

    A comparison is read back too (to render the PR comment from a report artifact); a baseline's
    own comparison is history and is dropped when it becomes a baseline.
    """
    stamp = d.get("baseline")
    cmp = d.get("comparison")
    return Report(
        verdict=d["verdict"], reasons=tuple(d["reasons"]), golden_name=d["golden"]["name"],
        golden_version=d["golden"]["version"], cases=tuple(case_from_dict(c) for c in d["cases"]),
        config_source=d.get("config"),
        stamp=BaselineStamp(written_at=stamp["written_at"], forced=stamp.get("forced", False),
                            forced_over=tuple(stamp.get("forced_over", ()))) if stamp else None,
        comparison=comparison_from_dict(cmp, d["golden"]["version"]) if cmp else None,
        warnings=tuple(d.get("warnings", ())), judge_mode=d.get("judge_mode", "off"),
        config_changes=tuple(ConfigChange(**c) for c in d.get("config_changes", ())),
        shard=shard_from_dict(d["shard"]) if d.get("shard") is not None else None,
        subset=Subset(tuple(d["subset"]["cases"]), d["subset"]["total"], d["subset"]["asked"])
        if d.get("subset") is not None else None,
    )


def shard_to_dict(m: ShardMark) -> dict[str, Any]:
    """A partial report's shard mark as JSON data."""
    return {**asdict(m), "positions": list(m.positions)}


def shard_from_dict(d: Mapping[str, Any]) -> ShardMark:
    """A shard mark read back from (schema-valid) JSON data."""
    return ShardMark(index=d["index"], count=d["count"], config=d["config"], baseline=d.get("baseline"),
                     ids=d["ids"], total=d["total"], positions=tuple(d["positions"]))


def finding_to_dict(f: Finding) -> dict[str, Any]:
    """One hard failure as JSON data; ``sentence`` only when the answer had one citing its URL."""
    return {"check": f.check, "url": f.url, "message": f.message,
            **({"sentence": f.sentence} if f.sentence is not None else {})}


def finding_from_dict(f: Mapping[str, Any]) -> Finding:
    """One hard failure read back from (schema-valid) JSON data."""
    return Finding(check=f["check"], message=f["message"], url=f["url"], sentence=f.get("sentence"))


def _case(c: CaseChange) -> dict[str, Any]:
    return {
        "id": c.id,
        "changed": c.changed,
        "new_failures": [finding_to_dict(f) for f in c.new_failures],
        "fixed_failures": [finding_to_dict(f) for f in c.fixed_failures],
        "kept_failures": [finding_to_dict(f) for f in c.kept_failures],
        "moved": [{"figure": m.name, "baseline": m.baseline, "pr": m.current} for m in c.moved],
        "flipped_claims": [{"claim": f.number, "text": f.text, "before": f.before, "after": f.after,
                            "reason": f.reason} for f in c.flips],
        "unscored": {"baseline": c.unscored[0], "pr": c.unscored[1]},
        **({"baseline_answer": c.baseline_answer} if c.baseline_answer is not None else {}),
    }


def comparison_to_dict(cmp: Comparison, cases: Any = None) -> dict[str, Any]:
    """The comparison as JSON data: what it was compared with, each set figure, each common case
    (``cases`` stands in for their list when given)."""
    o = cmp.origin
    return {
        "baseline": {"file": o.file, "ref": o.ref, "commit": o.commit, "golden_version": cmp.baseline_version,
                     "verdict": cmp.baseline_verdict, "forced": cmp.baseline_forced,
                     "written_at": cmp.baseline_written_at, "age_days": cmp.baseline_age_days,
                     "max_age_days": cmp.max_age_days, "stale": cmp.stale},
        "version_mismatch": cmp.version_mismatch,
        "block_on": cmp.block_on,
        "common_cases": list(cmp.common), "added_cases": list(cmp.added), "removed_cases": list(cmp.removed),
        **({"removed_results": [{"id": r.id, "hard_failures": [finding_to_dict(f) for f in r.failures]}
                                for r in cmp.removed_results]} if cmp.removed_results else {}),
        "changed_files": list(o.changed_files), "redefined_cases": list(o.redefined_cases),
        "unjudged_cases": list(cmp.unjudged),
        "notes": list(cmp.notes()),
        "figures": [_figure(f) for f in cmp.figures],
        "cases": [_case(c) for c in cmp.cases] if cases is None else cases,
    }


def _figure(f: FigureChange) -> dict[str, Any]:
    return {"figure": f.key, "label": f.label, "reads": f.figure, "baseline": f.baseline, "pr": f.current,
            "delta": f.delta, "pairs": f.pairs, "worse": f.worse, "better": f.better, "p_value": f.p_value,
            "status": f.status.status if f.status else None, "why": f.status.why if f.status else None}


def _findings(items: list[Mapping[str, Any]]) -> tuple[Finding, ...]:
    return tuple(finding_from_dict(f) for f in items)


def comparison_from_dict(d: Mapping[str, Any], current_version: int | None) -> Comparison:
    """A comparison read back from schema-valid report data."""
    b = d["baseline"]
    return Comparison(
        origin=BaselineOrigin(file=b["file"], ref=b.get("ref"), commit=b.get("commit"),
                              changed_files=tuple(d.get("changed_files", ())),
                              redefined_cases=tuple(d.get("redefined_cases", ()))),
        baseline_version=b.get("golden_version"), current_version=current_version,
        baseline_verdict=b["verdict"], baseline_forced=b.get("forced", False),
        baseline_written_at=b.get("written_at"), baseline_age_days=b.get("age_days"),
        max_age_days=b.get("max_age_days"),
        common=tuple(d["common_cases"]), added=tuple(d["added_cases"]), removed=tuple(d["removed_cases"]),
        cases=tuple(CaseChange(
            id=c["id"], new_failures=_findings(c["new_failures"]),
            fixed_failures=_findings(c["fixed_failures"]), kept_failures=_findings(c["kept_failures"]),
            moved=tuple(Moved(m["figure"], m["baseline"], m["pr"]) for m in c["moved"]),
            flips=tuple(ClaimFlip(f["claim"], f["text"], f["before"], f["after"], f["reason"])
                        for f in c["flipped_claims"]),
            unscored=(c["unscored"]["baseline"], c["unscored"]["pr"]),
            baseline_answer=c.get("baseline_answer"),
        ) for c in d["cases"]),
        figures=tuple(FigureChange(
            key=f["figure"], label=f["label"], figure=f["reads"], baseline=f["baseline"], current=f["pr"],
            pairs=f["pairs"], worse=f["worse"], better=f["better"], p_value=f["p_value"],
            status=FigureStatus(f["status"], f["why"]) if f.get("status") else None,
        ) for f in d["figures"]),
        unjudged=tuple(d.get("unjudged_cases", ())),
        block_on=d.get("block_on", "all"),
        removed_results=tuple(RemovedCase(r["id"], _findings(r["hard_failures"]))
                              for r in d.get("removed_results", ())),
    )


_CASES_MARK = "\0sourcegate-cases\0"
"""Stands in for the list of cases while the rest of the report is written (JSON escapes it, so no
string of the report can spell it on the line it takes)."""


def report_chunks(report: Report, records: Iterable[str]) -> Iterator[str]:
    """The report's JSON text in pieces: the fields before the cases, each case's ``records`` (its
    :func:`case_record`, in order), then the fields after them. Joined, it is :func:`dump_report`'s
    text, byte for byte, without the whole report in memory at once."""
    cmp = report.comparison
    mark = json.dumps(_CASES_MARK)
    text = dump_json(report_to_dict(report, cases=_CASES_MARK,
                                    comparison_cases=_CASES_MARK if cmp is not None else None))
    head, tail = text.split('\n  "cases": ' + mark, 1)
    yield head + '\n  "cases": '
    yield from _items(records, "  ")
    if cmp is not None:  # its cases, one per common case, are written one at a time too
        middle, tail = tail.split('\n    "cases": ' + mark, 1)
        yield middle + '\n    "cases": '
        yield from _items((_indented(_case(c), "      ") for c in cmp.cases), "    ")
    yield tail


def _items(records: Iterable[str], indent: str) -> Iterator[str]:
    """A JSON list of items already in their text, as ``json.dumps(..., indent=2)`` writes it."""
    first = True
    for record in records:
        yield ("[\n" if first else ",\n") + record
        first = False
    yield "[]" if first else "\n" + indent + "]"


def dump_report(report: Report) -> str:
    """The report as indented JSON text (the report file, and the baseline file)."""
    return dump_json(report_to_dict(report))
