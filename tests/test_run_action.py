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

from gate.action.inputs import input_env_name, read_inputs, resolve_judge
from tests.support.run_golden import PLAN_ENV, as_traced, faithful_plan, make_golden, scripted_agent

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


def _gate_step(job: dict[str, Any]) -> dict[str, Any]:
    [gate] = [s for s in job["steps"] if str(s.get("uses", "")).startswith("sourcegate/sourcegate@")]
    return gate


def _jobs(workflow: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The job that runs the agent, and the job that gates its traces."""
    jobs = list(workflow["jobs"].values())
    [agent] = [j for j in jobs if any(RUN_ACTION.match(str(s.get("uses", ""))) for s in j["steps"])]
    [gate] = [j for j in jobs if any(str(s.get("uses", "")).startswith("sourcegate/sourcegate@") for s in j["steps"])]
    return agent, gate


def test_the_example_workflow_gives_the_key_to_the_agent_step_and_the_judge_only() -> None:
    workflow = _load(WORKFLOW)
    agent, gate_job = _jobs(workflow)
    assert workflow["permissions"] == {}
    assert agent["permissions"] == {"contents": "read"}
    assert gate_job["permissions"] == {"contents": "read", "pull-requests": "write"}
    inputs = set(_load(ACTION)["inputs"])
    keyed = [s for j in (agent, gate_job) for s in j["steps"] if "secrets." in json.dumps(s)]
    [run] = [s for s in agent["steps"] if RUN_ACTION.match(str(s.get("uses", "")))]
    gate = _gate_step(gate_job)
    assert keyed == [run, gate] and set(run["env"]) == {"ANTHROPIC_API_KEY"}
    assert set(run["with"]) <= inputs
    # the gate step gets the key as its judge's input, not in its environment
    assert "env" not in gate and [k for k, v in gate["with"].items() if "secrets." in str(v)] == ["anthropic-api-key"]
    # and it gates the traces the agent's job made, after that job
    assert gate_job["needs"] in workflow["jobs"] and workflow["jobs"][gate_job["needs"]] is agent


def _judge_of(step: dict[str, Any], secret: str) -> str:
    """The judge mode the gate action runs with for this step's inputs, the secret set to ``secret``."""
    env = {input_env_name(name): re.sub(r"\$\{\{\s*secrets\.\w+\s*\}\}", secret, str(value))
           for name, value in step["with"].items()}
    inputs = read_inputs(env)
    judge, _why = resolve_judge(inputs.judge, inputs.has_judge_key, inputs.key_inputs)
    return judge


def test_the_example_workflow_judges_the_new_answers_live_when_the_key_is_set() -> None:
    # The re-run agent writes answers the committed judge cache has never seen: replayed, their
    # claims stay unscored and the run is inconclusive. With the key the gate step judges live.
    gate = _gate_step(_jobs(_load(WORKFLOW))[1])
    assert _judge_of(gate, "sk-ant-test") == "live"
    assert _judge_of(gate, "") == "replay"  # no key (a fork): replay, and the README says what follows


def test_the_quick_start_includes_the_example_workflow_as_committed() -> None:
    quickstart = (ROOT / "docs" / "quickstart.md").read_text(encoding="utf-8")
    assert '```yaml\n--8<-- "examples/run-agent.yml"\n```' in quickstart


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_the_run_step_runs_the_agent_with_words_never_a_shell(tmp_path: Path) -> None:
    [step] = [s for s in _load(ACTION)["runs"]["steps"] if s.get("id") == "run"]
    golden = make_golden(tmp_path / "set", [EURO])
    agent = scripted_agent(tmp_path)
    output = tmp_path / "github_output"
    env = {**os.environ, "PYTHONPATH": str(ROOT), PLAN_ENV: json.dumps({EURO: faithful_plan(EURO)}),
           "PYTHON": sys.executable, "GOLDEN_SET": str(golden), "JOBS": "2", "TIMEOUT": "60", "OUT": "",
           "NETWORK": "auto",
           # a glob and a $VARIABLE in the command are passed as they are: the agent ignores extra words
           "AGENT_COMMAND": f"{agent[0]}\n{' '.join(agent[1:])} '*' $HOME", "GITHUB_OUTPUT": str(output)}
    done = subprocess.run(["bash", "-e", "-c", step["run"]], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    trace = json.loads((golden / "runs" / f"{EURO}.json").read_text(encoding="utf-8"))
    assert trace["replay"]["command"] == [*as_traced(agent), "'*'", "$HOME"]
    assert trace["replay"]["agent_error"] is None
    assert output.read_text(encoding="utf-8") == f"runs={golden}/runs\n"


def _externally_managed_python() -> str | None:
    """A real interpreter that pip refuses to install into (PEP 668), as ubuntu-24.04's python3 is."""
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if not os.path.exists(candidate):
            continue
        probe = ("import os, sys, sysconfig; print(sys.prefix == sys.base_prefix and "
                 "os.path.isfile(os.path.join(sysconfig.get_path('stdlib'), 'EXTERNALLY-MANAGED')))")
        done = subprocess.run([candidate, "-c", probe], capture_output=True, text=True, check=False)
        if done.stdout.strip() == "True":
            return candidate
    return None


def _install_check() -> str:
    """The install step's script up to the pip command: the test of the interpreter alone."""
    [step] = [s for s in _load(ACTION)["runs"]["steps"] if s.get("name") == "Install sourcegate"]
    script: str = step["run"]
    assert step["env"] == {"PYTHON": "${{ inputs.python }}"}
    return script[: script.index('"$PYTHON" -m pip install')]


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
def test_the_install_step_takes_a_venv_python() -> None:
    done = subprocess.run(["bash", "-e", "-c", _install_check()], env={**os.environ, "PYTHON": sys.executable},
                          capture_output=True, text=True, timeout=60)
    assert sys.prefix != sys.base_prefix and done.returncode == 0 and done.stdout == "", done.stdout


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
@pytest.mark.skipif(_externally_managed_python() is None, reason="no externally managed Python here")
def test_the_install_step_refuses_an_externally_managed_python_saying_what_to_do() -> None:
    python = _externally_managed_python()
    assert python is not None
    done = subprocess.run(["bash", "-e", "-c", _install_check()], env={**os.environ, "PYTHON": python},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stdout.startswith("::error title=sourcegate run::") and "actions/setup-python" in done.stdout
