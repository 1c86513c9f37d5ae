"""Anthropic prompt caching: only a prefix that is reused and long enough, and the first call goes alone.

The shipped prompts are short (under the 1,024-token minimum), so they are never marked; these tests
lengthen the system prompts to see the other side.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest

from gate.config import Config, JudgeConfig
from gate.judge import tools
from gate.judge.base import ToolCall, min_cacheable_tokens, worth_caching
from gate.judge.model import Usage
from gate.judge.session import JudgeSession
from gate.judge.tools import EXTRACT_CLAIMS, TOOLS
from gate.model import Case
from tests.support.anthropic_server import AnthropicServer
from tests.support.judge_run import ANSWER, make_run
from tests.support.scripted_judge import scripted_judge

CONFIG = Config(judge=JudgeConfig(model="claude-sonnet-4-6", concurrency=4))
RUBRIC = "\n\nWorked examples follow. " + "A claim is supported only by a verbatim quote. " * 110


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> Iterator[AnthropicServer]:
    with AnthropicServer(scripted_judge) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", server.api_key)
        yield server


@pytest.fixture
def long_prompts(monkeypatch: pytest.MonkeyPatch) -> None:
    original = tools.prompt_text
    monkeypatch.setattr(tools, "prompt_text", lambda prompt_id: original(prompt_id) + RUBRIC)


def test_the_shipped_prompts_are_below_the_minimum_so_never_marked() -> None:
    for tool in TOOLS.values():
        call = ToolCall(tool, "claude-sonnet-4-6", "")
        assert not worth_caching(call.prefix_chars, "claude-sonnet-4-6", expected_uses=1000)


def test_worth_caching_needs_reuse_and_the_models_minimum() -> None:
    assert min_cacheable_tokens("claude-haiku-4-5") == 2048
    assert min_cacheable_tokens("claude-opus-4-5") == 1024
    assert worth_caching(4100, "claude-sonnet-4-6", 2)
    assert not worth_caching(4100, "claude-sonnet-4-6", 1)  # written once, never read: 25% dearer
    assert not worth_caching(4100, "claude-haiku-4-5", 10)  # below Haiku's 2,048 tokens: not cached at all
    assert worth_caching(8200, "claude-haiku-4-5", 10)


def test_a_reused_long_prefix_is_written_once_then_read(api: AnthropicServer, long_prompts: None) -> None:
    runs = [make_run(ANSWER.replace("2,102,650", f"2,102,65{i}")) for i in range(4)]
    with JudgeSession("live", CONFIG, None, expected_runs=len(runs)) as session:
        judged = list(session.map(lambda r: session.judge(r, Case(r.case, r.question)), runs))
    assert all(j is not None and j.unscored_count == 0 for j in judged)
    marked = [r for r in api.requests if r.body["system"][0].get("cache_control") == {"type": "ephemeral"}]
    assert len(marked) == len(api.requests) == 12
    writes = Counter(r.tool_name for r, reply in zip(api.requests, api.replies, strict=True)
                     if reply.body["usage"]["cache_creation_input_tokens"] > 0)
    reads = Counter(r.tool_name for r, reply in zip(api.requests, api.replies, strict=True)
                    if reply.body["usage"]["cache_read_input_tokens"] > 0)
    # The first call with each prefix went alone, so the three others of its kind could read it.
    assert writes == {"extract_claims": 1, "grade_claims": 1, "assess_run": 1}
    assert reads == {"extract_claims": 3, "grade_claims": 3, "assess_run": 3}
    usage = sum((j.usage for j in judged if j), start=Usage())
    assert usage.cache_write_tokens > 0 and usage.cache_read_tokens == 3 * usage.cache_write_tokens


def test_a_single_run_never_marks_its_prefix(api: AnthropicServer, long_prompts: None) -> None:
    with JudgeSession("live", CONFIG, None, expected_runs=1) as session:
        session.judge(make_run(), Case("eiffel", "q"))
    assert not any("cache_control" in r.body["system"][0] for r in api.requests)


def test_cache_control_does_not_change_the_judge_cache_key() -> None:
    a = ToolCall(EXTRACT_CLAIMS, "claude-sonnet-4-6", "user text", max_tokens=1000)
    b = ToolCall(EXTRACT_CLAIMS, "claude-sonnet-4-6", "user text", max_tokens=4096, cache_prefix=True)
    assert a.key == b.key
    assert a.key != ToolCall(EXTRACT_CLAIMS, "claude-opus-4-5", "user text").key
    assert a.key != ToolCall(EXTRACT_CLAIMS, "claude-sonnet-4-6", "user text.").key
