"""The ``comparison`` block of the JSON report, written and read back.

Read back so that a second, trusted workflow can render the PR comment from the report artifact
of an untrusted one (``sourcegate comment REPORT``, see ``docs/fork-safe.md``): the artifact is
validated against the schema, and every string in it reaches markdown only through the escaping
functions, exactly as in a direct run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gate.claimdiff import ClaimFlip
from gate.compare import BaselineOrigin, CaseChange, Comparison, FigureChange, FigureStatus, Moved
from gate.model import Finding

__all__ = ["comparison_from_dict", "comparison_to_dict"]


def _finding(f: Finding) -> dict[str, Any]:
    return {"check": f.check, "url": f.url, "message": f.message}


def _case(c: CaseChange) -> dict[str, Any]:
    return {
        "id": c.id,
        "changed": c.changed,
        "new_failures": [_finding(f) for f in c.new_failures],
        "fixed_failures": [_finding(f) for f in c.fixed_failures],
        "kept_failures": [_finding(f) for f in c.kept_failures],
        "moved": [{"figure": m.name, "baseline": m.baseline, "pr": m.current} for m in c.moved],
        "flipped_claims": [{"claim": f.number, "text": f.text, "before": f.before, "after": f.after,
                            "reason": f.reason} for f in c.flips],
        "unscored": {"baseline": c.unscored[0], "pr": c.unscored[1]},
    }


def comparison_to_dict(cmp: Comparison) -> dict[str, Any]:
    """The comparison as JSON data: what it was compared with, each set figure, each common case."""
    o = cmp.origin
    return {
        "baseline": {"file": o.file, "ref": o.ref, "commit": o.commit, "golden_version": cmp.baseline_version,
                     "verdict": cmp.baseline_verdict, "forced": cmp.baseline_forced,
                     "written_at": cmp.baseline_written_at, "age_days": cmp.baseline_age_days,
                     "max_age_days": cmp.max_age_days, "stale": cmp.stale},
        "version_mismatch": cmp.version_mismatch,
        "block_on": cmp.block_on,
        "common_cases": list(cmp.common), "added_cases": list(cmp.added), "removed_cases": list(cmp.removed),
        "changed_files": list(o.changed_files), "redefined_cases": list(o.redefined_cases),
        "unjudged_cases": list(cmp.unjudged),
        "notes": list(cmp.notes()),
        "figures": [_figure(f) for f in cmp.figures],
        "cases": [_case(c) for c in cmp.cases],
    }


def _figure(f: FigureChange) -> dict[str, Any]:
    return {"figure": f.key, "label": f.label, "reads": f.figure, "baseline": f.baseline, "pr": f.current,
            "delta": f.delta, "pairs": f.pairs, "worse": f.worse, "better": f.better, "p_value": f.p_value,
            "status": f.status.status if f.status else None, "why": f.status.why if f.status else None}


def _findings(items: list[Mapping[str, Any]]) -> tuple[Finding, ...]:
    return tuple(Finding(check=f["check"], message=f["message"], url=f["url"]) for f in items)


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
        ) for c in d["cases"]),
        figures=tuple(FigureChange(
            key=f["figure"], label=f["label"], figure=f["reads"], baseline=f["baseline"], current=f["pr"],
            pairs=f["pairs"], worse=f["worse"], better=f["better"], p_value=f["p_value"],
            status=FigureStatus(f["status"], f["why"]) if f.get("status") else None,
        ) for f in d["figures"]),
        unjudged=tuple(d.get("unjudged_cases", ())),
        block_on=d.get("block_on", "all"),
    )
