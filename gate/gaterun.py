"""Load -> check -> report for the paths the CLI was given. I/O lives here, not in the core."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from gate.config import Config, load_config
from gate.errors import InputError
from gate.evaluate import build_report, evaluate_pairing, evaluate_run
from gate.goldenage import snapshot_age_warning
from gate.judge.cache import JUDGEMENTS_DIR, TrustedEntries
from gate.load import Pairing, load_golden, load_trace
from gate.model import Case
from gate.results import CaseResult, Report

if TYPE_CHECKING:
    from gate.judge.session import JudgeSession
    from gate.shards import ShardSelection


TRACES_NAME = "traces"
"""The name of the report of loose trace files (they have no golden.yaml to name them)."""


def set_name(paths: Sequence[str]) -> str:
    """The name the report of ``paths`` will carry: the golden set's, or :data:`TRACES_NAME`."""
    return load_golden(paths[0]).name if len(paths) == 1 and os.path.isdir(paths[0]) else TRACES_NAME


def _trace_pairings(files: Sequence[str]) -> Iterator[Pairing]:
    seen: set[str] = set()
    for f in files:
        run = load_trace(f)
        if run.case in seen:
            raise InputError(f"a second run for case {run.case!r}", file=f, path="$.case")
        seen.add(run.case)
        yield Pairing(Case(id=run.case, question=run.question), run)


def _judged(p: Pairing, config: Config, session: JudgeSession) -> CaseResult:
    """Judge one run (on a pool thread), evaluate it with the judged regime, attach the judgement."""
    if p.problem is not None or p.run is None:
        return evaluate_pairing(p, config)
    if p.run.replay is not None and p.run.replay.agent_error is not None:
        return evaluate_run(p.run, p.case, config)  # no answer to judge: its agent_error says so
    return evaluate_run(p.run, p.case, config, judgement=session.judge(p.run, p.case))


def _report(name: str, version: int | None, pairings: Iterable[Pairing], config: Config,
            judge_mode: str | None, judgements: str | None, expected_runs: int,
            trusted: TrustedEntries | None, shard: ShardSelection | None = None) -> Report:
    """Evaluate every pairing (only one shard's, with ``shard``), judged unless the mode is ``off``."""
    mode = judge_mode or config.judge.mode
    if shard is not None:
        pairings = shard.select(pairings, lambda p: p.case.id)
    if mode == "off":
        return build_report(name, version, (evaluate_pairing(p, config) for p in pairings), config)
    from gate.judge.session import JudgeSession

    with JudgeSession(mode, config, judgements, expected_runs, trusted=trusted) as session:
        report = build_report(name, version, session.map(lambda p: _judged(p, config, session), pairings),
                              config, judge_mode=mode)
    return replace(report, warnings=report.warnings + session.warnings)


def run_paths(paths: Sequence[str], config_file: str | None, judge_mode: str | None = None, *,
              config: Config | None = None, trusted_judgements: TrustedEntries | None = None,
              now: datetime | None = None, shard: ShardSelection | None = None) -> Report:
    """Run the gate on one golden-set folder, or on a list of trace files.

    ``judge_mode`` (``live``, ``replay`` or ``off``) defaults to the configuration's ``judge.mode``.
    ``config`` is the configuration already read (e.g. at the base revision, :mod:`gate.rules`);
    None reads ``config_file`` or the one beside the set. ``trusted_judgements`` limits the judge
    cache to the entries the base revision has (None: every entry is used). ``now`` dates the golden
    set's snapshot against its re-snapshot interval (None: not dated). ``shard`` evaluates only the
    cases of one shard (:mod:`gate.shards`), noting the whole run's order as it goes.
    """
    from gate.goldensets import split_sets

    sets = split_sets(paths)  # the same rules as the CLI: paths exist, folders and files not mixed
    if len(sets) > 1:
        raise InputError("run_paths takes one golden set; run each of several sets in turn")
    paths = sets[0].paths
    dirs = [p for p in paths if os.path.isdir(p)]
    if dirs:
        from gate.load import iter_pairings

        golden = load_golden(dirs[0])
        if config is None:
            config = load_config(config_file, beside=golden.root)
        # A shard validates only its own runs; the others are read for their case ids alone.
        pairings = iter_pairings(golden, keep=shard.keeps if shard is not None else None)
        report = _report(golden.name, golden.version, pairings, config, judge_mode,
                         os.path.join(golden.root, JUDGEMENTS_DIR), len(golden.cases), trusted_judgements, shard)
        aged = snapshot_age_warning(golden, config, now) if now is not None else None
        return replace(report, warnings=(*report.warnings, aged)) if aged else report
    if config is None:
        config = load_config(config_file) if config_file else Config()
    return _report(TRACES_NAME, None, _trace_pairings(paths), config, judge_mode, None, len(paths), None, shard)
