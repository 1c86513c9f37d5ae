"""``run/action.yml``, the composite action around ``sourcegate run``, and the example workflow that uses it.

The metadata is validated against SchemaStore's action schema; the step that runs the agent is
executed here with bash, as the runner would, on a real golden set with a scripted agent.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from tests.support.run_golden import PLAN_ENV, faithful_plan, make_golden, scripted_agent

ROOT = Path(__file__).resolve().parent.parent
ACTION = ROOT / "run" / "action.yml"
WORKFLOW = ROOT / "examples" / "run-agent.yml"
SCHEMA = ROOT / "tests" / "fixtures" / "actions" / "github-action.schema.json"
RUN_ACTION = re.compile(r"^sourcegate/sourcegate/run@[0-9a-f]{40}$")
EURO = "euro-adoption-after-2010"


def _load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data


def test_the_action_is_valid_and_composite() -> None:
    metadata = _load(ACTION)
    jsonschema.validate(metadata, json.loads(SCHEMA.read_text(encoding="utf-8")))
    assert metadata["runs"]["using"] == "composite"
    for step in metadata["runs"]["steps"]:
        assert "${{" not in step.get("run", ""), "inputs reach the script through env:, never pasted in"


def test_the_example_workflow_gives_the_key_to_the_agent_step_only() -> None:
    workflow = _load(WORKFLOW)
    [job] = workflow["jobs"].values()
    assert workflow["permissions"] == {}
    assert job["permissions"] == {"contents": "read", "pull-requests": "write"}
    inputs = set(_load(ACTION)["inputs"])
    keyed = [s for s in job["steps"] if "secrets." in json.dumps(s)]
    [run] = [s for s in job["steps"] if RUN_ACTION.match(str(s.get("uses", "")))]
    assert keyed == [run] and set(run["env"]) == {"ANTHROPIC_API_KEY"}
    assert set(run["with"]) <= inputs
    uses = [str(s.get("uses", "")) for s in job["steps"]]
    assert uses.index(run["uses"]) < next(i for i, u in enumerate(uses) if u.startswith("sourcegate/sourcegate@"))


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_the_run_step_runs_the_agent_with_words_never_a_shell(tmp_path: Path) -> None:
    [step] = [s for s in _load(ACTION)["runs"]["steps"] if s.get("id") == "run"]
    golden = make_golden(tmp_path / "set", [EURO])
    agent = scripted_agent(tmp_path)
    output = tmp_path / "github_output"
    env = {**os.environ, "PYTHONPATH": str(ROOT), PLAN_ENV: json.dumps({EURO: faithful_plan(EURO)}),
           "PYTHON": sys.executable, "GOLDEN_SET": str(golden), "JOBS": "2", "TIMEOUT": "60", "OUT": "",
           # a glob and a $VARIABLE in the command are passed as they are: the agent ignores extra words
           "AGENT_COMMAND": f"{agent[0]}\n{' '.join(agent[1:])} '*' $HOME", "GITHUB_OUTPUT": str(output)}
    done = subprocess.run(["bash", "-e", "-c", step["run"]], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    trace = json.loads((golden / "runs" / f"{EURO}.json").read_text(encoding="utf-8"))
    assert trace["replay"]["command"] == [*agent, "'*'", "$HOME"]
    assert trace["replay"]["agent_error"] is None
    assert output.read_text(encoding="utf-8") == f"runs={golden}/runs\n"
