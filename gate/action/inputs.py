"""The action's inputs: ``INPUT_*`` variables read into a frozen :class:`Inputs`, and what follows
from them alone (the judge mode, the golden sets when none is named).

The runner names the variable for input ``golden-set`` ``INPUT_GOLDEN-SET``: ``INPUT_`` + the name
upper-cased with spaces turned into ``_`` (dashes are kept). A malformed value is an
:class:`~gate.errors.InputError`, so the step exits 2 before anything runs.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from gate.config import CALLING_MODES, DEFAULT_PROVIDER, JUDGE_MODES
from gate.deliver.publish import parse_logins
from gate.errors import InputError
from gate.judge.providers import PROVIDERS
from gate.load.shards import parse_shard
from gate.text.redact import secret_values

__all__ = [
    "FAIL_ON",
    "INPUT_NAMES",
    "JUDGE_KEYS",
    "ACTION_JUDGE_MODES",
    "OUTPUT_NAMES",
    "SECRET_INPUTS",
    "SNAPSHOT_ROOT",
    "Inputs",
    "discover_golden_sets",
    "input_env_name",
    "key_input",
    "read_inputs",
    "resolve_judge",
]

INPUT_NAMES = (
    "golden-set", "config", "trust-config", "judge", "judge-provider", "anthropic-api-key", "openai-api-key",
    "github-token", "comment", "comment-author", "baseline-ref", "fail-on", "report-dir", "comment-from", "pr-number",
    "shard", "merge-from", "runs",
)
"""Every input ``action.yml`` declares; a test keeps the two lists equal."""
OUTPUT_NAMES = (
    "verdict", "exit-code", "report-path", "markdown-path", "hard-failures", "soft-warnings",
    "grounding-rate", "hallucination-rate", "judge", "comment-url", "sets",
)
"""Every output ``action.yml`` declares (``comment-url`` in comment mode only)."""
SECRET_INPUTS = ("anthropic-api-key", "openai-api-key", "github-token")
"""Inputs that are masked in the log (``::add-mask::``) before anything else is printed."""
ACTION_JUDGE_MODES = ("auto", *JUDGE_MODES)
"""The action's ``judge`` input: the CLI's modes and ``auto`` (live with the provider's key, else replay)."""
"""The judge modes that call the provider's API, and so need (and alone may see) its key."""
JUDGE_KEYS = {"anthropic": "anthropic-api-key", "openai": "openai-api-key"}
"""Each judge provider that needs a key, and the input that holds it."""
FAIL_ON = ("hard", "soft", "none")
SNAPSHOT_ROOT = "cached-snapshots"

_TRUE = {"true", "yes", "1", "on"}
_FALSE = {"false", "no", "0", "off", ""}


def input_env_name(name: str) -> str:
    """The variable the runner sets for input ``name`` (actions/runner, ``Handler.cs``)."""
    return "INPUT_" + name.replace(" ", "_").upper()


@dataclass(frozen=True)
class Inputs:
    """The action's inputs, parsed and checked; see ``action.yml`` for what each one means."""

    golden_set: tuple[str, ...] = ()
    config: str | None = None
    trust_config: bool = False
    judge: str = "auto"
    judge_provider: str | None = None
    """a name from ``gate.judge.providers.PROVIDERS``; None: the configuration's ``judge.provider``"""
    api_key: str = ""
    """the Anthropic API key"""
    openai_api_key: str = ""
    github_token: str = ""
    comment: bool = True
    comment_authors: tuple[str, ...] = ()
    baseline_ref: str | None = None
    fail_on: str = "hard"
    report_dir: str = "sourcegate-report"
    comment_from: str | None = None
    pr_number: int | None = None
    shard: str | None = None
    """``i/n``: run one shard of the golden set and write its partial report (no comment, no gate)"""
    merge_from: str | None = None
    """merge mode: a folder holding every shard's partial report, merged, gated and commented"""
    runs: str | None = None
    """the golden set's traces from this folder (inside the workspace), not its ``runs/``"""
    secrets: tuple[str, ...] = field(default=(), repr=False, compare=False)
    """the values of the environment's secret-named variables and the keys given as inputs: redacted
    from every trace the gate reads (:func:`gate.text.redact.secret_values`)"""

    @property
    def judge_keys(self) -> dict[str, str]:
        """The judge's API keys by provider name, empty where no key was given (only a live judge
        may be given them)."""
        given = {"anthropic": self.api_key, "openai": self.openai_api_key}
        return {name: given[name] for name in JUDGE_KEYS}

    @property
    def key_inputs(self) -> str:
        """The input that holds the key of the ``judge-provider`` input's provider (else the default's)."""
        return key_input(self.judge_provider or DEFAULT_PROVIDER)

    @property
    def has_judge_key(self) -> bool:
        """:meth:`has_key_for` the ``judge-provider`` input's provider (else the default provider)."""
        return self.has_key_for(self.judge_provider or DEFAULT_PROVIDER)

    def has_key_for(self, provider: str) -> bool:
        """True when a live judge with ``provider`` has what it needs: that provider's key input (a
        provider that needs no key, such as ``scripted``, always has it)."""
        return provider not in JUDGE_KEYS or bool(self.judge_keys[provider])


def key_input(provider: str) -> str:
    """The action input that holds ``provider``'s API key, as messages name it."""
    return JUDGE_KEYS.get(provider, "no key")


def _get(env: Mapping[str, str], name: str) -> str:
    return env.get(input_env_name(name), "").strip()


def _choice(env: Mapping[str, str], name: str, allowed: Sequence[str], default: str) -> str:
    value = _get(env, name).lower() or default
    if value not in allowed:
        raise InputError(f"input {name!r} must be one of {', '.join(allowed)}; got {value!r}")
    return value


def _provider(env: Mapping[str, str]) -> str | None:
    value = _get(env, "judge-provider").lower()
    if value and value not in PROVIDERS:
        raise InputError(f"input 'judge-provider' must be one of {', '.join(PROVIDERS)}, or empty for "
                         f"judge.provider of the configuration; got {value!r}")
    return value or None


def _flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = _get(env, name).lower()
    if not raw:
        return default
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise InputError(f"input {name!r} must be true or false; got {raw!r}")


def _relative(env: Mapping[str, str], name: str) -> str:
    """A path input that must stay inside the workspace (relative, no '..')."""
    value = _get(env, name)
    if os.path.isabs(value) or ".." in value.replace("\\", "/").split("/"):
        raise InputError(f"input {name!r} must be a relative path inside the workspace; got {value!r}")
    return value


def read_inputs(env: Mapping[str, str]) -> Inputs:
    """Parse the ``INPUT_*`` variables; a malformed value is an :class:`InputError` (exit 2)."""
    # Paths are separated by newlines or any other whitespace (a path cannot hold a space).
    golden = tuple(_get(env, "golden-set").split())
    ref = _get(env, "baseline-ref") or None
    if ref is not None and (ref.startswith("-") or any(c.isspace() for c in ref)):
        # A ref starting with '-' would be read by git as an option.
        raise InputError(f"input 'baseline-ref' is not a git revision: {ref!r}")
    report_dir = _relative(env, "report-dir") or "sourcegate-report"
    shard = _get(env, "shard") or None
    if shard is not None:
        try:
            parse_shard(shard)
        except InputError:
            raise InputError(f"input 'shard' must be i/n with i between 1 and n, e.g. 2/4 (shard 2 of 4); "
                             f"got {shard!r}") from None
    merge_from = _relative(env, "merge-from") or None
    if shard is not None and merge_from is not None:
        raise InputError("inputs 'shard' and 'merge-from' exclude each other: shard jobs write partial "
                         "reports, one merge job reads them")
    number_text = _get(env, "pr-number")
    number: int | None = None
    if number_text:
        if not number_text.isdigit() or int(number_text) <= 0:
            raise InputError(f"input 'pr-number' must be a positive integer; got {number_text!r}")
        number = int(number_text)
    return Inputs(
        golden_set=golden,
        config=_get(env, "config") or None,
        trust_config=_flag(env, "trust-config", False),
        judge=_choice(env, "judge", ACTION_JUDGE_MODES, "auto"),
        judge_provider=_provider(env),
        api_key=_get(env, "anthropic-api-key"),
        openai_api_key=_get(env, "openai-api-key"),
        github_token=_get(env, "github-token"),
        comment=_flag(env, "comment", True),
        comment_authors=parse_logins(_get(env, "comment-author"), "input 'comment-author'"),
        baseline_ref=ref,
        fail_on=_choice(env, "fail-on", FAIL_ON, "hard"),
        report_dir=report_dir,
        comment_from=_get(env, "comment-from") or None,
        pr_number=number,
        shard=shard,
        merge_from=merge_from,
        runs=_relative(env, "runs") or None,
        secrets=secret_values(env, (_get(env, "anthropic-api-key"), _get(env, "openai-api-key"),
                                    _get(env, "github-token"))),
    )


def resolve_judge(requested: str, has_key: bool, key_input: str = "anthropic-api-key") -> tuple[str, str | None]:
    """The judge mode to run and, when it differs from what a reader might expect, why.

    ``key_input`` names the input(s) that would hold the judge's key, for the notice."""
    if requested == "auto":
        if has_key:
            return "live", None
        return "replay", (
            f"no {key_input} was given (pull requests from forks get no secrets): "
            "the judge replays its cache; claims missing from it stay unscored, and too many unscored "
            "claims make the run inconclusive, never a pass"
        )
    if requested in CALLING_MODES and not has_key:
        return "replay", (
            f"judge '{requested}' was asked for but no {key_input} was given: the judge replays its cache "
            "instead; claims missing from it stay unscored"
        )
    return requested, None


def discover_golden_sets(root: str, *, required: bool = True) -> tuple[str, ...]:
    """Every golden set under ``cached-snapshots/`` (a folder with a ``golden.yaml``), sorted by path.

    All of them, not just one: a set added to the repository is gated from its first pull request
    on, and nothing is skipped silently (a set the base commit has and the working tree lacks is
    :func:`gate.action.notrun.dropped_sets`'s). None is an input error when ``required``.
    """
    base = os.path.join(root, SNAPSHOT_ROOT)
    found = tuple(sorted(
        os.path.join(SNAPSHOT_ROOT, name)
        for name in (os.listdir(base) if os.path.isdir(base) else ())
        if os.path.isfile(os.path.join(base, name, "golden.yaml"))
    ))
    if not found and required:
        raise InputError(f"no golden set found under {SNAPSHOT_ROOT}/: set the 'golden-set' input")
    return found
