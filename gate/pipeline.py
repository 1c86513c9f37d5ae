"""One golden set, or a list of trace files, through the gate: load -> check -> judge -> compare -> decide.

:func:`run_set` is the one function the CLI commands and the action call for a set:

1. the golden set (``golden.yaml``) is loaded once, or the trace files are listed;
2. the rules are read once, before anything runs (:func:`gate.rules.resolve_rules`): the
   configuration, the baseline and its origin, the trusted judge-cache entries; with a base
   revision, all of them as that revision has them (``git show``);
3. every run is checked (:mod:`gate.score.evaluate`) and, unless the judge is off, judged;
4. the case results are compared with the baseline (:func:`gate.verdict.compare.compare_cases`, figure
   statuses included);
5. :func:`gate.verdict.decide.decide` is called once, and the :class:`Report` built from its answer.

With a shard (``check --shard i/n``, :mod:`gate.load.shards`), only that shard's cases are checked and
judged, nothing is compared, and the report carries the :class:`gate.load.shards.ShardMark` that
``sourcegate merge`` needs. :func:`merged_report` is the merge's one function: the golden set loaded
once, the rules resolved as ``check`` resolves them, every partial report made under the same
configuration and baseline (:mod:`gate.store.merge` refuses anything else, naming the file), every
case checked again from its trace (:mod:`gate.store.rederive`: a partial report cannot claim what its
trace does not give), then compared and decided once (:func:`decide_set`): the report an unsharded
``check`` writes.

Reading files and git happens here and in the modules it calls at the edge; evaluation, comparison
and decision are pure. Nothing is decided and then patched.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from gate.checks import CHECKS, Check
from gate.config import Config, load_config, with_judge_provider
from gate.errors import InputError
from gate.files.digests import recorded_reads
from gate.judge.cache import JUDGEMENTS_DIR, TrustedEntries
from gate.judge.session import JudgeSession
from gate.load.golden import Pairing, held_pairings, iter_pairings, load_golden, load_trace
from gate.load.goldensets import per_set_file, split_sets
from gate.load.shards import Shard, ShardSelection, config_digest
from gate.load.subset import Pick, Subset, select_cases
from gate.model import Case, GoldenSet, Run
from gate.results import CaseResult
from gate.rules import Rules, resolve_rules
from gate.score.evaluate import evaluate_pairing, evaluate_run
from gate.store.casestore import CaseStore, Spill
from gate.store.merge import Partial, baseline_digest, merge_cases, read_partial
from gate.store.rederive import rederive
from gate.term.progress import Progress
from gate.verdict.compare import compare_cases
from gate.verdict.comparison import Comparison
from gate.verdict.decide import decide
from gate.verdict.goldenage import snapshot_age_warning
from gate.verdict.report import Report

__all__ = ["TRACES_NAME", "Held", "MergeRequest", "SetRequest", "decide_set", "golden_with_runs", "merged_report",
           "rules_baseline_digest", "run_paths", "run_set", "set_rules"]

TRACES_NAME = "traces"
"""The name of the report of loose trace files (they have no golden.yaml to name them)."""


@dataclass(frozen=True)
class SetRequest:
    """What to run: one golden-set folder (or trace files), and under which rules."""

    paths: tuple[str, ...]
    """one golden-set folder, or trace files (one set, as :func:`gate.load.goldensets.split_sets` makes)"""
    config_file: str | None = None
    """``--config`` (None: ``sourcegate.yaml`` beside the set, else the defaults)"""
    judge_mode: str | None = None
    """``live``, ``replay`` or ``off`` (None: ``judge.mode`` in the configuration)"""
    baseline: str | None = None
    """an explicit baseline file, ``{name}`` replaced by the set's name (None: the set's baseline.json)"""
    baseline_ref: str | None = None
    """the git revision to read the rules and the baseline at (the pull request's base)"""
    trust_config: bool = False
    """with ``baseline_ref``, use a ``config_file`` the revision does not have"""
    compare: bool = True
    """False: no baseline is read or compared with (``baseline update`` records a new one)"""
    judge_provider: str | None = None
    """the judge provider by name (None: ``judge.provider`` in the configuration)"""
    shard: Shard | None = None
    """check only this shard's cases, into a partial report for ``sourcegate merge`` (None: every case)"""
    runs: str | None = None
    """read the set's traces from this folder instead of its ``runs/`` (``check --runs DIR``: traces an
    agent's job uploaded, kept apart from the checkout; None: the set's own)"""
    pick: Pick | None = None
    """check only these cases of the golden set (``--case``, ``--failed``), compared with the baseline's
    same cases (None: every case)"""
    judge_keys: Mapping[str, str] | None = field(default=None, repr=False, compare=False)
    """the judge's API keys by provider name, for a live judge only (None: the SDK's environment
    variable); never shown nor written anywhere (see :class:`gate.judge.session.JudgeSession`)"""


@dataclass(frozen=True)
class _Source:
    """What runs: the set's name and version, its case/run pairings, and where its judge cache is."""

    name: str
    version: int | None
    root: str | None
    golden: GoldenSet | None
    pairings: Iterable[Pairing]
    judgements: str | None
    expected_runs: int
    subset: Subset | None = None


def _trace_pairings(files: Sequence[str]) -> Iterator[Pairing]:
    seen: set[str] = set()
    for f in files:
        run = load_trace(f)
        if run.case in seen:
            raise InputError(f"a second run for case {run.case!r}", file=f, path="$.case")
        seen.add(run.case)
        yield Pairing(Case(id=run.case, question=run.question), run)


def golden_with_runs(root: str, runs: str | None) -> GoldenSet:
    """The golden set in ``root`` (its golden.yaml read once), its traces read from ``runs`` when given."""
    golden = load_golden(root)
    return golden if runs is None else replace(golden, runs_dir=runs)


@dataclass(frozen=True)
class Held:
    """A golden set and its runs already in memory (``sourcegate run --check``): checked as they are,
    neither ``golden.yaml`` nor the traces read again."""

    golden: GoldenSet
    runs: tuple[Run, ...]


def _source(paths: Sequence[str], shard: ShardSelection | None = None, runs: str | None = None,
            held: Held | None = None, pick: Pick | None = None) -> _Source:
    """The golden set in ``paths`` (its golden.yaml read once, its traces from ``runs`` when given), or
    its trace files; or the set and runs ``held`` in memory.

    With ``shard``, only that shard's pairings; the others are read for their case ids alone (a
    golden set's runs of other shards are not validated), so the shard notes the whole run's order.
    """
    if held is not None:
        golden = held.golden
        source = _Source(golden.name, golden.version, golden.root, golden, held_pairings(golden, held.runs),
                         os.path.join(golden.root, JUDGEMENTS_DIR), len(golden.cases))
        return source if pick is None else _picked(source, _subset(golden, pick))
    dirs = [p for p in paths if os.path.isdir(p)]
    if runs is not None and not dirs:
        raise InputError("--runs takes the traces of a golden set: give the golden-set folder too")
    if pick is not None and not dirs:
        raise InputError("--case and --failed take the cases of a golden set: give the golden-set folder")
    if dirs:
        golden = golden_with_runs(dirs[0], runs)
        if pick is not None:
            subset = _subset(golden, pick)
            # The other cases' runs are neither read nor validated: only their ids are looked at.
            return _picked(_Source(golden.name, golden.version, golden.root, golden,
                                   iter_pairings(golden, keep=frozenset(subset.cases).__contains__),
                                   os.path.join(golden.root, JUDGEMENTS_DIR), len(golden.cases)), subset)
        pairings: Iterable[Pairing] = iter_pairings(golden, keep=shard.keeps if shard is not None else None)
        return _Source(golden.name, golden.version, golden.root, golden, _selected(pairings, shard),
                       os.path.join(golden.root, JUDGEMENTS_DIR), len(golden.cases))
    return _Source(TRACES_NAME, None, None, None, _selected(_trace_pairings(paths), shard), None, len(paths))


def _subset(golden: GoldenSet, pick: Pick) -> Subset:
    return select_cases([c.id for c in golden.cases], pick)


def _picked(source: _Source, subset: Subset) -> _Source:
    """``source`` with only the pairings of ``subset``'s cases, which it then carries."""
    keep = frozenset(subset.cases)
    return replace(source, pairings=(p for p in source.pairings if p.case.id in keep),
                   expected_runs=len(subset.cases), subset=subset)


def _selected(pairings: Iterable[Pairing], shard: ShardSelection | None) -> Iterable[Pairing]:
    return pairings if shard is None else shard.select(pairings, lambda p: p.case.id)


def _judged(p: Pairing, config: Config, session: JudgeSession, checks: Mapping[str, Check]) -> CaseResult:
    """Judge one run (on a pool thread), evaluate it with the judged regime, attach the judgement."""
    if p.problem is not None or p.run is None:
        return evaluate_pairing(p, config, checks)
    if p.run.replay is not None and p.run.replay.agent_error is not None:
        return evaluate_run(p.run, p.case, config, checks=checks)  # no answer to judge: its agent_error says so
    return evaluate_run(p.run, p.case, config, judgement=session.judge(p.run, p.case), checks=checks)


def _evaluate(source: _Source, config: Config, judge_mode: str | None, trusted: TrustedEntries | None,
              checks: Mapping[str, Check], progress: Progress | None = None,
              keys: Mapping[str, str] | None = None) -> tuple[CaseStore, str, tuple[str, ...]]:
    """Every pairing checked, and judged unless the mode is ``off``: (cases, judge mode, warnings).

    The cases go to a :class:`CaseStore` as they come: one run is in memory at a time.
    """
    mode = judge_mode or config.judge.mode
    if mode == "off":
        return CaseStore.collect(evaluate_pairing(p, config, checks) for p in source.pairings), "off", ()
    trusted = trusted if source.root is not None else None
    with JudgeSession(mode, config, source.judgements, source.expected_runs, trusted=trusted,
                      progress=progress, api_keys=keys) as session:
        cases = CaseStore.collect(session.map(lambda p: _judged(p, config, session, checks), source.pairings))
    return cases, mode, tuple(session.warnings)


def _comparison(rules: Rules, name: str, version: int | None, cases: Sequence[CaseResult], judge_mode: str,
                now: datetime) -> tuple[Comparison | None, tuple[str, ...]]:
    """The comparison with the rules' baseline (None without one), and a note when there is none."""
    base, origin = rules.baseline, rules.origin
    if origin is None:
        return None, ()
    if base is None:
        where = f"{origin.ref}:{origin.file}" if origin.ref else origin.file
        return None, (f"no baseline at {where}: nothing to compare with; "
                      "record one with `sourcegate baseline update`",)
    if base.golden_name != name:
        raise InputError(f"the baseline is for golden set {base.golden_name!r}, not {name!r}",
                         file=origin.file)
    if rules.watched is not None:  # hashed now: what the run read is not read again (gate.files.digests)
        origin = replace(origin, changed_files=rules.watched.changed())
    return compare_cases(base, cases, version, judge_mode, rules.config, origin, now), ()


def decide_set(name: str, version: int | None, cases: Sequence[CaseResult], rules: Rules, judge_mode: str,
               *, warnings: Sequence[str] = (), now: datetime) -> Report:
    """The report of a set whose cases are already evaluated (the merged shards): compared with the
    rules' baseline and decided once. ``warnings`` come before the rules' own; ``now`` dates the
    baseline."""
    comparison, notes = _comparison(rules, name, version, cases, judge_mode, now)
    verdict, reasons = decide(cases, rules.config, comparison)
    return Report(verdict=verdict, reasons=reasons, golden_name=name, golden_version=version,
                  cases=cases, config_source=rules.config.source, judge_mode=judge_mode,
                  warnings=(*warnings, *rules.warnings, *notes), comparison=comparison,
                  config_changes=rules.config_changes)


def _run(source: _Source, rules: Rules, judge_mode: str | None, now: datetime | None,
         checks: Mapping[str, Check] = CHECKS, progress: Progress | None = None, *,
         partial: bool = False, keys: Mapping[str, str] | None = None) -> Report:
    """Evaluate, compare and decide once. ``now`` also dates the set's snapshot (None: not dated).

    ``partial`` (a shard): nothing is compared, and the rules' warnings are left to the merge, which
    says them once for every shard.
    """
    config = rules.config
    cases, mode, judge_warnings = _evaluate(source, config, judge_mode, rules.trusted_judgements, checks,
                                            progress, keys)
    aged = snapshot_age_warning(source.golden, config, now) if source.golden and now else None
    if aged:
        judge_warnings = (*judge_warnings, aged)
    if partial:
        verdict, reasons = decide(cases, config, None)
        return Report(verdict=verdict, reasons=reasons, golden_name=source.name,
                      golden_version=source.version, cases=cases, config_source=config.source,
                      judge_mode=mode, warnings=judge_warnings)
    return decide_set(source.name, source.version, cases, rules, mode, warnings=judge_warnings,
                      now=now or datetime.now(UTC))


def set_rules(request: SetRequest, name: str, golden: GoldenSet | None = None) -> Rules:
    """The rules ``request`` is checked under (the set named ``name``, ``golden`` when loaded already):
    its configuration, baseline and trusted judge-cache entries, read once (:func:`gate.rules.resolve_rules`)."""
    return resolve_rules(request.paths, request.config_file, baseline=per_set_file(request.baseline, name),
                         ref=request.baseline_ref, trust_config=request.trust_config, golden=golden)


def run_set(request: SetRequest, *, now: datetime | None = None,
            checks: Mapping[str, Check] = CHECKS, progress: Progress | None = None,
            rules: Rules | None = None, held: Held | None = None) -> Report:
    """Run the gate on one golden set (or trace files): the whole report, decided once.

    ``now`` dates the baseline (default: the clock); ``checks`` is the check registry (default:
    :data:`gate.checks.CHECKS`); ``progress`` is where a live judge reports how far it got (None:
    nowhere). Input errors (a golden set, a configuration, a baseline or a
    revision that cannot be read) raise :class:`gate.errors.InputError`; a check that raises on a
    run is a ``check_error`` finding of that case (:attr:`Report.check_errors`), the rest still runs.
    ``rules`` are the rules already read (:func:`set_rules`, e.g. before ``sourcegate run`` starts
    its agents); None reads them here. ``held``: the set and its runs already in memory, not read again.
    """
    shard = ShardSelection(request.shard) if request.shard is not None else None
    if shard is not None and not request.compare:
        raise InputError("a shard is checked against the baseline's rules: it cannot record a baseline")
    if request.pick is not None and (not request.compare or shard is not None):
        raise InputError("a subset of the cases (--case, --failed) is no whole run: it cannot record a "
                         "baseline, nor be a shard")
    with recorded_reads():  # each file read once, the comparison's hashing included
        return _run_request(request, shard, now, checks, progress, rules, held)


def _run_request(request: SetRequest, shard: ShardSelection | None, now: datetime | None,
                 checks: Mapping[str, Check], progress: Progress | None, rules: Rules | None,
                 held: Held | None) -> Report:
    source = _source(request.paths, shard, request.runs, held, request.pick)
    if request.compare:
        if rules is None:
            rules = set_rules(request, source.name, source.golden)
        if source.subset is not None:
            return _run_subset(source, source.subset, rules, request, now, checks, progress)
        # The mark names the configuration the merge resolves too: the one before --judge-provider.
        digest = config_digest(rules.config)
        rules = replace(rules, config=with_judge_provider(rules.config, request.judge_provider))
        report = _run(source, rules, request.judge_mode, now or datetime.now(UTC), checks, progress,
                      partial=shard is not None, keys=request.judge_keys)
        if shard is None:
            return report
        # A shard is not compared with the baseline: `sourcegate merge` does that once, for all.
        return replace(report, shard=shard.mark(digest, rules_baseline_digest(rules)))
    # A new baseline is recorded as the set is: its snapshot is not dated against the interval.
    return _run(source, Rules(load_config(request.config_file, beside=source.root)), request.judge_mode, None,
                checks, progress, keys=request.judge_keys)


def _run_subset(source: _Source, subset: Subset, rules: Rules, request: SetRequest, now: datetime | None,
                checks: Mapping[str, Check], progress: Progress | None) -> Report:
    """Some cases of the set, compared with the baseline's same cases: its other cases are not
    "removed" (docs/trust.md), and the report says which cases ran and that it is no whole verdict."""
    keep = frozenset(subset.cases)
    base = rules.baseline
    if base is not None:
        base = replace(base, cases=tuple(c for c in base.cases if c.id in keep))
    rules = replace(rules, baseline=base, config=with_judge_provider(rules.config, request.judge_provider),
                    warnings=(subset.note(), *rules.warnings))
    report = _run(source, rules, request.judge_mode, now or datetime.now(UTC), checks, progress,
                  keys=request.judge_keys)
    return replace(report, subset=subset)


def rules_baseline_digest(rules: Rules) -> str | None:
    """The digest of the baseline the rules compare with, and the revision it was read at (None: none)."""
    return baseline_digest(rules.baseline, rules.origin.commit if rules.origin else None)


def run_paths(paths: Sequence[str], config_file: str | None, judge_mode: str | None = None, *,
              config: Config | None = None, trusted_judgements: TrustedEntries | None = None,
              now: datetime | None = None) -> Report:
    """Run the gate on one golden-set folder, or on a list of trace files, without a baseline.

    ``judge_mode`` (``live``, ``replay`` or ``off``) defaults to the configuration's ``judge.mode``.
    ``config`` is the configuration already read (e.g. at the base revision, :mod:`gate.rules`);
    None reads ``config_file`` or the one beside the set. ``trusted_judgements`` limits the judge
    cache to the entries the base revision has (None: every entry is used). ``now`` dates the golden
    set's snapshot against its re-snapshot interval (None: not dated).
    """
    sets = split_sets(paths)  # the same rules as the CLI: paths exist, folders and files not mixed
    if len(sets) > 1:
        raise InputError("run_paths takes one golden set; run each of several sets in turn")
    source = _source(sets[0].paths)
    if config is None:
        config = load_config(config_file, beside=source.root)
    return _run(source, Rules(config, trusted_judgements=trusted_judgements), judge_mode, now)


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
    with recorded_reads():  # each file read once, the comparison's hashing included
        return _merged(request, now)


def _merged(request: MergeRequest, now: datetime) -> Report:
    golden = golden_with_runs(request.golden, request.runs)
    name, version = golden.name, golden.version
    rules = resolve_rules([request.golden], request.config_file, baseline=per_set_file(request.baseline, name),
                          ref=request.baseline_ref, trust_config=request.trust_config, golden=golden)
    spill = Spill()
    partials: Sequence[Partial] = [read_partial(f, spill) for f in request.partials]
    merged = merge_cases(partials, spill, golden_name=name, golden_version=version,
                         config=config_digest(rules.config), baseline=rules_baseline_digest(rules))
    # The partial reports are claims of other jobs: every case is checked again from its trace.
    rederive(merged, golden, rules.config)
    return decide_set(merged.golden_name, merged.golden_version, merged.cases, rules, merged.judge_mode,
                      warnings=merged.warnings, now=now)
