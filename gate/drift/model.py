"""The values of a drift report: what a golden set cites, what the live web answers now, the verdict.

Every value is frozen and built once: :mod:`gate.drift.cited` makes the :class:`CitedUrl` values from
the set's runs, snapshot and baseline, the live check (:mod:`gate.drift.checker`) makes one
:class:`Answer` per URL, and :func:`gate.drift.verdict.verdict` turns the two into a
:class:`UrlDrift`, a row of the :class:`DriftReport`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Literal

from gate.checks.passage import normalise

__all__ = ["DRIFTED", "VERDICTS", "Answer", "CitedUrl", "DriftReport", "UrlDrift", "DriftVerdict", "text_hash"]

DriftVerdict = Literal["gone", "moved", "changed", "error", "ok"]

VERDICTS: tuple[DriftVerdict, ...] = ("gone", "moved", "changed", "error", "ok")
"""Every verdict, in the order a report lists its URLs: the drifted ones first."""

DRIFTED: tuple[DriftVerdict, ...] = VERDICTS[:-1]
"""The verdicts ``--fail-on`` may name: everything but ``ok``."""


def text_hash(text: str) -> str:
    """The SHA-256 of a page's extracted text once normalised as quotes are (whitespace, case,
    typographic quotes and dashes, entities: :func:`gate.checks.passage.normalise`), so a page re-wrapped
    or re-indented is the same page."""
    return hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CitedUrl:
    """One URL the golden set cites (one per canonical URL), with what was recorded of it."""

    url: str
    """the URL as first cited"""
    cases: tuple[str, ...]
    """the cases that cite it, in the set's order"""
    recorded_status: int | None = None
    """the HTTP status the recording kept (None: never read, or a trace with no statuses)"""
    recorded_final_url: str | None = None
    recorded_hash: str | None = None
    """:func:`text_hash` of the recorded text (asked for with ``--content`` only)"""
    unhashed: str | None = None
    """why there is no ``recorded_hash`` to compare with, when one was asked for"""


@dataclass(frozen=True)
class Answer:
    """What the live web answered for one URL today, after any retries."""

    status: int | None = None
    """the final HTTP status (None: no answer)"""
    final_url: str | None = None
    """the URL the last redirect hop reached (the URL itself when there was none)"""
    method: Literal["HEAD", "GET"] | None = None
    text_hash: str | None = None
    """:func:`text_hash` of today's extracted text (a GET with ``--content``)"""
    error: str | None = None
    """why there is no answer to judge: refused, no answer within the deadline, a network error"""
    note: str | None = None
    """what else a reader should know (HEAD refused, the body over the cap, how the retries went)"""
    attempts: int = 1
    transient: bool = False
    """a failure worth retrying (408, 429, 5xx, a connection cut mid-answer)"""
    retry_after: float | None = None
    """the seconds the server asked to wait (``Retry-After``), when it did"""
    refused: bool = False
    """the guard refused the address or scheme: a GET would be refused as well"""


@dataclass(frozen=True)
class UrlDrift:
    """One cited URL's verdict, with what was recorded and what the live web answers now."""

    url: str
    verdict: DriftVerdict
    reason: str
    """the verdict in a sentence"""
    cases: tuple[str, ...]
    recorded_status: int | None = None
    recorded_final_url: str | None = None
    status: int | None = None
    final_url: str | None = None
    method: str | None = None
    content: Literal["same", "changed"] | None = None
    """whether the extracted text changed (None: not compared)"""
    attempts: int = 1


@dataclass(frozen=True)
class DriftReport:
    """Every cited URL of one golden set, checked live once."""

    golden_name: str
    golden_version: int
    checked_at: str
    """when the check started (RFC 3339, UTC)"""
    content: bool
    """whether the pages' text was compared (``--content``)"""
    urls: tuple[UrlDrift, ...]
    """drifted URLs first (in :data:`VERDICTS` order), then by URL"""
    baseline: str | None = None
    """the baseline whose cited URLs were checked too (``--baseline``)"""

    def count(self, verdict: DriftVerdict) -> int:
        """How many URLs got ``verdict``."""
        return sum(1 for u in self.urls if u.verdict == verdict)

    @property
    def drifted(self) -> tuple[UrlDrift, ...]:
        """The URLs whose verdict is not ``ok``."""
        return tuple(u for u in self.urls if u.verdict != "ok")
