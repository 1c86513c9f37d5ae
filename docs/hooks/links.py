"""The docs site's one hook: a link from a page to a file of the repository outside docs/ (a schema, an
example workflow, a fixture) goes to that file on GitHub, where it is read as the repository has it.

The same link works in the repository's own markdown (GitHub resolves ``../gate/schemas/x.json``), so
pages keep writing it so; only the site rewrites it.
"""

from __future__ import annotations

import re
from typing import Any

_OUTSIDE = re.compile(r"\]\(\.\./(?P<path>[^)#\s]+)(?P<anchor>#[^)\s]*)?\)")


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Each ``](../path)`` link: to ``repo_url``'s blob (a file) or tree (a folder) of ``path`` on main."""
    del page, files
    repo = str(config["repo_url"]).rstrip("/")

    def to_github(match: re.Match[str]) -> str:
        path = match["path"]
        kind = "blob" if "." in path.rsplit("/", 1)[-1] else "tree"
        return f"]({repo}/{kind}/main/{path}{match['anchor'] or ''})"

    return _OUTSIDE.sub(to_github, markdown)
