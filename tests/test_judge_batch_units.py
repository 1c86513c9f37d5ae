"""The parts of judge mode ``batch`` one at a time: splitting by the API's limits, batch prices, the
pending-batch file, the configuration and the action's ``judge`` input.

The splitting is checked twice: as a pure function, and through the real SDK against the loopback
Messages API, where every request of every batch comes back under its own key.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.action.inputs import read_inputs, resolve_judge
from gate.config import DEFAULT_PRICES, JudgeConfig, parse_config
from gate.errors import InputError
from gate.judge.base import ToolCall, ToolReply
from gate.judge.batch import BatchRunner, BatchStatus, PendingBatch, PendingBatches, Polling, split
from gate.judge.batch.plan import ENVELOPE_BYTES
from gate.judge.providers.anthropic_batches import AnthropicBatches
from gate.judge.tools import EXTRACT_CLAIMS
from gate.judgement import Usage
from gate.usage.cost import priced
from tests.support.anthropic_server import AnthropicServer
from tests.support.scripted_judge import scripted_judge


def _calls(n: int, chars: int = 10) -> list[ToolCall]:
    return [ToolCall(EXTRACT_CLAIMS, "claude-sonnet-4-6", f"<answer>{i} " + "x" * chars + "</answer>")
            for i in range(n)]


def test_a_batch_closes_at_the_request_limit() -> None:
    calls = _calls(5)
    plan = split(calls, lambda c: 100, max_requests=2)
    assert [len(b) for b in plan.batches] == [2, 2, 1]
    assert [c for b in plan.batches for c in b] == calls and plan.too_large == ()


def test_a_batch_closes_at_the_byte_limit_and_a_request_too_large_for_any_batch_is_set_apart() -> None:
    calls = _calls(4)
    sizes = {calls[0].key: 40, calls[1].key: 40, calls[2].key: 500, calls[3].key: 40}
    plan = split(calls, lambda c: sizes[c.key], max_bytes=ENVELOPE_BYTES + 90)
    assert plan.batches == ((calls[0], calls[1]), (calls[3],))
    assert plan.too_large == (calls[2],)


def test_batch_prices_are_half_the_live_ones_unless_the_table_says_otherwise() -> None:
    usage = Usage(calls=1, input_tokens=1_000_000, output_tokens=100_000)
    live = priced(usage, "claude-sonnet-4-6", DEFAULT_PRICES)
    batch = priced(usage, "claude-sonnet-4-6", DEFAULT_PRICES, batch=True)
    assert live.cost_usd == pytest.approx(4.5) and live.batch_calls == 0 and live.live_cost_usd == live.cost_usd
    assert batch.cost_usd == pytest.approx(2.25) and batch.batch_calls == 1
    assert batch.live_cost_usd == pytest.approx(4.5)
    own = {"m": {"input": 1.0, "output": 1.0, "batch": 0.25}}
    assert priced(usage, "m", own, batch=True).cost_usd == pytest.approx(1.1 * 0.25)
    unknown = priced(usage, "no-such-model", DEFAULT_PRICES, batch=True)
    assert unknown.cost_usd is None and unknown.live_cost_usd is None and unknown.batch_calls == 1
    assert (batch + live).live_cost_usd == pytest.approx(9.0) and (batch + unknown).live_cost_usd is None


def test_the_configuration_takes_judge_mode_batch_and_a_batch_price_share() -> None:
    config = parse_config("judge:\n  mode: batch\n  batch_deadline_seconds: 3600\n  prices:\n"
                          "    my-model: {input: 2, output: 8, batch: 0.4}\n", "sourcegate.yaml")
    assert config.judge.mode == "batch" and config.judge.batch_deadline_seconds == 3600
    assert config.judge.prices["my-model"]["batch"] == 0.4
    assert JudgeConfig().batch_deadline_seconds == 86_400
    with pytest.raises(InputError, match=r"batch"):
        parse_config("judge:\n  prices:\n    m: {input: 1, output: 1, batch: 0}\n", "sourcegate.yaml")


@pytest.mark.parametrize(("has_key", "mode", "says_why"), [(True, "batch", False), (False, "replay", True)])
def test_the_action_takes_judge_batch_and_needs_a_key_like_live(has_key: bool, mode: str, says_why: bool) -> None:
    inputs = read_inputs({"INPUT_JUDGE": "batch", "INPUT_GOLDEN-SET": "cached-snapshots/x"})
    assert inputs.judge == "batch"
    got, why = resolve_judge(inputs.judge, has_key)
    assert got == mode and (why is not None) == says_why
    assert why is None or "judge 'batch' was asked for" in why


def test_the_pending_file_is_written_then_removed_with_its_last_batch(tmp_path: Path) -> None:
    pending = PendingBatches(str(tmp_path / "set" / "judgements"))
    a, b = PendingBatch("msgbatch_a", frozenset({"a" * 64})), PendingBatch("msgbatch_b", frozenset({"b" * 64}))
    pending.add(a)
    pending.add(b)
    assert pending.load() == (a, b)
    pending.drop(["msgbatch_a"])
    assert pending.load() == (b,)
    pending.drop(["msgbatch_b"])
    assert not Path(pending.file).exists() and pending.load() == ()


def test_a_status_line_names_the_batch_and_its_counts() -> None:
    status = BatchStatus("msgbatch_1", "in_progress", {"processing": 3, "succeeded": 0})
    assert status.describe() == "message batch msgbatch_1: in progress (3 processing)"
    assert not status.ended and BatchStatus("x", "ended").ended


def test_a_round_split_by_the_limits_comes_back_whole_through_the_sdk(tmp_path: Path) -> None:
    calls = {c.key: c for c in _calls(5)}
    with AnthropicServer(scripted_judge) as api:
        batches = AnthropicBatches(JudgeConfig(), base_url=api.url, api_key=api.api_key)
        runner = BatchRunner(batches, PendingBatches(str(tmp_path / "judgements")), deadline_seconds=60,
                             polling=Polling(first=0.0), sleep=lambda s: None, max_requests=2)
        outcomes = runner.run(calls, first_round=True)
        sizes = sorted(len(b.requests) for b in api.batches.values())
        batches.close()
    assert sizes == [1, 2, 2]
    assert outcomes.keys() == calls.keys()
    assert all(isinstance(o, ToolReply) and o.batched and o.tool_input is not None for o in outcomes.values())
    assert len(runner.created) == 3 and sorted(runner.ended) == sorted(runner.created)
    runner.consumed()
    assert not (tmp_path / "judgements" / ".batch.json").exists()


def test_a_request_larger_than_a_batch_is_unscored_not_sent(tmp_path: Path) -> None:
    small, large = _calls(1)[0], _calls(1, chars=5_000)[0]
    with AnthropicServer(scripted_judge) as api:
        batches = AnthropicBatches(JudgeConfig(), base_url=api.url, api_key=api.api_key)
        limit = batches.size(small) + ENVELOPE_BYTES + 10
        runner = BatchRunner(batches, None, deadline_seconds=60, sleep=lambda s: None, max_bytes=limit)
        outcomes = runner.run({small.key: small, large.key: large})
        sent = [r["custom_id"] for b in api.batches.values() for r in b.requests]
        batches.close()
    assert sent == [small.key]
    assert isinstance(outcomes[small.key], ToolReply)
    assert outcomes[large.key] == f"the request is larger than a message batch may be ({limit:,} bytes)"
