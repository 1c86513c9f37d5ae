"""The one package that talks to the GitHub REST API.

sourcegate posts a single pull-request comment per golden set and edits it in place on every run.
The pull request comes from the Actions environment (:func:`pr_context_from_env`, in
``context.py``); :class:`GitHubClient` (``client.py``) lists, creates and updates issue comments,
with the retry rules of ``retry.py`` and the error translation of ``replies.py``; ``comments.py``
recognises sourcegate's own comment (:func:`find_own_comment`) and glues the rest together
(:func:`upsert_comment`).

Choices worth knowing:

* A comment is ours only if it carries the exact marker line **and** was written by an accepted
  author. Anyone can paste the marker into a comment; matching on the marker alone would let them
  make sourcegate overwrite (or fail to update) the wrong comment.
* Every ``requests`` exception and every non-2xx reply is turned into :class:`GitHubError` in one
  place (``GitHubClient._send``), so callers handle one error type. Messages name the method and
  the URL path, never the query string or the token.
* Retries: 5xx, 429, secondary rate limits and connection failures are retried with exponential
  backoff, honouring ``retry-after``; the total sleep of one call is capped. A POST is not blindly
  repeated after a 5xx or a lost connection, because GitHub may have created the comment already;
  :func:`upsert_comment` instead lists the comments again and updates the one it finds.

The public names are the ones below; the modules behind them are internal and may change.
"""

from __future__ import annotations

from gate.errors import GitHubError
from gate.github.client import GitHubClient
from gate.github.comments import (
    ACTIONS_BOT_LOGIN,
    DEFAULT_AUTHOR_LOGINS,
    MARKER_PREFIX,
    MAX_COMMENT_CHARS,
    UpsertResult,
    find_own_comment,
    marker,
    upsert_comment,
    with_marker,
)
from gate.github.context import DEFAULT_API_URL, PullRequestContext, pr_context_from_env
from gate.github.replies import FORK_HINT

__all__ = [
    "ACTIONS_BOT_LOGIN",
    "DEFAULT_API_URL",
    "DEFAULT_AUTHOR_LOGINS",
    "FORK_HINT",
    "MARKER_PREFIX",
    "MAX_COMMENT_CHARS",
    "GitHubClient",
    "GitHubError",
    "PullRequestContext",
    "UpsertResult",
    "find_own_comment",
    "marker",
    "pr_context_from_env",
    "upsert_comment",
    "with_marker",
]
