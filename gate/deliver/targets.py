"""Every output path of a command checked before its work starts: one function, :func:`check_targets`.

A command lists what it will write as :class:`Target` values (the flag or input that named the
path, and the path) and what it will read (:func:`reads_of` for a golden set's run); before any
set runs, any judge is called or anything is written, :func:`check_targets` refuses with an
:class:`~gate.errors.InputError` (exit 2) naming the flag, the path and what is wrong:

* a path that cannot be written (:func:`gate.files.outputs.unwritable`): a folder in the way, a path
  ending in ``/``, a folder above it that is a file, no permission;
* a path the command reads: the golden set's ``golden.yaml``, configuration and baseline, a file
  in its ``runs/``, ``snapshot/`` or ``judgements/``, a trace file or partial report of the run;
* one file named by two outputs (two flags, or two golden sets whose names make one file name).
  Stdout, devices, FIFOs and sockets may be shared, and so may a file every output appends to.

The write itself still answers for itself (:func:`gate.files.outputs.write_file`): the path can change
between the check and the write.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from gate.config import CONFIG_NAME
from gate.errors import InputError
from gate.files.outputs import resolve_within, shared_target, unwritable
from gate.files.paths import is_below
from gate.judge.cache import JUDGEMENTS_DIR
from gate.load.golden import GOLDEN_NAME, RUNS_DIR, SNAPSHOT_DIR, golden_identity
from gate.load.goldensets import NAME_FIELD, per_set_file
from gate.pipeline import TRACES_NAME, MergeRequest, SetRequest
from gate.store.baseline import baseline_file

__all__ = ["Target", "check_targets", "reads_of", "set_name"]


@dataclass(frozen=True)
class Target:
    """One path a command will write, and how the user named it."""

    flag: str
    """the option or input that named it: ``--json``, ``--out``, ``input 'report-dir'``"""
    path: str
    folder: bool = False
    """a folder files are written into (``import --out DIR``), not a file"""
    append: bool = False
    """appended to, not replaced (the job summary file of the runner)"""
    owner: str | None = None
    """the golden set it is written for, when a run has several"""
    within: str | None = None
    """a folder its real path must stay in when it lies inside it (the golden set of a baseline)"""


def set_name(paths: Sequence[str]) -> str:
    """The name ``{name}`` stands for in a set's output paths: ``golden.yaml``'s, or ``traces``."""
    return golden_identity(paths[0])[0] if os.path.isdir(paths[0]) else TRACES_NAME


def reads_of(request: SetRequest | MergeRequest) -> dict[str, str]:
    """What a run of ``request`` reads: path -> what it is (a folder stands for everything in it)."""
    if isinstance(request, MergeRequest):
        reads = _set_files(request.golden, request.config_file, request.baseline, compare=True)
        reads.update((p, "a partial report of this merge") for p in request.partials)
        if request.runs is not None:
            reads[request.runs] = "the folder of traces (--runs)"
        return reads
    if os.path.isdir(request.paths[0]):
        reads = _set_files(request.paths[0], request.config_file, request.baseline, compare=request.compare)
        if request.runs is not None:
            reads[request.runs] = "the folder of traces (--runs)"
        return reads
    reads = {p: "a trace file of this run" for p in request.paths}
    if request.config_file:
        reads[request.config_file] = "the configuration (--config)"
    if request.compare and request.baseline:
        reads[per_set_file(request.baseline, TRACES_NAME) or request.baseline] = "the baseline (--baseline)"
    return reads


def _set_files(root: str, config: str | None, baseline: str | None, *, compare: bool) -> dict[str, str]:
    reads = {
        os.path.join(root, GOLDEN_NAME): f"the golden set's {GOLDEN_NAME}",
        os.path.join(root, RUNS_DIR): f"the golden set's {RUNS_DIR}/",
        os.path.join(root, SNAPSHOT_DIR): f"the golden set's {SNAPSHOT_DIR}/",
        os.path.join(root, JUDGEMENTS_DIR): f"the golden set's judge cache ({JUDGEMENTS_DIR}/)",
        config or os.path.join(root, CONFIG_NAME): "the configuration" + (" (--config)" if config else ""),
    }
    if compare:
        file = baseline_file(root)
        if baseline:
            file = per_set_file(baseline, set_name((root,)) if NAME_FIELD in baseline else None) or baseline
        reads[file] = "the baseline" + (" (--baseline)" if baseline else "")
    return reads


def check_targets(targets: Iterable[Target], reads: Mapping[str, str] | None = None) -> None:
    """Refuse the first target that cannot be written, is read by the command, or is named twice.

    See the module docstring; nothing is created or written.
    """
    read = {os.path.realpath(p): what for p, what in (reads or {}).items()}
    seen: dict[str, Target] = {}
    for t in targets:
        why = unwritable(t.path, folder=t.folder, append=t.append)
        if why is None and t.within is not None and is_below(t.path, t.within):
            try:
                resolve_within(t.path, t.within)
            except InputError as e:
                why = e.detail
        if why is None and t.path != "-":
            why = _read_here(os.path.realpath(t.path), read)
        if why is not None:
            raise InputError(f"{_named(t)}: cannot write here: {why}")
        if t.folder or shared_target(t.path):
            continue
        key = os.path.realpath(t.path)
        other = seen.setdefault(key, t)
        if other is not t and not (other.append and t.append):
            raise InputError(f"{_named(t)}: cannot write here: {_clash(other, t)} would both write this file")


def _read_here(real: str, read: Mapping[str, str]) -> str | None:
    for path, what in read.items():
        if real == path or is_below(real, path):
            inside = "" if real == path else "a file in "
            return f"this run reads {inside}{what}"
    return None


def _named(t: Target) -> str:
    return f"{t.flag} {t.path or repr(t.path)}" + (f" (golden set {t.owner!r})" if t.owner else "")


def _clash(a: Target, b: Target) -> str:
    if a.flag != b.flag:
        return f"{a.flag} and {b.flag}"
    return f"golden sets {a.owner!r} and {b.owner!r}" if a.owner and b.owner else f"{a.flag} twice"
