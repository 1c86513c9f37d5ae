"""The LLM judges: claims, verdicts with verified quotes, query quality, freshness regime, source type.

The seam is ``Judge.judge(request) -> RunJudgement`` (:mod:`gate.judge.base`); :class:`LLMJudge` is
the implementation, :class:`JudgeSession` runs it over a set in a mode (``live``, ``replay``,
``off``). Only :mod:`gate.judge.anthropic` imports the Anthropic SDK, and only a live session loads
it; names here load on first use, so importing this package stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gate.lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "Judge": "gate.judge.base",
    "JudgeRequest": "gate.judge.base",
    "Caller": "gate.judge.base",
    "ToolCall": "gate.judge.base",
    "ToolReply": "gate.judge.base",
    "Claim": "gate.judge.model",
    "ClaimVerdict": "gate.judge.model",
    "QueryScore": "gate.judge.model",
    "SourceType": "gate.judge.model",
    "Usage": "gate.judge.model",
    "RunJudgement": "gate.judge.model",
    "LLMJudge": "gate.judge.llm",
    "JudgeCache": "gate.judge.cache",
    "JudgeSession": "gate.judge.session",
    "JudgeSummary": "gate.judge.summary",
    "summarise": "gate.judge.summary",
    "compare_designs": "gate.judge.bench",
}

__all__ = [
    "Caller",
    "Claim",
    "ClaimVerdict",
    "Judge",
    "JudgeCache",
    "JudgeRequest",
    "JudgeSession",
    "JudgeSummary",
    "LLMJudge",
    "QueryScore",
    "RunJudgement",
    "SourceType",
    "ToolCall",
    "ToolReply",
    "Usage",
    "compare_designs",
    "summarise",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals())


if TYPE_CHECKING:
    from gate.judge.base import Caller, Judge, JudgeRequest, ToolCall, ToolReply
    from gate.judge.bench import compare_designs
    from gate.judge.cache import JudgeCache
    from gate.judge.llm import LLMJudge
    from gate.judge.model import Claim, ClaimVerdict, QueryScore, RunJudgement, SourceType, Usage
    from gate.judge.session import JudgeSession
    from gate.judge.summary import JudgeSummary, summarise
