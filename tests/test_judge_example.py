"""The example golden set ships its judge cache: ``sourcegate check`` shows judged figures offline.

If a run, a prompt, a tool schema or the configured model changes, the cache no longer matches and
these tests say so: re-record with ``python -m tests.support.make_example_judgements``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from gate.files.jsonio import load_json, validate
from gate.verdict.report import Report
from tests.support.fresh_import import HASH_SEED, FreshImport

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "cached-snapshots" / "example"
RERECORD = "re-record with: python -m tests.support.make_example_judgements"


def test_every_case_is_judged_from_the_cache_with_nothing_unscored(example_report: Report) -> None:
    assert example_report.judge_mode == "replay"
    for case in example_report.cases:
        j = case.judgement
        assert j is not None, case.id
        why = f"{case.id}: {j.unscored_reasons} {j.problems}; {RERECORD}"
        assert j.unscored_count == 0 and not j.problems, why
        assert j.usage.calls == 0


def test_the_cache_holds_exactly_what_the_set_needs() -> None:
    entries = sorted((EXAMPLE / "judgements").glob("*.json"))
    for e in entries:
        validate(load_json(str(e)), "judge-cache", str(e))
    assert len(entries) <= 3 * 18, RERECORD
    assert "scripted responder, not a real model" in (EXAMPLE / "judgements" / "README.md").read_text("utf-8")


def test_the_judged_figures_tell_the_demo_story(example_report: Report) -> None:
    by_id = {c.id: c for c in example_report.cases}
    # The agent that answered from memory grounds nothing; the clean storm report grounds most claims.
    memory = by_id["nobel-chemistry-2026"].soft
    assert memory["grounding_rate"] == 0.0 and (memory["hallucination_rate"] or 0) > 0.5
    assert (by_id["storm-dervla-disruption"].soft["grounding_rate"] or 0) >= 0.8
    assert all(c.soft.get("query_quality") is not None for c in example_report.cases)


def test_the_cli_replays_in_a_fresh_process_with_no_key_and_no_sdk(example_report: Report,
                                                                    cli_import: FreshImport) -> None:
    code = ("import sys; from gate.cli import main; "
            "rc = main(['check', sys.argv[1], '--json', '-']); print('SDK', 'anthropic' in sys.modules); "
            "sys.exit(rc)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    # A different hash seed must render the same prompts, so the same keys: the fresh process has a seed
    # other than this process's, which judged the same set for ``example_report``.
    done = cli_import.run(code, str(EXAMPLE), env=env)
    assert done.returncode in (1, 3), done.stderr
    text, sdk = done.stdout.rsplit("SDK", 1)
    assert sdk.strip() == "False"
    data = json.loads(text)
    assert data["judge_mode"] == "replay" and data["judge"]["counts"]["unscored"] == 0, RERECORD
    assert data["judge"]["usage"]["calls"] == 0
    # This process's seed (random unless PYTHONHASHSEED is set, and then not the fresh one's) found every key too.
    assert os.environ.get("PYTHONHASHSEED") != HASH_SEED
    assert example_report.judge_mode == "replay", RERECORD
    assert sum(c.judgement.unscored_count for c in example_report.cases if c.judgement) == 0, RERECORD
    assert sum(c.judgement.usage.calls for c in example_report.cases if c.judgement) == 0
