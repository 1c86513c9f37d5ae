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
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import TypeVar

from gate.checks import CHECKS, Check
from gate.config import Config, load_config, with_judge_provider
from gate.errors import InputError
from gate.files.digests import recorded_reads
from gate.judge.cache import JUDGEMENTS_DIR, TrustedEntries
from gate.judge.session import JudgeSession
from gate.load.basecases import under_base
from gate.load.golden import BasePages, Pairing, TraceReader, held_pairings, in_run_order, load_golden, run_files
from gate.load.goldensets import per_set_file, split_sets
from gate.load.shards import Shard, ShardSelection, config_digest
from gate.load.subset import Pick, Subset, select_cases
from gate.model import GoldenSet, Run
from gate.results import CaseResult
from gate.rules import Rules, resolve_rules
from gate.score.evaluate import evaluate_pairing
from gate.score.workers import Checked, SetWork, evaluate_in_workers, judge_and_evaluate, worker_count
from gate.store.casestore import CaseStore, Spill
from gate.store.merge import Partial, baseline_digest, merge_cases, read_partial
from gate.store.rederive import rederive
from gate.store.serialise import case_record
from gate.term.progress import Progress
from gate.verdict.compare import compare_cases
from gate.verdict.comparison import Comparison
from gate.verdict.decide import decide
from gate.verdict.goldenage import snapshot_age_warning
from gate.verdict.report import Report

__all__ = ["TRACES_NAME", "Held", "MergeRequest", "SetRequest", "decide_set", "golden_with_runs", "merged_report",
           "rules_baseline_digest", "run_paths", "run_set", "set_rules", "under_rules"]

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
    jobs: int | None = None
    """worker processes that check the runs, with the judge off or replaying its cache (``check --jobs``;
    None: one per core the machine gives; 1: this process alone): the report is the same either way"""
    pick: Pick | None = None
    """check only these cases of the golden set (``--case``, ``--failed``), compared with the baseline's
    same cases (None: every case)"""
    judge_keys: Mapping[str, str] | None = field(default=None, repr=False, compare=False)
    """the judge's API keys by provider name, for a live judge only (None: the SDK's environment
    variable); never shown nor written anywhere (see :class:`gate.judge.session.JudgeSession`)"""
    secrets: tuple[str, ...] = field(default=(), repr=False, compare=False)
    """the values redacted from every trace as it is read, so no report or comment shows them: the
    environment's secret-named variables (:func:`gate.text.redact.secret_values`), the judge's keys"""


_T = TypeVar("_T")


@dataclass(frozen=True)
class _Source:
    """What runs: the set's name and version, its trace files and how each is read, and where its judge
    cache is. The files are listed when the pairings are first asked for, not before."""

    name: str
    version: int | None
    root: str | None
    golden: GoldenSet | None
    files: Callable[[], Sequence[str]]
    reader: TraceReader
    shard: ShardSelection | None
    judgements: str | None
    expected_runs: int
    held: Held | None = None
    """the runs already in memory (then there are no files to read)"""
    subset: Subset | None = None
    """only these cases of the set are checked (``--case``, ``--failed``; None: every case)"""

    @property
    def pairings(self) -> Iterator[Pairing]:
        """Each case with its run, one file at a time, in the run's order (only the shard's, with one;
        only the subset's cases, with one)."""
        if self.held is not None:
            yield from self.picked(held_pairings(self.held.golden, self.held.runs, self.reader.frozen), _case_id)
            return
        read = self.reader
        pairings = ((f, p, p) for f in self.files() for p in (read(f),))
        yield from self.picked(_selected(in_run_order(self.golden, pairings, _same), self.shard, _case_id), _case_id)

    def picked(self, items: Iterable[_T], case_id: Callable[[_T], str]) -> Iterable[_T]:
        """``items`` of the subset's cases only (all of them without a subset)."""
        if self.subset is None:
            return items
        keep = frozenset(self.subset.cases)
        return (i for i in items if case_id(i) in keep)


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


def _golden(paths: Sequence[str], runs: str | None = None, held: Held | None = None,
            pick: Pick | None = None) -> GoldenSet | None:
    """The golden set in ``paths`` (its golden.yaml read once, its traces from ``runs`` when given), or
    the one ``held`` in memory; None for trace files."""
    if held is not None:
        return held.golden
    dirs = [p for p in paths if os.path.isdir(p)]
    if runs is not None and not dirs:
        raise InputError("--runs takes the traces of a golden set: give the golden-set folder too")
    if pick is not None and not dirs:
        raise InputError("--case and --failed take the cases of a golden set: give the golden-set folder")
    return golden_with_runs(dirs[0], runs) if dirs else None


def _source(paths: Sequence[str], golden: GoldenSet | None, shard: ShardSelection | None = None,
            held: Held | None = None, pick: Pick | None = None, frozen: BasePages | None = None,
            secrets: tuple[str, ...] = ()) -> _Source:
    """What runs: ``golden`` (:func:`_golden`) and its traces, or the trace files in ``paths``; or the
    set ``golden`` with the runs ``held`` in memory; with ``frozen``, each run's pages as the frozen web
    (the base revision's snapshot) recorded them; ``secrets`` are redacted from every trace read.

    With ``shard``, only that shard's pairings; the others are read for their case ids alone (a
    golden set's runs of other shards are not validated), so the shard notes the whole run's order.
    """
    if held is not None:
        assert golden is not None
        held = replace(held, golden=golden)
        source = _Source(golden.name, golden.version, golden.root, golden, lambda: (),
                         TraceReader(golden, frozen=frozen), None, os.path.join(golden.root, JUDGEMENTS_DIR),
                         len(golden.cases), held)
        return source if pick is None else _picked(source, _subset(golden, pick))
    if golden is not None:
        if pick is not None:
            subset = _subset(golden, pick)
            # The other cases' runs are neither read nor validated: only their ids are looked at.
            return _picked(_Source(golden.name, golden.version, golden.root, golden,
                                   lambda: run_files(golden.root, golden.runs_dir),
                                   TraceReader(golden, frozenset(subset.cases).__contains__, frozen, secrets),
                                   None,
                                   os.path.join(golden.root, JUDGEMENTS_DIR), len(golden.cases)), subset)
        reader = TraceReader(golden, shard.keeps if shard is not None else None, frozen, secrets)
        return _Source(golden.name, golden.version, golden.root, golden,
                       lambda: run_files(golden.root, golden.runs_dir), reader, shard,
                       os.path.join(golden.root, JUDGEMENTS_DIR), len(golden.cases))
    return _Source(TRACES_NAME, None, None, None, lambda: paths, TraceReader(secrets=secrets), shard, None,
                   len(paths))


def _subset(golden: GoldenSet, pick: Pick) -> Subset:
    return select_cases([c.id for c in golden.cases], pick)


def _picked(source: _Source, subset: Subset) -> _Source:
    """``source`` with only the pairings of ``subset``'s cases, which it then carries."""
    return replace(source, expected_runs=len(subset.cases), subset=subset)



def _same(p: Pairing) -> Pairing:
    return p


def _case_id(p: Pairing) -> str:
    return p.case.id


def _checked_id(c: Checked) -> str:
    return c.pairing.case.id


def _selected(items: Iterable[_T], shard: ShardSelection | None, case_id: Callable[[_T], str]) -> Iterable[_T]:
    return items if shard is None else shard.select(items, case_id)


def _in_workers(source: _Source, config: Config, mode: str, trusted: TrustedEntries | None,
                checks: Mapping[str, Check], workers: int, session: JudgeSession | None) -> CaseStore:
    """The cases of ``source`` from ``workers`` processes (:mod:`gate.score.workers`), in the order and
    with the refusals of the one-process loop: a file's error in its turn, a second run of a case,
    then the cases no file ran."""
    work = SetWork(source.reader, config, mode, source.judgements, source.expected_runs, trusted, checks,
                   record=case_record)
    checked = ((c.file, c.pairing, c) for c in evaluate_in_workers(work, source.files(), workers, session))
    ordered = in_run_order(source.golden, checked, lambda p: Checked("", p, None, None))
    return CaseStore.collect_recorded(
        (c.result, c.record) if c.result is not None else (evaluate_pairing(c.pairing, config, checks), None)
        for c in source.picked(_selected(ordered, source.shard, _checked_id), _checked_id))


def _evaluate(source: _Source, config: Config, judge_mode: str | None, trusted: TrustedEntries | None,
              checks: Mapping[str, Check], progress: Progress | None = None,
              keys: Mapping[str, str] | None = None, jobs: int | None = 1) -> tuple[CaseStore, str, tuple[str, ...]]:
    """Every pairing checked, and judged unless the mode is ``off``: (cases, judge mode, warnings).

    The cases go to a :class:`CaseStore` as they come: one run is in memory at a time. With the judge
    off or replaying its cache, ``jobs`` worker processes check them (None: one per core), when the
    set is large enough to share (:mod:`gate.score.workers` says what runs where).
    """
    mode = judge_mode or config.judge.mode
    trusted = trusted if source.root is not None else None
    workers = worker_count(jobs, source.expected_runs, mode) if source.held is None else 1  # held: in memory
    if mode == "off":
        if workers > 1:
            return _in_workers(source, config, mode, None, checks, workers, None), "off", ()
        return CaseStore.collect(evaluate_pairing(p, config, checks) for p in source.pairings), "off", ()
    with JudgeSession(mode, config, source.judgements, source.expected_runs, trusted=trusted,
                      progress=progress, api_keys=keys) as session:
        if workers > 1 and session.active:
            cases = _in_workers(source, config, mode, trusted, checks, workers, session)
        else:
            cases = CaseStore.collect(session.map(lambda p: judge_and_evaluate(p, config, session, checks),
                                                  source.pairings))
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
         partial: bool = False, keys: Mapping[str, str] | None = None, jobs: int | None = 1) -> Report:
    """Evaluate, compare and decide once. ``now`` also dates the set's snapshot (None: not dated).

    ``partial`` (a shard): nothing is compared, and the rules' warnings are left to the merge, which
    says them once for every shard.
    """
    config = rules.config
    cases, mode, judge_warnings = _evaluate(source, config, judge_mode, rules.trusted_judgements, checks,
                                            progress, keys, jobs)
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


def under_rules(golden: GoldenSet, rules: Rules) -> GoldenSet:
    """``golden`` as the rules check it: with a base revision, its cases under the base's bar
    (:func:`gate.load.basecases.under_base`); else as it is."""
    return golden if rules.base_cases is None else under_base(golden, rules.base_cases)


def _run_request(request: SetRequest, shard: ShardSelection | None, now: datetime | None,
                 checks: Mapping[str, Check], progress: Progress | None, rules: Rules | None,
                 held: Held | None) -> Report:
    golden = _golden(request.paths, request.runs, held, request.pick)
    if request.compare:
        if rules is None:
            rules = set_rules(request, golden.name if golden is not None else TRACES_NAME, golden)
        barred = under_rules(golden, rules) if golden is not None else None
        source = _source(request.paths, barred, shard, held, request.pick, rules.snapshot, request.secrets)
        if source.subset is not None:
            return _run_subset(source, source.subset, rules, request, now, checks, progress)
        # The mark names the configuration the merge resolves too: the one before --judge-provider.
        digest = config_digest(rules.config)
        rules = replace(rules, config=with_judge_provider(rules.config, request.judge_provider))
        report = _run(source, rules, request.judge_mode, now or datetime.now(UTC), checks, progress,
                      partial=shard is not None, keys=request.judge_keys, jobs=request.jobs)
        if shard is None:
            return report
        # A shard is not compared with the baseline: `sourcegate merge` does that once, for all.
        return replace(report, shard=shard.mark(digest, rules_baseline_digest(rules)))
    # A new baseline is recorded as the set is: its snapshot is not dated against the interval.
    source = _source(request.paths, golden, shard, held, request.pick, secrets=request.secrets)
    config = with_judge_provider(load_config(request.config_file, beside=source.root), request.judge_provider)
    return _run(source, Rules(config), request.judge_mode, None, checks, progress, keys=request.judge_keys,
                jobs=request.jobs)


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
                  keys=request.judge_keys, jobs=request.jobs)
    return replace(report, subset=subset)


def rules_baseline_digest(rules: Rules) -> str | None:
    """The digest of the baseline the rules compare with, and the revision it was read at (None: none)."""
    return baseline_digest(rules.baseline, rules.origin.commit if rules.origin else None)


def run_paths(paths: Sequence[str], config_file: str | None, judge_mode: str | None = None, *,
              config: Config | None = None, trusted_judgements: TrustedEntries | None = None,
              now: datetime | None = None, jobs: int | None = 1) -> Report:
    """Run the gate on one golden-set folder, or on a list of trace files, without a baseline.

    ``judge_mode`` (``live``, ``replay`` or ``off``) defaults to the configuration's ``judge.mode``.
    ``config`` is the configuration already read (e.g. at the base revision, :mod:`gate.rules`);
    None reads ``config_file`` or the one beside the set. ``trusted_judgements`` limits the judge
    cache to the entries the base revision has (None: every entry is used). ``now`` dates the golden
    set's snapshot against its re-snapshot interval (None: not dated). ``jobs`` is as
    :attr:`SetRequest.jobs`, one process by default.
    """
    sets = split_sets(paths)  # the same rules as the CLI: paths exist, folders and files not mixed
    if len(sets) > 1:
        raise InputError("run_paths takes one golden set; run each of several sets in turn")
    source = _source(sets[0].paths, _golden(sets[0].paths))
    if config is None:
        config = load_config(config_file, beside=source.root)
    return _run(source, Rules(config, trusted_judgements=trusted_judgements), judge_mode, now, jobs=jobs)


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
    secrets: tuple[str, ...] = field(default=(), repr=False, compare=False)
    """as :attr:`SetRequest.secrets`, redacted from the traces the merge checks again"""


def merged_report(request: MergeRequest, *, now: datetime) -> Report:
    """Read the partial reports, merge their cases, compare and decide once (``now`` dates the baseline)."""
    with recorded_reads():  # each file read once, the comparison's hashing included
        return _merged(request, now)


def _merged(request: MergeRequest, now: datetime) -> Report:
    golden = golden_with_runs(request.golden, request.runs)
    name, version = golden.name, golden.version
    rules = resolve_rules([request.golden], request.config_file, baseline=per_set_file(request.baseline, name),
                          ref=request.baseline_ref, trust_config=request.trust_config, golden=golden)
    golden = under_rules(golden, rules)  # the cases as each shard checked them
    spill = Spill()
    partials: Sequence[Partial] = [read_partial(f, spill) for f in request.partials]
    merged = merge_cases(partials, spill, golden_name=name, golden_version=version,
                         config=config_digest(rules.config), baseline=rules_baseline_digest(rules))
    # The partial reports are claims of other jobs: every case is checked again from its trace.
    rederive(merged, golden, rules.config, rules.snapshot, request.secrets)
    return decide_set(merged.golden_name, merged.golden_version, merged.cases, rules, merged.judge_mode,
                      warnings=merged.warnings, now=now)
