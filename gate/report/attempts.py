"""What the reports say of a case's attempts, the drafts its agent guarded before the answer. Pure.

The markdown and the HTML report say it in the same words; each escapes the findings' text (a trace's
own, written by the agent) with its own function.
"""

from __future__ import annotations

from collections.abc import Sequence

from gate.model import Attempt, Finding

__all__ = ["MAX_FINDINGS_SHOWN", "attempt_word", "attempts_line", "shown_findings"]

MAX_FINDINGS_SHOWN = 20
"""Findings of one attempt shown; the rest are counted."""


def attempt_word(attempt: Attempt) -> str:
    """``rejected`` or ``passed``, and ``, the answer`` for the draft that became the answer."""
    return ("rejected" if attempt.findings else "passed") + (", the answer" if attempt.kept else "")


def attempts_line(attempts: Sequence[Attempt]) -> str:
    """``2 attempts; the answer is attempt 2`` (or that none became the answer)."""
    count = f"{len(attempts)} attempt{'s' if len(attempts) != 1 else ''}"
    kept = next((i for i, a in enumerate(attempts, 1) if a.kept), None)
    if kept is None:
        return f"{count}; none became the answer"
    return f"{count}; the answer is attempt {kept}" + (", which the guard rejected"
                                                        if attempts[kept - 1].findings else "")


def shown_findings(attempt: Attempt) -> tuple[tuple[Finding, ...], int]:
    """The findings of ``attempt`` shown, and how many more there are."""
    return attempt.findings[:MAX_FINDINGS_SHOWN], max(0, len(attempt.findings) - MAX_FINDINGS_SHOWN)
