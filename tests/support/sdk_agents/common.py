"""What every SDK agent of the replay tests shares: no network past loopback, its plan, its answer.

An agent is a real process that ``sourcegate run`` starts once per case. It installs the suite's
network guard before it imports its SDK (a connection beyond loopback raises, so the case fails
as ``agent_error``), reads what to do from ``$SDK_AGENT_PLAN`` (by case), and prints its answer.
The only thing it is told about the replay server is ``$SOURCEGATE_REPLAY_URL``: the base URL. The
agents at the real addresses (``http_client_agent.py``, ``*_at_its_host_agent.py``) are told nothing:
they call the providers' hosts and the pages' own URLs, through the proxy the run gives them.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from tests.support.network import GUARD  # noqa: E402 (the guard goes in before any SDK is imported)

GUARD.install()

PLAN_ENV = "SDK_AGENT_PLAN"
BASE_URL = os.environ["SOURCEGATE_REPLAY_URL"]


def plan() -> dict[str, Any]:
    """This case's plan: ``search`` (queries), ``read`` (URLs), ``answer``, ``citations``, and options."""
    found: dict[str, Any] = json.loads(os.environ[PLAN_ENV])[os.environ["SOURCEGATE_CASE"]]
    return found


def answer(steps: dict[str, Any], errors: list[str]) -> None:
    """Print the answer (the SDK errors the agent met are said in it), or fail on a blocked connection."""
    blocked = GUARD.take_attempts()
    if blocked:
        sys.exit("the agent reached past loopback: " + "; ".join(blocked))
    text = steps["answer"] + ("".join(f"\nSDK error: {e}" for e in errors) if errors else "")
    cited = {"citations": steps["citations"]} if "citations" in steps else {}
    print(json.dumps({"answer": text, **cited}))
