"""Opt-in only: the judge against the real Anthropic API. Never part of ``make test``.

Runs only with ``SOURCEGATE_REAL_API=1`` and ``ANTHROPIC_API_KEY`` set (it costs a few cents);
``SOURCEGATE_REAL_MODEL`` picks the model (default ``claude-haiku-4-5``).
"""

from __future__ import annotations

import os

import pytest

from gate.config import Config, JudgeConfig
from gate.judge.session import JudgeSession
from gate.model import Case
from tests.support.judge_run import make_run

# Read at collection, before tests/conftest.py scrubs ANTHROPIC_*; the real_api mark gives the
# shell's ANTHROPIC_* and the network back to this test alone.
pytestmark = [
    pytest.mark.skipif(
        os.environ.get("SOURCEGATE_REAL_API") != "1" or not os.environ.get("ANTHROPIC_API_KEY"),
        reason="real API calls are opt-in: set SOURCEGATE_REAL_API=1 and ANTHROPIC_API_KEY",
    ),
    pytest.mark.real_api,
]


def test_a_real_model_judges_a_small_run_in_three_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ANTHROPIC_BASE_URL", raising=False)
    config = Config(judge=JudgeConfig(model=os.environ.get("SOURCEGATE_REAL_MODEL", "claude-haiku-4-5")))
    run = make_run()
    with JudgeSession("live", config, None) as session:
        j = session.judge(run, Case(run.case, run.question))
    assert j is not None and j.claims and j.unscored_count == 0, (j.unscored_reasons if j else None)
    assert j.usage.calls <= 3 and j.usage.cost_usd is not None
