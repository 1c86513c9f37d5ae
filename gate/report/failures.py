"""The hard failures as the PR comment and the job summary show them: by case, new ones first. Pure.

A reviewer asks first what a change broke: the new failures (all of them, without a baseline) come
first, grouped by case in the report's order, each as one list item (the check id and its one-line
reason, every URL in it a link whose text is shortened to fit GitHub's column, whole in its target)
with, under it, the sentence of the answer that carried the citation, quoted. The failures the
baseline already had follow: in the comment folded into one line per check with a count and the
cases (:func:`known_failures`), in the job summary listed as the new ones are.

Nothing here is a table: a list wraps within the column, whatever the URLs and messages hold.
Untrusted text only through :mod:`gate.text.escape`.
"""

from __future__ import annotations

from collections.abc import Sequence

from gate.model import SENTENCE_KEPT, Finding
from gate.report.sections import Section, quote_list
from gate.text.escape import md, md_code, md_link, md_linked

__all__ = ["MESSAGE_SHOWN", "FailureRead", "failure_item", "known_failures", "new_failures"]

MESSAGE_SHOWN = 300
"""Characters of a failure's message shown (its URLs counted whole, each shown shortened)."""

FailureRead = tuple[str, str, Finding]
"""A hard failure as the comment reads it: (tag, case id, finding); the tag is ``new case`` for a case
the baseline does not have, else empty."""


def failure_item(f: Finding) -> str:
    """One failure as a list item: the check, its reason with linked URLs, and the citing sentence
    quoted on the item's second line (when the answer had one)."""
    reason = md_linked(f.message, max_len=MESSAGE_SHOWN)
    if f.url and f.url not in f.message[: MESSAGE_SHOWN - 1]:
        reason = f"{md_link(f.url)}: {reason}"  # the message does not name it: the link goes first
    item = f"- {md_code(f.check, in_table=False)}: {reason}"
    if f.sentence:
        # Indented under the item, so the quote belongs to it; one line (md makes it one).
        item += f"\n  > {md(f.sentence, max_len=SENTENCE_KEPT)}"
    return item


def _by_case(failed: Sequence[FailureRead]) -> list[str]:
    """The failures as rows, one each, in the order given; the first of each case starts with the
    case's heading line (so a trimmed section never ends on a heading without its failures)."""
    rows: list[str] = []
    last: str | None = None
    for tag, case_id, f in failed:
        item = failure_item(f)
        if case_id != last:
            # A blank line first: right under a list item, the heading would be read as part of it.
            heading = f"**{md_code(case_id, in_table=False)}**" + (f" · {tag}" if tag else "")
            item = ("\n" if last is not None else "") + heading + "\n" + item
            last = case_id
        rows.append(item)
    return rows


def new_failures(failed: Sequence[FailureRead], baseline: bool) -> Section:
    """The new hard failures by case (every one, titled "Hard failures", without a ``baseline``)."""
    title = "New failures" if baseline else "Hard failures"
    head = (f"### {title} ({len(failed)})", "")
    return Section(head, tuple(_by_case(failed)), title=title.lower(), unit="failure")


def known_failures(failed: Sequence[FailureRead], fold: bool = True) -> Section:
    """The failures the baseline already had: with ``fold``, one line per check (the most frequent
    first) with its count and cases; else by case, as :func:`new_failures` lists them."""
    head = (f"### Known failures ({len(failed)}, already in the baseline)", "")
    if not fold:
        return Section(head, tuple(_by_case(failed)), title="known failures", unit="failure")
    by_check: dict[str, list[str]] = {}
    for _, case_id, f in failed:
        by_check.setdefault(f.check, []).append(case_id)
    rows = []
    for check, cases in sorted(by_check.items(), key=lambda kv: -len(kv[1])):  # stable: ties keep their order
        once = list(dict.fromkeys(cases))
        rows.append(f"- {md_code(check, in_table=False)}: {len(cases)} in {quote_list(once, max_len=400)}")
    return Section(head, tuple(rows), title="known failures", unit="check")
