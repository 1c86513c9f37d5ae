"""Which pull request a run is about, read from the GitHub Actions environment.

:func:`pr_context_from_env` reads the event payload named by ``GITHUB_EVENT_PATH`` and returns a
:class:`PullRequestContext`: the API root, the base repository, the number, the base and head
commits and whether the head is a fork. No network: only the event file is read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gate.errors import GitHubError

__all__ = ["DEFAULT_API_URL", "REPO_NAME", "PullRequestContext", "pr_context_from_env"]

DEFAULT_API_URL = "https://api.github.com"

#: Owner and repository names on GitHub use only these characters; checking them keeps a hostile
#: GITHUB_REPOSITORY or argument from steering requests to another API path.
REPO_NAME = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


@dataclass(frozen=True)
class PullRequestContext:
    """Where to comment: the API root, the base repository and the pull request number."""

    api_url: str
    repository: str
    number: int
    base_sha: str | None
    head_sha: str | None
    is_fork: bool


def pr_context_from_env(env: Mapping[str, str]) -> PullRequestContext | None:
    """Read the pull request from a GitHub Actions environment.

    Uses ``GITHUB_EVENT_PATH`` (the event payload), ``GITHUB_REPOSITORY`` and ``GITHUB_API_URL``.
    Returns None when there is no event file or the event is not about a pull request (a push,
    a schedule, ...). Raises :class:`GitHubError` when the event file cannot be read or a pull
    request event lacks its number.
    """
    event_path = env.get("GITHUB_EVENT_PATH")
    if not event_path:
        return None
    try:
        with open(event_path, encoding="utf-8") as fh:
            event = json.load(fh)
    except (OSError, ValueError) as exc:
        raise GitHubError(
            f"cannot read the GitHub event file named by GITHUB_EVENT_PATH ({event_path}): {exc}"
        ) from exc
    if not isinstance(event, dict):
        return None
    pr = event.get("pull_request")
    if not isinstance(pr, dict):
        return None

    number = pr.get("number", event.get("number"))
    if not isinstance(number, int) or isinstance(number, bool) or number <= 0:
        raise GitHubError(f"the pull request event in {event_path} has no valid pull_request.number")

    base = _as_dict(pr.get("base"))
    head = _as_dict(pr.get("head"))
    base_name = _as_dict(base.get("repo")).get("full_name")
    # head.repo is null when the fork was deleted after the pull request was opened.
    head_name = _as_dict(head.get("repo")).get("full_name")
    # Unknown counts as a fork: assuming a read-only token is the cautious reading.
    is_fork = not (
        isinstance(base_name, str)
        and isinstance(head_name, str)
        and base_name.casefold() == head_name.casefold()
    )

    repository = env.get("GITHUB_REPOSITORY") or (base_name if isinstance(base_name, str) else None)
    if repository is None:
        repository = _as_dict(event.get("repository")).get("full_name")
    if not isinstance(repository, str) or not REPO_NAME.match(repository):
        raise GitHubError(f"cannot tell the repository (owner/name) of the pull request: {repository!r}")

    api_url = (env.get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/")
    return PullRequestContext(
        api_url=api_url,
        repository=repository,
        number=number,
        base_sha=_str_or_none(base.get("sha")),
        head_sha=_str_or_none(head.get("sha")),
        is_fork=is_fork,
    )


def _as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
