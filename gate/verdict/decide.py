"""The decision: case results (and later a baseline comparison) in, a verdict with reasons out.

Pure: values in, values out. The rules, in order:

1. any hard failure (or a case whose run is missing) -> ``fail``;
2. the judge left more than ``judge.inconclusive_unscored_share`` of claims unscored -> ``inconclusive``
   (an outage is never a pass);
3. a soft figure configured with ``block: true`` out of bounds -> ``fail``; otherwise a warning;
4. otherwise ``pass``.

With a baseline :class:`~gate.verdict.compare.Comparison`, rules 1 and 3 read the comparison:

1. each hard failure is *new* or *already in the baseline* (both are named); with
   ``compare.block_on: new`` only new ones block. A baseline case this run does not have keeps its
   baseline result when the baseline is trusted (read at the base revision): its hard failures are
   failures already in the baseline, and the reasons name every such case;
3. a soft figure blocks only when it is configured ``block: true``, **and** it is out of bounds or
   regressed past its ``tolerance``, **and** the paired per-case sign test says the change is beyond
   judge noise (p <= ``compare.significance`` over at least ``compare.min_cases`` paired cases).
   Each blocking figure's reason says why it counts; one that fails only the noise test is a warning.

The reasons, most important first: a failing verdict's first reason sums up everything that blocks,
which is the one line the PR comment and the markdown report lead with; then one reason per check or
blocking figure; then what does not block (warnings). The example set's (``make demo``), with its
baseline: ``16 hard failures in 11 of 18 cases, 3 new since the baseline: 1 fabricated_url, 1
domain_cap, 1 rejected_url_kept (in storm-dervla-disruption, who-physical-activity-adults); 13 already
in the baseline``; without one: ``16 hard failures in 11 of 18 cases (3 fabricated_url, 2 unread_citation, ...)``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from gate.checks import CHECKS
from gate.config import Config
from gate.results import CHECK_ERROR, INPUT_ERROR, CaseResult, Verdict
from gate.score.figures import SOFT_FIGURES
from gate.verdict.comparison import Comparison
from gate.verdict.figurediff import figure_status
from gate.verdict.report import Report
from gate.verdict.tally import Tally, tally_of


def set_mean(cases: Iterable[CaseResult], name: str) -> float | None:
    """Mean of a soft figure over the cases that have it."""
    return tally_of(cases).mean(name)


def soft_out_of_bounds(cases: Iterable[CaseResult] | Tally,
                       config: Config) -> list[tuple[str, float, str, bool]]:
    """(figure, set mean, what bound it broke, whether it blocks) for each soft figure out of bounds."""
    t = cases if isinstance(cases, Tally) else tally_of(cases)
    out = []
    for name in SOFT_FIGURES:
        bound = config.soft.get(name)
        value = t.mean(name)
        if bound is None or value is None:
            continue
        if bound.floor is not None and value < bound.floor:
            out.append((name, value, f"below its floor {bound.floor:g}", bound.block))
        elif bound.ceiling is not None and value > bound.ceiling:
            out.append((name, value, f"above its ceiling {bound.ceiling:g}", bound.block))
    return out


def unscored_share(cases: Iterable[CaseResult] | Tally) -> tuple[int, int]:
    """(unscored claims, all claims) over the judged cases."""
    t = cases if isinstance(cases, Tally) else tally_of(cases)
    return t.unscored, t.claims


def _unscored_because(t: Tally) -> str:
    """Why claims were unscored, as the judge said it (the first three reasons), else the general words."""
    reasons = t.unscored_reasons
    if not reasons:
        return "judge unavailable or unparseable"
    shown = "; ".join(r if len(r) <= 120 else r[:117] + "..." for r in reasons[:3])
    return shown + (f"; and {len(reasons) - 3} more reason(s)" if len(reasons) > 3 else "")


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


CHECK_ORDER = (INPUT_ERROR, CHECK_ERROR, *CHECKS)
"""How checks with as many failures are listed: a missing run first, then the registry's order."""
MAX_NAMED_CASES = 3
"""Cases named in the first reason (the full lists follow in the other reasons)."""


def _checks_in_order(findings: Counter[str]) -> list[str]:
    """Most failures first, ties in the registry's order."""
    def order(check: str) -> tuple[int, int, str]:
        rank = CHECK_ORDER.index(check) if check in CHECK_ORDER else len(CHECK_ORDER)
        return -findings[check], rank, check

    return sorted(findings, key=order)


def _by_check(findings: Counter[str]) -> str:
    """``3 fabricated_url, 2 unread_citation, ...``."""
    return ", ".join(f"{findings[check]} {check}" for check in _checks_in_order(findings))


def _named(case_ids: Sequence[str], limit: int | None = None) -> str:
    if limit is None or len(case_ids) <= limit:
        return ", ".join(case_ids)
    return ", ".join(case_ids[:limit]) + f" and {len(case_ids) - limit} more"


def _hard_summary(t: Tally) -> str:
    """``16 hard failures in 11 of 18 cases``."""
    return f"{_plural(t.hard_failures, 'hard failure')} in {t.failed_cases} of {_plural(t.cases, 'case')}"


def _new_failures(t: Tally, cmp: Comparison) -> tuple[Counter[str], list[str]]:
    """New hard failures by check, and the cases they are in (a case the baseline lacks: all new)."""
    new: Counter[str] = Counter()
    new_in: list[str] = []
    for case_id, checks in t.failing:
        change = cmp.case(case_id)
        fresh = tuple(f.check for f in change.new_failures) if change is not None else checks
        new.update(fresh)
        if fresh:
            new_in.append(case_id)
    return new, new_in


def _removed_failures(cmp: Comparison) -> tuple[Counter[str], list[str]]:
    """The hard failures of the removed cases decided by their baseline result, by check, and the
    cases that have them."""
    found: Counter[str] = Counter()
    failing: list[str] = []
    for removed in cmp.removed_results:
        found.update(f.check for f in removed.failures)
        if removed.failures:
            failing.append(removed.id)
    return found, failing


def _removed_reason(cmp: Comparison, only_new: bool) -> str | None:
    """What the removed cases decided by their baseline result add to the decision (None: none).

    Each case is named once: those with hard failures after their failures, then those without.
    """
    if not cmp.removed_results:
        return None
    n = len(cmp.removed_results)
    found, failing = _removed_failures(cmp)
    passing = [r.id for r in cmp.removed_results if not r.failures]
    parts = []
    if found:
        parts.append(f"{len(failing)} with {sum(found.values())} hard failure(s) the baseline already had: "
                     f"{_by_check(found)} (in {_named(failing)})"
                     + (", not blocking: compare.block_on is new" if only_new else ""))
    if passing:
        parts.append(f"{len(passing)} without a hard failure ({_named(passing)})")
    return (f"{_plural(n, 'case')} of the baseline {'is' if n == 1 else 'are'} not in this run and "
            f"{'was' if n == 1 else 'were'} decided by {'its' if n == 1 else 'their'} baseline result: "
            + "; ".join(parts))


def _hard_with_baseline(cases: Tally, config: Config,
                        cmp: Comparison) -> tuple[bool, list[str]]:
    new, new_in = _new_failures(cases, cmp)
    kept: Counter[str] = Counter()
    fixed: Counter[str] = Counter()
    for change in cmp.cases:
        kept.update(f.check for f in change.kept_failures)
        fixed.update(f.check for f in change.fixed_failures)
    reasons = []
    if new:
        reasons.append(f"{sum(new.values())} new hard failure(s) the baseline did not have: {_by_check(new)} "
                       f"(in {_named(new_in)})")
    only_new = config.compare.block_on == "new"
    if kept:
        reasons.append(f"{sum(kept.values())} hard failure(s) the baseline already had: {_by_check(kept)}"
                       + (" (not blocking: compare.block_on is new)" if only_new else ""))
    if removed := _removed_reason(cmp, only_new):
        reasons.append(removed)
    if fixed:
        reasons.append(f"{sum(fixed.values())} baseline hard failure(s) fixed: {_by_check(fixed)}")
    gone, _ = _removed_failures(cmp)
    return bool(new) or (bool(kept or gone) and not only_new), reasons


def _hard_alone(cases: Tally) -> tuple[bool, list[str]]:
    counts: Counter[str] = Counter(cases.by_check)
    where: dict[str, list[str]] = {}
    for case_id, checks in cases.failing:
        for check in dict.fromkeys(checks):
            where.setdefault(check, []).append(case_id)
    reasons = [f"{counts[check]} {check} failure(s) (in {_named(where[check], MAX_NAMED_CASES)})"
               for check in _checks_in_order(counts)]
    return bool(counts), reasons


def _soft_alone(cases: Tally, config: Config) -> tuple[list[str], list[str], list[str]]:
    """(blocking figure names, blocking reasons, warning reasons) of the soft figures out of bounds."""
    names, blocking, warnings = [], [], []
    for name, value, why, blocks in soft_out_of_bounds(cases, config):
        reason = f"{name} {value:.2f} is {why}" + (" (blocking)" if blocks else " (warning)")
        if blocks:
            names.append(name)
            blocking.append(reason)
        else:
            warnings.append(reason)
    return names, blocking, warnings


def _soft_with_baseline(config: Config, cmp: Comparison) -> tuple[list[str], list[str], list[str]]:
    """(blocking figure labels, blocking reasons, warning reasons) of the set figures vs the baseline."""
    names, blocking, warnings = [], [], []
    for change in cmp.figures:
        st = change.status or figure_status(change, config)
        if st.status == "blocking":
            names.append(change.label)
            blocking.append(st.why)
        elif st.status in ("noise", "too_few", "warn"):
            warnings.append(st.why)
    return names, blocking, warnings


def headline(cases: Iterable[CaseResult] | Tally, config: Config, comparison: Comparison | None,
             hard_blocks: bool, blocking_soft: Sequence[str]) -> str | None:
    """The first reason of a failing verdict: everything that blocks, in one sentence.

    ``16 hard failures in 11 of 18 cases (3 fabricated_url, 2 unread_citation, ...)``; with a
    baseline, how many of them are new (and where) and how many the baseline already had (``16 hard
    failures in 11 of 18 cases, 3 new since the baseline: 1 fabricated_url, 1 domain_cap, 1 rejected_url_kept
    (in storm-dervla-disruption, who-physical-activity-adults); 13 already in the baseline``, the example
    set's), and (``block_on: all``) the hard failures of baseline cases this run no longer has; then
    the soft figures that block. None when a single soft figure is the only thing that blocks: its own
    reason says it best.
    """
    t = cases if isinstance(cases, Tally) else tally_of(cases)
    parts = []
    if hard_blocks:
        counts: Counter[str] = Counter(t.by_check)
        if comparison is None:
            parts.append(f"{_hard_summary(t)} ({_by_check(counts)})")
        else:
            new, new_in = _new_failures(t, comparison)
            old = sum(counts.values()) - sum(new.values())
            gone, gone_in = _removed_failures(comparison)
            if new:
                text = (f"{_hard_summary(t)}, {sum(new.values())} new since the baseline: {_by_check(new)} "
                        f"(in {_named(new_in, MAX_NAMED_CASES)})")
                parts.append(text + (f"; {old} already in the baseline" if old else ""))
            elif counts:
                them = "it" if sum(counts.values()) == 1 else "them all"
                parts.append(f"{_hard_summary(t)}, none new: the baseline already had {them} "
                             f"({_by_check(counts)}), and compare.block_on is all")
            if gone and config.compare.block_on != "new":
                parts.append(f"{_plural(sum(gone.values()), 'hard failure')} in "
                             f"{_plural(len(gone_in), 'baseline case')} not in this run, decided by the "
                             f"baseline's result ({_by_check(gone)}) (in {_named(gone_in, MAX_NAMED_CASES)})"
                             + ("" if new or counts else ", and compare.block_on is all"))
    if blocking_soft and (parts or len(blocking_soft) > 1):
        parts.append(f"{_plural(len(blocking_soft), 'soft figure')} "
                     f"{'blocks' if len(blocking_soft) == 1 else 'block'}: {', '.join(blocking_soft)}")
    return "; and ".join(parts) if parts else None


def decide(cases: Iterable[CaseResult], config: Config,
           comparison: Comparison | None = None) -> tuple[Verdict, tuple[str, ...]]:
    """The verdict and the reasons for it, most important first.

    A failing verdict's first reason sums up what blocks (:func:`headline`); the blocking reasons
    follow, then the non-blocking ones (failures the baseline already had under ``block_on: new``,
    fixed failures, the unscored share, soft warnings). The cases are read once, into their
    :class:`gate.verdict.tally.Tally` (a case store's own, when they are in one).
    """
    t = tally_of(cases)
    if comparison is None:
        hard_blocks, hard = _hard_alone(t)
        soft_names, blocking_soft, soft_warnings = _soft_alone(t, config)
    else:
        hard_blocks, hard = _hard_with_baseline(t, config, comparison)
        soft_names, blocking_soft, soft_warnings = _soft_with_baseline(config, comparison)
    verdict: Verdict = "fail" if hard_blocks or blocking_soft else "pass"
    reasons = hard + blocking_soft
    if comparison is not None and not hard_blocks and hard:
        reasons = blocking_soft + hard  # non-blocking hard reasons must not read as the cause
    if verdict == "fail" and (head := headline(t, config, comparison, hard_blocks, soft_names)):
        reasons.insert(0, head)

    unscored, total = unscored_share(t)
    if total and unscored / total > config.judge.inconclusive_unscored_share:
        why = (f"{unscored} of {total} claims unscored ({_unscored_because(t)}); "
               f"more than {config.judge.inconclusive_unscored_share:.0%} makes the run inconclusive")
        if verdict == "pass":
            verdict = "inconclusive"
            reasons.insert(0, why)
        else:
            reasons.append(why)
    if comparison is not None and comparison.unjudged:
        gap = comparison.unjudged
        why = (f"{len(gap)} case(s) the baseline judged were not judged in this run ({', '.join(gap[:5])}"
               f"{', ...' if len(gap) > 5 else ''}): is the judge cache missing? Record it with --judge live, "
               "or skip the judges on purpose with --judge off")
        if verdict == "pass":
            verdict = "inconclusive"
            reasons.insert(0, why)
        else:
            reasons.append(why)
    reasons += soft_warnings
    if verdict == "pass" and comparison is not None:
        reasons.insert(0, "no new hard failure and no soft figure regressed beyond noise")
    elif verdict == "pass" and not reasons:
        reasons.append("no hard check failed")
    return verdict, tuple(reasons)


def build_report(name: str, version: int | None, cases: Iterable[CaseResult], config: Config,
                 *, judge_mode: str = "off", warnings: tuple[str, ...] = ()) -> Report:
    """Collect case results into a report with its verdict."""
    done = tuple(cases)
    verdict, reasons = decide(done, config)
    return Report(verdict=verdict, reasons=reasons, golden_name=name, golden_version=version, cases=done,
                  config_source=config.source, judge_mode=judge_mode, warnings=warnings)
