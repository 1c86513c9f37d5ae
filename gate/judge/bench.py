"""The benchmark hook: this judge's calls and billed input tokens against the straightforward design.

The straightforward design makes one claims call per answer, then one call per claim, each carrying
all the evidence (every page, labelled with its URL, up to ``STRAIGHTFORWARD_EVIDENCE_CHARS``). This
design makes at most three calls per run and sends each source's relevant passages once. Both run in
the same process against the same server (``tests/support/anthropic_server.py`` with the scripted
judge, in ``make bench``), which reports usage as the API does, prompt-cache writes and reads included;
billed input tokens price those as the configuration's price table does.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from contextlib import closing
from dataclasses import dataclass, field
from typing import Any

from gate.config import Config
from gate.judge.base import JudgeRequest, ToolCall, ToolReply
from gate.judge.parse import parse_claims
from gate.judge.render import claims_user, run_marker
from gate.judge.tools import EXTRACT_CLAIMS, Tool
from gate.judgement import Usage
from gate.model import Case, Run
from gate.usage.cost import billed_input_tokens

STRAIGHTFORWARD_EVIDENCE_CHARS = 30_000
GRADE_CLAIM = Tool(
    name="grade_claim",
    prompt="grade_claim.v1",
    description="Record the verdict on one claim, with a verbatim quote as evidence.",
    schema_name="judge-grade-claim",
)


@dataclass
class _Counting:
    """A Caller that forwards and counts calls, input characters, usage, and calls per run."""

    inner: Any
    calls: int = 0
    chars: int = 0
    usage: Usage = field(default_factory=Usage)

    def call(self, call: ToolCall, timeout: float) -> ToolReply:
        self.calls += 1
        self.chars += call.prefix_chars + len(call.user)
        reply: ToolReply = self.inner.call(call, timeout)
        self.usage += reply.usage
        return reply

    def totals(self, model: str, config: Config, runs: int, max_per_run: int) -> dict[str, Any]:
        billed = billed_input_tokens(self.usage, model, config.judge.prices)
        return {"calls": self.calls, "max_calls_per_run": max_per_run,
                "calls_per_run": self.calls / max(1, runs),
                "input_chars": self.chars, "input_tokens": self.usage.input_tokens,
                "cache_write_tokens": self.usage.cache_write_tokens,
                "cache_read_tokens": self.usage.cache_read_tokens, "billed_input_tokens": billed}


def _evidence(run: Run) -> str:
    text = "\n\n".join(f"Source {p.url}:\n{p.text}" for p in run.pages)
    return text[:STRAIGHTFORWARD_EVIDENCE_CHARS]


def _straightforward(run: Run, caller: _Counting, config: Config) -> None:
    from gate.checks.base import Subject

    subject = Subject.build(run, Case(id=run.case, question=run.question), config)
    model, max_tokens = config.judge.model, config.judge.max_tokens
    user = claims_user(run, run_marker(run), list(subject.cited.values()))
    call = ToolCall(EXTRACT_CLAIMS, model, user, max_tokens)
    reply = caller.call(call, 60.0)
    claims = parse_claims(reply.tool_input or {"claims": []}, subject.cited)[0][0] if reply.tool_input else ()
    evidence = _evidence(run)
    for claim in claims:
        user = f"Claim: {claim.text}\n\nEvidence:\n{evidence}\n\nCall grade_claim."
        caller.call(ToolCall(GRADE_CLAIM, model, user, max_tokens), 60.0)


def compare_designs(runs: Sequence[Run], server_url: str, *, api_key: str | None = None,
                    config: Config | None = None) -> dict[str, Any]:
    """Judge ``runs`` both ways against the API at ``server_url``; calls, characters and tokens of each.

    Returns ``{"runs", "ours": {...}, "straightforward": {...}, "billed_input_ratio", "calls_ratio",
    "input_chars_ratio", "warnings"}``; a ratio is straightforward over ours (higher is better).
    """
    from gate.judge.llm import LLMJudge
    from gate.judge.providers.anthropic import AnthropicProvider

    config = config or Config()
    model = config.judge.model
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with closing(AnthropicProvider(config.judge, base_url=server_url, api_key=api_key)) as provider:
            ours = _Counting(provider)
            judge = LLMJudge(config, cache=None, caller=ours, expected_runs=len(runs))
            max_ours = 0
            for run in runs:
                before = ours.calls
                judge.judge(JudgeRequest(run, Case(id=run.case, question=run.question)))
                max_ours = max(max_ours, ours.calls - before)
        with closing(AnthropicProvider(config.judge, base_url=server_url, api_key=api_key)) as provider:
            plain = _Counting(provider)
            max_plain = 0
            for run in runs:
                before = plain.calls
                _straightforward(run, plain, config)
                max_plain = max(max_plain, plain.calls - before)
    a = ours.totals(model, config, len(runs), max_ours)
    b = plain.totals(model, config, len(runs), max_plain)

    def ratio(key: str) -> float:
        return float(b[key]) / float(a[key]) if a[key] else float("inf")

    return {"runs": len(runs), "ours": a, "straightforward": b,
            "billed_input_ratio": ratio("billed_input_tokens"),
            "calls_ratio": ratio("calls"), "input_chars_ratio": ratio("input_chars"),
            "warnings": sorted({f"{w.category.__name__}: {w.message}" for w in caught})}


__all__ = ["STRAIGHTFORWARD_EVIDENCE_CHARS", "compare_designs"]
