"""Where the rendered reports go outside the process: the job summary file and the PR comment.

An I/O edge. Neither step can change the verdict or the exit code: a failure to post (the
read-only token of a fork PR answers 403) is said on stderr and the job summary is kept, so the
reviewer still sees the result in the workflow run (see ``docs/fork-safe.md`` for posting from a
second, trusted workflow).
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Collection, Iterable, Mapping
from typing import TYPE_CHECKING, TextIO

from gate.errors import GitHubError, InputError
from gate.files.outputs import append_file, write_file

if TYPE_CHECKING:
    from gate.github import GitHubClient, PullRequestContext, UpsertResult

__all__ = [
    "COMMENT_AUTHORS_ENV",
    "LOGIN_FORM",
    "comment_authors",
    "emit",
    "gate_run_url",
    "is_login",
    "parse_logins",
    "post_comment",
    "run_url",
    "summary_target",
    "write_summary",
]

COMMENT_AUTHORS_ENV = "SOURCEGATE_COMMENT_AUTHORS"
"""Comma-separated logins whose marked comment is sourcegate's too (``--comment-author`` wins)."""
LOGIN_FORM = "letters, digits and '-', optionally ending in [bot], e.g. my-app[bot]"
"""What a comment author's login looks like, as error messages say it."""

_LOGIN = re.compile(r"[A-Za-z0-9-]+(\[bot\])?")
_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
_SAFE_URL = re.compile(r"^https?://[A-Za-z0-9.-]+(:\d+)?(/[A-Za-z0-9._~/-]*)?$")


def is_login(value: str) -> bool:
    """True when ``value`` is a login a comment can be written by: ``[A-Za-z0-9-]+``, optionally
    followed by ``[bot]`` (a GitHub App such as ``my-app[bot]``). The whole string must match."""
    return _LOGIN.fullmatch(value) is not None


def _checked(logins: Iterable[str], source: str) -> tuple[str, ...]:
    found: list[str] = []
    for login in logins:
        if not is_login(login):
            raise InputError(f"{source}: {login!r} is not a GitHub login ({LOGIN_FORM})")
        found.append(login)
    return tuple(dict.fromkeys(found))


def parse_logins(text: str, source: str) -> tuple[str, ...]:
    """The logins in ``text``, separated by commas or newlines (spaces around them are dropped), in
    order and once each. One that is not a login is an :class:`InputError` naming ``source``.

    Spaces do not separate: ``my app[bot]`` is refused rather than read as two logins.
    """
    return _checked((item.strip() for item in re.split(r"[,\n]", text) if item.strip()), source)


def comment_authors(flag: Iterable[str] | None, env: Mapping[str, str]) -> tuple[str, ...]:
    """The logins to accept as the comment's author besides the defaults (``github-actions[bot]``
    and the token owner): ``--comment-author`` when given, else ``$SOURCEGATE_COMMENT_AUTHORS``.

    An invalid login is an :class:`InputError` (exit 2) naming the flag or the variable.
    """
    named = list(flag or ())
    if named:
        return _checked(named, "--comment-author")
    return parse_logins(env.get(COMMENT_AUTHORS_ENV, ""), COMMENT_AUTHORS_ENV)


def emit(target: str | None, text: str | Iterable[str]) -> None:
    """Write one rendering: nowhere (None), to stdout ('-'), or to a file (:func:`gate.files.outputs.write_file`);
    a rendering in pieces is written as they come."""
    if target is None:
        return
    if isinstance(text, str) and target == "-" and not text.endswith("\n"):
        text += "\n"
    write_file(target, text)


def summary_target(explicit: str | None, env: Mapping[str, str]) -> tuple[str | None, bool]:
    """(file, append): ``--summary FILE`` is replaced; ``$GITHUB_STEP_SUMMARY`` is appended to.

    GitHub collects the summary file of a step after it ends; other commands of the same step may
    have written to it already, so the default is appended to rather than replaced.
    """
    if explicit is not None:
        return explicit, False
    default = env.get("GITHUB_STEP_SUMMARY")
    return (default, True) if default else (None, False)


def write_summary(text: str, target: str, append: bool) -> None:
    """Write (or append) the job summary; '-' prints it."""
    if append:
        append_file(target, text if text.endswith("\n") else text + "\n")
    else:
        write_file(target, text)


def run_url(env: Mapping[str, str]) -> str | None:
    """The URL of this workflow run (for the comment's link to the job summary), when Actions set it."""
    server, repo, run = env.get("GITHUB_SERVER_URL"), env.get("GITHUB_REPOSITORY"), env.get("GITHUB_RUN_ID")
    if not (server and repo and run and run.isdigit()):
        return None
    url = f"{server.rstrip('/')}/{repo}/actions/runs/{run}"
    return url if _SAFE_URL.match(url) else None


def gate_run_url(env: Mapping[str, str]) -> str | None:
    """The URL of the workflow run whose report this is, for the comment's links to its job summary
    and report artifact.

    In a ``workflow_run`` event (the fork-safe commenter) that is the gate's run the event names
    (``workflow_run.id`` of the payload at ``GITHUB_EVENT_PATH``), not this one; when the payload does
    not name it, there is no link (the comment still names the job summary). Any other event: this
    run (:func:`run_url`)."""
    if env.get("GITHUB_EVENT_NAME") != "workflow_run":
        return run_url(env)
    try:
        with open(env.get("GITHUB_EVENT_PATH") or "", encoding="utf-8") as fh:
            event = json.load(fh)
    except (OSError, ValueError):
        return None
    gate_run = event.get("workflow_run") if isinstance(event, dict) else None
    run_id = gate_run.get("id") if isinstance(gate_run, dict) else None
    if not isinstance(run_id, int) or isinstance(run_id, bool) or run_id <= 0:
        return None
    return run_url({**env, "GITHUB_RUN_ID": str(run_id)})


def _update_existing(client: GitHubClient, repo: str, number: int, key: str, body: str,
                     authors: Collection[str]) -> UpsertResult | None:
    """Update sourcegate's comment for ``key`` in place, found as :func:`gate.github.upsert_comment`
    finds it; None (nothing posted) when the pull request has none."""
    from gate.github import DEFAULT_AUTHOR_LOGINS, UpsertResult, find_own_comment, with_marker

    with client.operation():
        login = client.authenticated_login()
        logins = DEFAULT_AUTHOR_LOGINS | ({login} if login else frozenset()) | frozenset(authors)
        existing = find_own_comment(client.list_comments(repo, number), key, logins)
        if existing is None:
            return None
        updated = client.update_comment(repo, int(existing["id"]), with_marker(body, key))
    url = updated.get("html_url") if isinstance(updated.get("html_url"), str) else existing.get("html_url")
    return UpsertResult("updated", int(existing["id"]), url if isinstance(url, str) else None)


def _context(env: Mapping[str, str], number: int | None) -> PullRequestContext | None:
    from gate.github import DEFAULT_API_URL, PullRequestContext, pr_context_from_env

    if number is None:
        return pr_context_from_env(env)
    repo = env.get("GITHUB_REPOSITORY", "")
    if not _REPO.match(repo):
        raise GitHubError(f"GITHUB_REPOSITORY must be owner/name, got {repo!r}")
    api = (env.get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/")
    return PullRequestContext(api_url=api, repository=repo, number=number, base_sha=None, head_sha=None,
                              is_fork=True)


def post_comment(body: str, key: str, env: Mapping[str, str], *, number: int | None = None,
                 err: TextIO | None = None, authors: Collection[str] | None = None,
                 update_only: bool = False, fails: bool = False) -> UpsertResult | None:
    """Create or update sourcegate's comment on a PR: what was done and where, or None when it was not.

    The PR is ``number`` (in ``GITHUB_REPOSITORY``), else the one of this Actions run
    (``GITHUB_EVENT_PATH``); the API root is ``GITHUB_API_URL``, the token ``GITHUB_TOKEN``.
    ``authors`` are logins accepted as the comment's author besides the defaults (see
    :func:`comment_authors`); None reads them from ``$SOURCEGATE_COMMENT_AUTHORS``.
    Every problem is a message on ``err`` (stderr), never an exception: the verdict stands. A
    comment created as an author the next run would not recognise (a GitHub App's
    ``<slug>[bot]`` nobody named) is said too, with the setting that fixes it.

    ``update_only``: only an existing comment for ``key`` is updated, none is created (None when
    there is none). ``fails``: posting is the caller's whole job and a failure fails it (exit 5), as
    the message then says; otherwise the verdict and exit code stand.
    """
    from gate.github import FORK_HINT, GitHubClient, upsert_comment

    out = err if err is not None else sys.stderr
    try:
        if authors is None:
            authors = comment_authors(None, env)
    except InputError as e:
        out.write(f"sourcegate: --comment: {e}; no comment posted\n")
        return None
    try:
        ctx = _context(env, number)
        if ctx is None:
            out.write("sourcegate: --comment: this is not a pull_request event (GITHUB_EVENT_PATH); "
                      "no comment posted\n")
            return None
        token = env.get("GITHUB_TOKEN", "")
        if not token:
            out.write("sourcegate: --comment: GITHUB_TOKEN is not set; no comment posted "
                      "(pass `env: GITHUB_TOKEN: ${{ github.token }}` to the step)\n")
            return None
        with GitHubClient(ctx.api_url, token) as client:
            if update_only:
                found = _update_existing(client, ctx.repository, ctx.number, key, body, authors)
                if found is None:
                    return None
                done = found
            else:
                done = upsert_comment(client, ctx.repository, ctx.number, key, body, extra_authors=authors)
    except GitHubError as e:
        # A refused write says the fork hint already; a refused read does not.
        hint = f" ({FORK_HINT})" if e.status == 403 and FORK_HINT not in str(e) else ""
        then = ("posting it is this run's job, so it fails (exit 5)" if fails else
                "the verdict and exit code are unchanged; the job summary and the report artifact have the "
                "full report")
        out.write(f"sourcegate: --comment: could not post the PR comment: {e}{hint}. {then[0].upper()}{then[1:]}\n")
        return None
    out.write(f"sourcegate: PR comment {done.action}: {done.url or done.comment_id}\n")
    who = done.unrecognised_author
    if who is not None:
        # GitHub's logins always fit; anything else is shown quoted, and cannot be named as an author.
        fix = (f"set `comment-author: {who}` on the action (CLI: `--comment-author '{who}'` or "
               f"{COMMENT_AUTHORS_ENV}='{who}')" if is_login(who) else "it cannot be named as an author")
        out.write(f"sourcegate: --comment: GitHub wrote the comment as {who if is_login(who) else repr(who)}, "
                  "which is not an accepted comment author, so the next run would not recognise it and "
                  f"would post a second comment: {fix}\n")
    return done

