"""The judge's cost design against the straightforward one, on the fake API (what ``make bench`` prints)."""

from __future__ import annotations

import random

from gate.judge.bench import compare_designs
from tests.bench_judge import make_run
from tests.support.anthropic_server import AnthropicServer
from tests.support.scripted_judge import scripted_judge


def test_at_most_three_calls_per_run_and_eight_times_fewer_billed_input_tokens() -> None:
    rng = random.Random(3)
    runs = [make_run(i, rng, 15_000) for i in range(4)]
    with AnthropicServer(scripted_judge) as api:
        out = compare_designs(runs, api.url, api_key=api.api_key)
    assert out["ours"]["max_calls_per_run"] <= 3
    assert out["straightforward"]["max_calls_per_run"] == 7  # one claims call and one per claim (6)
    assert out["billed_input_ratio"] >= 8, out
    assert api.calls == out["ours"]["calls"] + out["straightforward"]["calls"]
