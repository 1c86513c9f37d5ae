"""Regenerating an answer without what the guard rejected: the values the loop hands the agent. Pure.

The loop itself is :meth:`gate.Recorder.regenerate` (or a hand-written one around
:meth:`gate.Recorder.attempt`); the replay server's ``POST /guard`` answers an agent in another
language with the same findings. Each draft the guard refuses becomes an :class:`gate.model.Attempt`
of the trace, and a :class:`Rejection` the agent tells its model before it drafts again: every
finding of the draft, one line each, and every URL rejected so far, so that a URL refused two
drafts ago does not come back. :class:`Regenerated` is how the loop ended: the kept draft, or
a clear "gave up" with the last draft beside it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from gate.model import Attempt, Citation, Finding

__all__ = ["Regenerated", "Rejection", "attempt_of", "one_line", "rejected_urls"]


def one_line(text: str) -> str:
    """``text`` on one line: every run of whitespace (a page's line breaks in a quote) one space."""
    return " ".join(text.split())


def rejected_urls(findings: Iterable[Finding]) -> tuple[str, ...]:
    """The URLs ``findings`` name, each once, in order (a finding of the answer as a whole names none)."""
    return tuple(dict.fromkeys(f.url for f in findings if f.url is not None))


def attempt_of(findings: Iterable[Finding]) -> Attempt:
    """The attempt of a draft the guard gave ``findings`` (kept and timed by the caller)."""
    found = tuple(findings)
    return Attempt(rejected=rejected_urls(found), findings=found)


@dataclass(frozen=True)
class Rejection:
    """What the guard refused so far, for the agent to tell its model before it drafts again."""

    attempt: int
    """the draft refused last (1 for the first draft)"""
    findings: tuple[Finding, ...]
    """every finding of that draft"""
    urls: tuple[str, ...]
    """every URL rejected so far, in any draft, each once, in the order first rejected"""

    def message(self) -> str:
        """What to tell the model: a line per finding (its URL, check and reason), then the URLs never to
        cite again."""
        lines = [f"The guard rejected answer {self.attempt}:"]
        lines.extend(f"- {f.url}: {f.check}: {one_line(f.message)}" if f.url is not None
                     else f"- {f.check}: {one_line(f.message)}" for f in self.findings)
        if self.urls:
            lines.append("Do not cite or show these URLs again: " + ", ".join(self.urls))
        lines.append("Answer again: cite only pages you read, with quotes that are on them.")
        return "\n".join(lines)


@dataclass(frozen=True)
class Regenerated:
    """How :meth:`gate.Recorder.regenerate` ended: the draft the guard let through, or it gave up."""

    answer: str | None
    """the draft the guard let through; None: every draft was rejected (``gave_up``)"""
    citations: tuple[Citation, ...] | None
    """that draft's citations (None: the draft gave none, its links are what it cites)"""
    attempts: tuple[Attempt, ...]
    """every draft of this loop, in order, as the trace records them"""
    last: tuple[str, tuple[Citation, ...] | None]
    """the last draft and its citations, kept or not (what an agent that gave up may still show)"""

    @property
    def gave_up(self) -> bool:
        """True when every draft was rejected, up to the limit."""
        return self.answer is None

    @property
    def rejected(self) -> tuple[str, ...]:
        """Every URL rejected in any draft of the loop, each once."""
        return tuple(dict.fromkeys(u for a in self.attempts for u in a.rejected))
