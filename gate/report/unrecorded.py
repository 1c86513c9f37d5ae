"""The section that lists the pages the base revision's snapshot never recorded. Pure.

With a base revision, every page a run read is compared with the base's snapshot
(:mod:`gate.checks.frozen_web`); a page the base never recorded was recorded in the pull request (a
pull request that changed its queries records their pages), so nothing the base vouches for says what
it says. The comment, the job summary and the markdown report list them, a line per page with its
case, for the reviewer to read. URLs and case ids come from the traces: every one passes through
:mod:`gate.text.escape`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from gate.report.sections import Section
from gate.text.escape import md_code, md_link

__all__ = ["UNRECORDED_TITLE", "unrecorded_note", "unrecorded_section"]

UNRECORDED_TITLE = "Pages recorded in this pull request"


def unrecorded_note(code: Callable[[str], str]) -> str:
    """What the list means, the setting that makes each page a failure shown by ``code`` (markdown, HTML)."""
    return ("Not in the base revision's snapshot: nothing the base recorded vouches for what they say, so read "
            f"them before approving ({code('replay.unrecorded_pages: fail')} in the base's configuration makes "
            "each a hard failure).")


def _md_code(text: str) -> str:
    return f"`{text}`"


def unrecorded_section(pages: Sequence[tuple[str, str]]) -> Section:
    """``pages`` (case id, URL) under a heading and the note; empty when there are none."""
    if not pages:
        return Section(())
    rows = tuple(f"- {md_code(case_id, in_table=False)}: {md_link(url)}" for case_id, url in pages)
    return Section((f"### {UNRECORDED_TITLE} ({len(pages)})", "", unrecorded_note(_md_code), ""), rows,
                   title=UNRECORDED_TITLE.lower(), unit="page")
