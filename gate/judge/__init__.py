"""The LLM judges: claims, verdicts with verified quotes, query quality, freshness regime, source type.

The seam is ``Judge.judge(request) -> RunJudgement`` (:mod:`gate.judge.base`); :class:`LLMJudge` is
the implementation, :class:`JudgeSession` runs it over a set in a mode (``live``, ``batch``, ``replay``,
``off``). The model behind it is a provider picked by name (:mod:`gate.judge.providers`: ``anthropic``,
``openai``, ``scripted``); only a provider module imports its SDK, and only a live session builds one.
The judgement values live in :mod:`gate.judgement` and are re-exported here. Names here load on
first use, so importing this package stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gate.lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "Judge": "gate.judge.base",
    "JudgeRequest": "gate.judge.base",
    "Caller": "gate.judge.base",
    "Provider": "gate.judge.base",
    "ToolCall": "gate.judge.base",
    "ToolReply": "gate.judge.base",
    "Claim": "gate.judgement",
    "ClaimVerdict": "gate.judgement",
    "QueryScore": "gate.judgement",
    "SourceType": "gate.judgement",
    "Usage": "gate.judgement",
    "RunJudgement": "gate.judgement",
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
    "Provider",
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
    from gate.judge.base import Caller, Judge, JudgeRequest, Provider, ToolCall, ToolReply
    from gate.judge.bench import compare_designs
    from gate.judge.cache import JudgeCache
    from gate.judge.llm import LLMJudge
    from gate.judge.session import JudgeSession
    from gate.judge.summary import JudgeSummary, summarise
    from gate.judgement import Claim, ClaimVerdict, QueryScore, RunJudgement, SourceType, Usage
