"""What a check run will do, decided from the inputs and the event before anything runs. Pure.

:func:`plan_check` turns the :class:`~gate.action.inputs.Inputs` and the pull request (if any) into
the ``sourcegate check`` arguments, the judge mode, the baseline commit, whether to comment, the
report files and the notes that tell the reader why (no key, a fork, not a pull request).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from gate.action.inputs import Inputs, resolve_judge
from gate.report.registry import REPORTERS

if TYPE_CHECKING:
    from gate.github import PullRequestContext

__all__ = ["Plan", "plan_check"]


@dataclass(frozen=True)
class Plan:
    """What the check run will do, decided from the inputs and the event before anything runs."""

    argv: tuple[str, ...]
    judge: str
    baseline_ref: str | None
    comment: bool
    notes: tuple[str, ...]
    files: Mapping[str, str]


def plan_check(inputs: Inputs, paths: Sequence[str], pr: PullRequestContext | None,
               partials: Sequence[str] = ()) -> Plan:
    """The CLI arguments and the notes for the log and the summary. Pure: no I/O.

    With ``inputs.shard``, one shard of the set is checked (``check --shard``) and nothing is
    commented; with ``inputs.merge_from``, the ``partials`` found there are merged
    (``sourcegate merge``), then gated and commented as a check would be.
    """
    notes: list[str] = []
    if inputs.shard:
        notes.append(f"shard {inputs.shard}: a partial report for the merge job, which compares, gates "
                     "and comments; this step does not fail on the verdict")
        inputs = replace(inputs, comment=False)
    judge, why = resolve_judge(inputs.judge, inputs.has_judge_key, inputs.key_inputs)
    if why:
        notes.append(why)
    elif any(inputs.judge_keys.values()) and judge != "live":
        notes.append(f"judge '{judge}' was asked for: the judge's API key is not used")
    baseline = inputs.baseline_ref or (pr.base_sha if pr is not None else None)
    if baseline is None:
        notes.append("not a pull request and no baseline-ref: the baseline is read from the working tree")
    comment = inputs.comment and pr is not None and bool(inputs.github_token)
    if inputs.comment and pr is None:
        notes.append("not a pull request: no comment is posted")
    elif inputs.comment and not inputs.github_token:
        notes.append("no github-token: no comment is posted")
    elif comment and pr is not None and pr.is_fork:
        notes.append(
            "pull request from a fork: its token is usually read-only, so the comment may be refused; "
            "the verdict does not change, and the fork-safe pair in docs/action.md posts it instead"
        )
    d = inputs.report_dir
    files = {name: os.path.join(d, entry.file_name) for name, entry in REPORTERS.items() if entry.file_name}
    head = ["merge", *paths, *partials] if inputs.merge_from else ["check", *paths]
    argv = [*head, *(x for name, file in files.items() for x in (f"--{name}", file))]
    if not inputs.merge_from:  # the merge judges nothing: the shards did
        argv += ["--judge", judge]
        if inputs.judge_provider is not None:
            argv += ["--judge-provider", inputs.judge_provider]
    if inputs.shard:
        argv += ["--shard", inputs.shard]
    if inputs.config:
        argv += ["--config", inputs.config]
        if inputs.trust_config:
            argv.append("--trust-config")
    if baseline:
        argv += ["--baseline-ref", baseline]
    if comment:
        argv.append("--comment")
        # One argument each, with '=': a value is never read as an option.
        argv += [f"--comment-author={login}" for login in inputs.comment_authors]
    return Plan(tuple(argv), judge, baseline, comment, tuple(notes), files)
