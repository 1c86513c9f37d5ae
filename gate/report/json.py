"""The JSON report (``sourcegate-report/1``), which also serves as the baseline format."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from gate import __version__
from gate.configdiff import ConfigChange
from gate.jsonio import dump_json
from gate.judge.summary import judgement_to_dict, summarise, summary_to_dict
from gate.model import Finding
from gate.report.json_comparison import comparison_from_dict, comparison_to_dict
from gate.results import BaselineStamp, CaseResult, CaseWarning, CheckStatus, Figures, Report
from gate.shards import ShardMark

if TYPE_CHECKING:
    from gate.judge.model import RunJudgement


def case_to_dict(c: CaseResult) -> dict[str, Any]:
    """One case as JSON data."""
    return {
        "id": c.id,
        "question": c.question,
        "hard_failures": [{"check": f.check, "url": f.url, "message": f.message} for f in c.hard_failures],
        "checks": {s.check: {"status": s.status, "reason": s.reason} for s in c.checks},
        "figures": asdict(c.figures),
        "notes": list(c.notes),
        "regime": c.regime,
        "shape": c.shape,
        "soft": dict(c.soft),
        "axes": dict(c.axes),
        "dropped_constraints": list(c.dropped_constraints),
        "dropped_entities": list(c.dropped_entities),
        "warnings": [{"kind": w.kind, "message": w.message} for w in c.warnings],
        **({"judgement": judgement_to_dict(c.judgement)} if c.judgement is not None else {}),
    }


def report_to_dict(r: Report) -> dict[str, Any]:
    """The whole report as JSON data (no clock, no paths of this machine: reproducible)."""
    by_check: dict[str, int] = {}
    for c in r.cases:
        for f in c.hard_failures:
            by_check[f.check] = by_check.get(f.check, 0) + 1
    return {
        "format": "sourcegate-report/1",
        "verdict": r.verdict,
        "reasons": list(r.reasons),
        "golden": {"name": r.golden_name, "version": r.golden_version},
        "tool": {"name": "sourcegate", "version": __version__},
        "config": r.config_source,
        "judge_mode": r.judge_mode,
        "warnings": list(r.warnings),
        **({"judge": summary_to_dict(judged)} if (judged := summarise(r.cases)) is not None else {}),
        "summary": {
            "cases": len(r.cases),
            "failed_cases": sum(1 for c in r.cases if c.failed),
            "hard_failures": r.hard_failure_count,
            "by_check": dict(sorted(by_check.items())),
        },
        "cases": [case_to_dict(c) for c in r.cases],
        **({"baseline": {**asdict(r.stamp), "forced_over": list(r.stamp.forced_over)}} if r.stamp else {}),
        **({"comparison": comparison_to_dict(r.comparison)} if r.comparison is not None else {}),
        **({"config_changes": [asdict(c) for c in r.config_changes]} if r.config_changes else {}),
        **({"shard": shard_to_dict(r.shard)} if r.shard is not None else {}),
    }


def case_from_dict(d: Mapping[str, Any]) -> CaseResult:
    """One case read back from (schema-valid) report JSON data."""
    judgement = _judgement_from_dict(d["judgement"]) if d.get("judgement") is not None else None
    return CaseResult(
        id=d["id"], question=d.get("question", ""),
        hard_failures=tuple(Finding(check=f["check"], message=f["message"], url=f["url"])
                            for f in d["hard_failures"]),
        checks=tuple(CheckStatus(k, v["status"], v.get("reason")) for k, v in d.get("checks", {}).items()),
        figures=Figures(**{k: v for k, v in d["figures"].items() if k in Figures.__dataclass_fields__}),
        notes=tuple(d.get("notes", ())), regime=d.get("regime"), shape=d.get("shape"),
        soft=MappingProxyType(dict(d.get("soft", {}))), judgement=judgement,
        axes=MappingProxyType(dict(d.get("axes", {}))),
        dropped_constraints=tuple(d.get("dropped_constraints", ())),
        dropped_entities=tuple(d.get("dropped_entities", ())),
        warnings=tuple(CaseWarning(w["kind"], w["message"]) for w in d.get("warnings", ())),
    )


def _judgement_from_dict(d: Mapping[str, Any]) -> RunJudgement:
    """A judgement as ``dataclasses.asdict`` wrote it (keys this version does not know are ignored)."""
    from gate.judge import model as jm

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


def shard_to_dict(m: ShardMark) -> dict[str, Any]:
    """A partial report's shard mark as JSON data."""
    return {**asdict(m), "positions": list(m.positions)}


def shard_from_dict(d: Mapping[str, Any]) -> ShardMark:
    """A shard mark read back from (schema-valid) JSON data."""
    return ShardMark(index=d["index"], count=d["count"], config=d["config"], baseline=d.get("baseline"),
                     ids=d["ids"], total=d["total"], positions=tuple(d["positions"]))


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
    )


class JsonReporter:
    """Renders the report as JSON text."""

    def render(self, report: Report) -> str:
        """The report as indented JSON."""
        return dump_json(report_to_dict(report))
