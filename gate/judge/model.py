"""The judgement values, re-exported from :mod:`gate.judgement`, where they live."""

from __future__ import annotations

from gate.judgement import (
    NOT_IN_CACHE,
    QUOTE_NOT_FOUND,
    QUOTE_UNRELATED,
    SUPPORT_LEVELS,
    Claim,
    ClaimVerdict,
    Located,
    QueryScore,
    RunJudgement,
    SourceKind,
    SourceType,
    Support,
    Usage,
)

__all__ = ["NOT_IN_CACHE", "QUOTE_NOT_FOUND", "QUOTE_UNRELATED", "SUPPORT_LEVELS", "Claim", "ClaimVerdict", "Located",
           "QueryScore", "RunJudgement", "SourceKind", "SourceType", "Support", "Usage"]
