"""Record the example golden set's judge cache: ``python -m tests.support.make_example_judgements``.

The recordings in ``cached-snapshots/example/judgements/`` are made by running the real judge code
in ``live`` mode, through the real Anthropic SDK, against the fake Messages API on 127.0.0.1 answered
by the rules of the *scripted* provider (``gate/judge/providers/scripted.py``): not a model.
They exist so that ``make demo`` shows judged figures offline, with no API key; they say nothing of
how a real model would grade these answers. Run this again after changing a run, a prompt, a tool
schema or the configured model (``tests/test_judge_example.py`` fails until you do); old entries are
removed first, so the folder holds exactly what the current set needs.
"""

from __future__ import annotations

import sys
from pathlib import Path

from gate.judge.summary import summarise
from gate.pipeline import run_paths
from tests.support.anthropic_server import AnthropicServer
from tests.support.environ import environ_overlay
from tests.support.scripted_judge import scripted_judge

EXAMPLE = Path(__file__).resolve().parent.parent.parent / "cached-snapshots" / "example"


def record(root: Path = EXAMPLE) -> int:
    """Re-record ``root/judgements``; returns how many API calls the fake server answered."""
    folder = root / "judgements"
    folder.mkdir(exist_ok=True)
    for old in folder.glob("*.json"):
        old.unlink()
    with AnthropicServer(scripted_judge) as api, \
            environ_overlay({"ANTHROPIC_BASE_URL": api.url, "ANTHROPIC_API_KEY": api.api_key}):
        report = run_paths([str(root)], None, judge_mode="live")
        calls = api.calls
    summary = summarise(report.cases)
    if summary is None or summary.counts["unscored"] or summary.problems:
        raise SystemExit(f"recording left claims unscored or parts unjudged: {summary}")
    print(f"recorded {len(list(folder.glob('*.json')))} judge replies for {summary.runs_judged} runs "
          f"({calls} calls to the scripted judge); claims {dict(summary.counts)}", file=sys.stderr)
    return calls


if __name__ == "__main__":
    record(Path(sys.argv[1]) if len(sys.argv) > 1 else EXAMPLE)
