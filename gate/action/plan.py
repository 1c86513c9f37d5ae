"""What a check run will do, decided from the inputs and the event before anything runs. Pure.

:func:`plan_check` turns the :class:`~gate.action.inputs.Inputs` and the pull request (if any) into a
:class:`SetPlan` of values: the request the gate runs (a :class:`~gate.pipeline.SetRequest`, or in
merge mode a :class:`~gate.pipeline.MergeRequest`), the report files, whether to comment and as
whom, the judge mode, the baseline commit and the notes that tell the reader why (no key, a fork,
not a pull request).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import TYPE_CHECKING

from gate.action.inputs import Inputs, key_input, resolve_judge
from gate.config import CALLING_MODES, DEFAULT_PROVIDER
from gate.load.shards import parse_shard
from gate.pipeline import MergeRequest, SetRequest
from gate.report.registry import REPORTERS

if TYPE_CHECKING:
    from gate.github import PullRequestContext

__all__ = ["SetPlan", "plan_check"]


@dataclass(frozen=True)
class SetPlan:
    """What one golden set's run will do, decided from the inputs and the event before anything runs."""

    request: SetRequest | MergeRequest
    """what the gate runs: a golden set (or one shard of it), or the merge of its shards' partial reports"""
    judge: str
    baseline_ref: str | None
    comment: bool
    comment_authors: tuple[str, ...]
    """the ``comment-author`` input's logins (empty: ``$SOURCEGATE_COMMENT_AUTHORS``, as on the command line)"""
    notes: tuple[str, ...]
    files: Mapping[str, str]
    """reporter name -> its file in the report folder (every reporter that has a file name)"""


def _notes(inputs: Inputs, judge: str, why: str | None, baseline: str | None,
           pr: PullRequestContext | None, comment: bool) -> list[str]:
    """Why the run differs from what a reader might expect: the judge, the baseline, the comment."""
    notes = []
    if why:
        notes.append(why)
    elif any(inputs.judge_keys.values()) and judge not in CALLING_MODES:
        notes.append(f"judge '{judge}' was asked for: the judge's API key is not used")
    if baseline is None:
        notes.append("not a pull request and no baseline-ref: the baseline is read from the working tree")
    if inputs.comment and pr is None:
        notes.append("not a pull request: no comment is posted")
    elif inputs.comment and not inputs.github_token:
        notes.append("no github-token: no comment is posted")
    elif comment and pr is not None and pr.is_fork:
        notes.append(
            "pull request from a fork: its token is usually read-only, so the comment may be refused; "
            "the verdict does not change, and the fork-safe pair in docs/action.md posts it instead"
        )
    return notes


def plan_check(inputs: Inputs, paths: Sequence[str], pr: PullRequestContext | None,
               partials: Sequence[str] = (), *, provider: str | None = None) -> SetPlan:
    """The request, the report files and the notes for the log and the summary. Pure: no I/O.

    With ``inputs.shard``, one shard of the set is checked and nothing is commented; with
    ``inputs.merge_from``, the ``partials`` found there are merged, then gated and commented as a
    check would be. The judge's keys are in the request only when the judge runs live.
    """
    notes = []
    if inputs.shard:
        notes.append(f"shard {inputs.shard}: a partial report for the merge job, which compares, gates "
                     "and comments; this step does not fail on the verdict")
        inputs = replace(inputs, comment=False)
    provider = inputs.judge_provider or provider or DEFAULT_PROVIDER
    judge, why = resolve_judge(inputs.judge, inputs.has_key_for(provider), key_input(provider))
    baseline = inputs.baseline_ref or (pr.base_sha if pr is not None else None) or None
    comment = inputs.comment and pr is not None and bool(inputs.github_token)
    d = inputs.report_dir
    files = {name: os.path.join(d, entry.file_name) for name, entry in REPORTERS.items() if entry.file_name}
    # --trust-config is about a --config the base revision lacks: without one it says nothing.
    trust = inputs.trust_config and bool(inputs.config)
    request: SetRequest | MergeRequest
    if inputs.merge_from:  # the merge judges nothing: the shards did
        request = MergeRequest(paths[0], (*paths[1:], *partials), config_file=inputs.config, baseline_ref=baseline,
                               trust_config=trust, runs=inputs.runs, secrets=inputs.secrets)
    else:
        keys = MappingProxyType(inputs.judge_keys) if judge in CALLING_MODES else None
        request = SetRequest(tuple(paths), inputs.config, judge, baseline_ref=baseline, trust_config=trust,
                             judge_provider=inputs.judge_provider,
                             shard=parse_shard(inputs.shard) if inputs.shard else None, judge_keys=keys,
                             runs=inputs.runs, secrets=inputs.secrets)
    notes += _notes(inputs, judge, why, baseline, pr, comment)
    return SetPlan(request, judge, baseline, comment, inputs.comment_authors if comment else (), tuple(notes),
                MappingProxyType(files))
