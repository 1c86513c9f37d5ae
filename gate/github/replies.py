"""GitHub's replies read into values, and its error replies into the one :class:`GitHubError`.

Every non-2xx reply becomes a :class:`GitHubError` here (:func:`raise_http_error`), chained to
``requests``' ``HTTPError``. Messages name the method and the URL path, never the query string or
the token (the caller passes its ``scrub``), and carry GitHub's own ``message`` and ``errors``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn
from urllib.parse import urlsplit

import requests

from gate.errors import GitHubError

__all__ = ["FORK_HINT", "MAX_ERROR_TEXT", "github_message", "raise_http_error", "reply_json", "reply_object"]

FORK_HINT = (
    "the token cannot write to this pull request (a fork PR's token is read-only); "
    "see the fork-safe workflow pair in docs/fork-safe.md"
)

MAX_ERROR_TEXT = 500
"""The longest piece of a reply quoted in a message."""


def raise_http_error(
    what: str,
    response: requests.Response,
    *,
    write: bool,
    scrub: Callable[[str], str],
    error_type: type[GitHubError] = GitHubError,
) -> NoReturn:
    """Raise the one :class:`GitHubError` for a non-2xx reply, chained to requests' HTTPError."""
    status = response.status_code
    message, details = github_message(response)
    text = f"GitHub API {what} failed: HTTP {status}"
    if message:
        text += f": {message}"
    if details:
        text += f" ({details})"
    if status == 403 and write:
        text += f"; {FORK_HINT}"
    error = error_type(scrub(text)[: 2 * MAX_ERROR_TEXT], status=status)
    try:
        response.raise_for_status()
    except requests.HTTPError as cause:
        # Chained so a debugger can reach the response; its text holds the URL, never the token.
        raise error from cause
    # Only a 1xx/3xx reply that requests did not follow gets here: nothing to chain.
    raise error from None


def github_message(response: requests.Response) -> tuple[str, str]:
    """GitHub's ``message`` and a short summary of its ``errors`` list, from an error reply."""
    try:
        data = response.json()
    except ValueError:
        return "", ""
    if not isinstance(data, dict):
        return "", ""
    message = data.get("message")
    message = " ".join(message.split()) if isinstance(message, str) else ""
    parts: list[str] = []
    errors = data.get("errors")
    if isinstance(errors, list):
        for item in errors[:5]:
            if isinstance(item, dict):
                if isinstance(item.get("message"), str):
                    parts.append(item["message"])
                else:
                    where = ".".join(str(item[k]) for k in ("resource", "field") if item.get(k))
                    code = item.get("code", "")
                    parts.append(f"{where}: {code}" if where else str(code))
            elif isinstance(item, str):
                parts.append(item)
    return message[:MAX_ERROR_TEXT], "; ".join(parts)[:MAX_ERROR_TEXT]


def reply_json(response: requests.Response, method: str, url: str) -> Any:
    """The JSON body of a 2xx reply; a body that is not JSON is a :class:`GitHubError`."""
    try:
        return response.json()
    except ValueError as exc:
        raise GitHubError(
            f"GitHub API {method} {urlsplit(url).path}: HTTP {response.status_code} reply is not JSON",
            status=response.status_code,
        ) from exc


def reply_object(response: requests.Response, method: str, url: str) -> dict[str, Any]:
    """The JSON object of a 2xx reply; anything else is a :class:`GitHubError`."""
    data = reply_json(response, method, url)
    if not isinstance(data, dict):
        raise GitHubError(
            f"GitHub API {method} {urlsplit(url).path}: expected a JSON object",
            status=response.status_code,
        )
    return data
