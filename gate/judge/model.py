"""The judgement values, re-exported from :mod:`gate.judgement`, where they live."""

from __future__ import annotations

from gate.judgement import (
    NOT_IN_CACHE,
    QUOTE_NOT_FOUND,
    QUOTE_UNRELATED,
    VERDICTS,
    Claim,
    ClaimVerdict,
    Located,
    QueryScore,
    RunJudgement,
    SourceKind,
    SourceType,
    Usage,
    Verdict,
)

__all__ = ["NOT_IN_CACHE", "QUOTE_NOT_FOUND", "QUOTE_UNRELATED", "VERDICTS", "Claim", "ClaimVerdict", "Located",
           "QueryScore", "RunJudgement", "SourceKind", "SourceType", "Usage", "Verdict"]
