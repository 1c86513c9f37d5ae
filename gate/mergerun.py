"""The partial reports of every shard of one golden set, back into the report of one run.

    sourcegate check cached-snapshots/example --shard 1/4 --json shard-1.json   # one per matrix job
    sourcegate merge cached-snapshots/example shard-*.json --json report.json --baseline-ref "$BASE"

The golden set (``golden.yaml``) is loaded once. The rules (configuration, baseline, trusted
judge-cache entries) are resolved from the golden set as ``check`` resolves them, and every partial
report must have run under the same configuration and would have been compared with the same
baseline (:mod:`gate.store.merge` refuses anything else, naming the file). The cases are put back in the
run's order and each is checked again from its trace (:mod:`gate.store.rederive`: a partial report
cannot claim what its trace does not give), then compared with the baseline and decided once by the
pipeline (:func:`gate.pipeline.decide_set`): the result is the report an unsharded ``check``
writes. The command itself is :mod:`gate.commands.merge`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from gate.load.goldensets import per_set_file
from gate.load.shards import config_digest
from gate.pipeline import decide_set, golden_with_runs, rules_baseline_digest
from gate.rules import resolve_rules
from gate.store.casestore import Spill
from gate.store.merge import Partial, merge_cases, read_partial
from gate.store.rederive import rederive
from gate.verdict.report import Report

__all__ = ["MergeRequest", "merged_report"]


@dataclass(frozen=True)
class MergeRequest:
    """Which golden set the shards ran on, their partial reports, and the rules to decide under."""

    golden: str
    """the golden-set folder"""
    partials: tuple[str, ...]
    """the partial reports (``check --shard i/n --json FILE``), in any order"""
    config_file: str | None = None
    baseline: str | None = None
    """an explicit baseline file (None: the set's baseline.json)"""
    baseline_ref: str | None = None
    trust_config: bool = False
    runs: str | None = None
    """the golden set's traces, when they are not its ``runs/`` (``merge --runs DIR``): the merge checks
    every case again from them (:func:`gate.store.rederive`)"""


def merged_report(request: MergeRequest, *, now: datetime) -> Report:
    """Read the partial reports, merge their cases, compare and decide once (``now`` dates the baseline)."""
    golden = golden_with_runs(request.golden, request.runs)
    name, version = golden.name, golden.version
    rules = resolve_rules([request.golden], request.config_file, baseline=per_set_file(request.baseline, name),
                          ref=request.baseline_ref, trust_config=request.trust_config)
    spill = Spill()
    partials: Sequence[Partial] = [read_partial(f, spill) for f in request.partials]
    merged = merge_cases(partials, spill, golden_name=name, golden_version=version,
                         config=config_digest(rules.config), baseline=rules_baseline_digest(rules))
    # The partial reports are claims of other jobs: every case is checked again from its trace.
    rederive(merged, golden, rules.config)
    return decide_set(merged.golden_name, merged.golden_version, merged.cases, rules, merged.judge_mode,
                      warnings=merged.warnings, now=now)
