"""The rules one golden set is decided under, resolved once, before it runs: config, baseline, trusted judgements.

Without a git revision, everything comes from the working tree, as a local run expects. With
``--baseline-ref REV`` (the action passes the pull request's base commit), what decides the verdict
comes from that revision, so nothing in a pull request can weaken the gate that judges it:

- the configuration (``sourcegate.yaml`` beside the set, or the ``--config`` file) is read at REV;
  the PR's own configuration is only compared with it (:func:`gate.verdict.configdiff.config_changes`) and
  applies from the next pull request after the merge. A ``--config`` file that REV does not have is
  used only with ``--trust-config`` (the pull request that adds the gate);
- the baseline is read at REV (:func:`gate.store.baseline.read_at_ref`); the cases are the working tree's
  ``golden.yaml`` under REV's bar: a case REV has is checked with REV's class, freshness, domains,
  constraints and entities, and a case the pull request removes is still checked, as REV defines it
  (:mod:`gate.load.basecases`); what the pull request changes in them is listed beside the
  configuration's changes and applies after the merge (:func:`gate.verdict.casediff.case_changes`);
- judge-cache entries are trusted only when REV has them with the same content
  (:class:`gate.judge.cache.TrustedEntries`);
- the pages the runs read are compared with REV's snapshot (:class:`gate.snapshot.revision.BaseSnapshot`,
  :mod:`gate.checks.frozen_web`): what a source says is what REV recorded.

Each of these is read at REV by its path as given, never through a symbolic link: a link the pull
request put in place of a file REV has, a link out of the set, a link at REV, or a set that is a link
is an input error (:func:`gate.git.revision.base_path`).

This is an I/O edge (files and ``git``); what it returns is a value the pure core runs with.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass

from gate.config import CONFIG_NAME, Config, load_config, parse_config
from gate.errors import InputError
from gate.git.revision import Revision, base_folder, base_path, read_folders, resolve_set, show_file, tree_blobs
from gate.judge.cache import JUDGEMENTS_DIR, TrustedEntries
from gate.load.golden import SNAPSHOT_DIR, load_golden
from gate.model import Case, GoldenSet
from gate.snapshot.revision import BaseSnapshot, base_snapshot
from gate.store.baseline import Watched, baseline_file, read_at_ref, read_baseline
from gate.verdict.casediff import case_changes
from gate.verdict.comparison import BaselineOrigin
from gate.verdict.configdiff import ConfigChange, config_changes
from gate.verdict.report import Report

__all__ = ["Rules", "resolve_config", "resolve_rules"]


@dataclass(frozen=True)
class Rules:
    """What decides one golden set's verdict, read once before the set runs."""

    config: Config
    """the configuration that evaluates, compares and decides"""
    baseline: Report | None = None
    origin: BaselineOrigin | None = None
    """where the baseline was looked for (None: nowhere, e.g. trace files without ``--baseline``)"""
    config_changes: tuple[ConfigChange, ...] = ()
    """what the pull request changes in the configuration (with a revision only)"""
    trusted_judgements: TrustedEntries | None = None
    """the judge-cache entries the revision vouches for (None: the working tree is trusted)"""
    warnings: tuple[str, ...] = ()
    watched: Watched | None = None
    """the golden-set files whose changes against the revision the comparison lists (with a revision only)"""
    base_cases: tuple[Case, ...] | None = None
    """the revision's cases, whose bar the set's cases are checked under (:func:`gate.load.basecases.under_base`;
    None: no revision, or it has no ``golden.yaml`` for the set)"""
    snapshot: BaseSnapshot | None = None
    """the revision's snapshot of the set, the frozen web the runs' pages are compared with (None: no
    revision, or it has no snapshot of the set)"""


def _golden_root(paths: Sequence[str]) -> str | None:
    return paths[0] if len(paths) == 1 and os.path.isdir(paths[0]) else None


def _base_config(at: Revision, root: str, config_file: str | None, ref: str,
                 trust_config: bool) -> tuple[Config, tuple[str, ...]]:
    """The configuration at the revision, and a warning when ``--trust-config`` had to be used."""
    file = config_file or os.path.join(root, CONFIG_NAME)
    rel = base_path(at, file, within=None if config_file else os.path.realpath(root))
    text = show_file(at.top, at.commit, rel, ref)
    if text is not None:
        return parse_config(text, f"{ref}:{rel}"), ()
    if config_file is None:
        return Config(), ()  # the base has no sourcegate.yaml beside the set: its rules are the defaults
    if not trust_config:
        raise InputError(
            f"the configuration file is not in the base revision {ref}, so a pull request could have "
            "written its own rules; pass --trust-config (the action's trust-config input) to use it "
            "anyway, e.g. in the pull request that adds the gate", file=config_file)
    return load_config(config_file), (
        f"the configuration {config_file} is not in the base revision {ref}; it was used as given "
        "because of --trust-config",)


def resolve_config(paths: Sequence[str], config_file: str | None, *, ref: str | None = None,
                   trust_config: bool = False) -> Config:
    """The configuration :func:`resolve_rules` decides with, read alone (the action picks the judge's
    key by its provider before the set runs); the same input errors."""
    root = _golden_root(paths)
    if ref is None or root is None:
        return load_config(config_file, beside=root)
    revision = resolve_set(root, ref)
    base_folder(revision, root)
    return _base_config(revision, root, config_file, ref, trust_config)[0]


def resolve_rules(paths: Sequence[str], config_file: str | None, *, baseline: str | None = None,
                  ref: str | None = None, trust_config: bool = False, golden: GoldenSet | None = None) -> Rules:
    """Read the rules for the golden set (or trace files) in ``paths``, at ``ref`` when given.

    ``baseline`` is an explicit baseline file (default: the set's ``baseline.json``); ``golden`` the set
    as loaded already, whose cases the base revision's are compared with (None: read them here).
    """
    root = _golden_root(paths)
    if ref is None:
        config = load_config(config_file, beside=root)
        file = baseline or (baseline_file(root) if root is not None else None)
        if file is None:
            return Rules(config)
        # The set's own baseline.json stays inside the set; a --baseline FILE is the user's choice.
        report = read_baseline(file, root if baseline is None else None)
        if report is None and baseline is not None:
            raise InputError("no such baseline file", file=baseline)
        return Rules(config, report, BaselineOrigin(file=file))
    if root is None:
        raise InputError("--baseline-ref needs a golden-set folder, not trace files")
    revision = resolve_set(root, ref)
    read_folders(revision.top, revision.commit, base_folder(revision, root))  # the set's folders in one read
    config, warnings = _base_config(revision, root, config_file, ref, trust_config)
    at = read_at_ref(root, ref, baseline, [config_file] if config_file else [], revision=revision, golden=golden)
    judgements = base_path(revision, os.path.join(root, JUDGEMENTS_DIR), within=os.path.realpath(root))
    trusted = TrustedEntries(tree_blobs(revision.top, revision.commit, judgements))
    changes = config_changes(config, load_config(config_file, beside=root))
    if at.cases is not None:
        pr = (golden if golden is not None else load_golden(root)).cases
        changes += case_changes(config, at.cases, pr)
        warnings += _removed(at.cases, pr, ref)
    snapshot = base_snapshot(revision, root)
    if snapshot is None and os.path.isdir(os.path.join(root, SNAPSHOT_DIR)):
        warnings += (f"the base revision {ref} has no snapshot of this golden set: the pages the runs read were "
                     "not compared with a frozen web (the snapshot of this pull request is the bar once merged)",)
    return Rules(config, at.report, at.origin, changes, trusted, warnings, at.watched, at.cases, snapshot)


def _removed(base: Sequence[Case], pr: Sequence[Case], ref: str) -> tuple[str, ...]:
    """A note naming the cases of the revision the pull request removes (none: no note)."""
    ids = {c.id for c in pr}
    gone = [c.id for c in base if c.id not in ids]
    if not gone:
        return ()
    return (f"{len(gone)} case(s) of the base revision {ref}'s golden.yaml removed by this pull request are "
            f"checked as the base defines them until the merge (a missing run fails): {', '.join(gone)}",)
