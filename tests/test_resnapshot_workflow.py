"""The re-snapshot job of ``examples/resnapshot.yml``, its recording steps run as committed.

The job records the set with the agent itself (``sourcegate run --record all -- <agent>``), no
driver written around it, and lets the command bump the version and move ``snapshot_at``. Here its
record and verify steps run in bash as GitHub runs them (``-eo pipefail``), with ``GOLDEN_SET`` and
the keys of their ``env`` set, ``sourcegate`` the installed command, and ``python -m my_agent`` a small
agent on ``PYTHONPATH`` that searches and extracts with Tavily's API through the replay server. The
live Tavily is a loopback stand-in, named in the set's ``sourcegate.yaml``. Recorded twice, the
second time on a changed web, the version goes up each time past the note the first bump wrote
on its line; a page the provider cannot read fails the step (exit 3), so no pull request is opened.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from gate.load.golden import load_golden
from gate.snapshot.version import NOTE
from tests.support.tavily_api import TavilyApi

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / "examples" / "resnapshot.yml"
KEY = "tvly-live-0123456789abcdef"
AGENT = '''
import json, os
import requests

base = os.environ["SOURCEGATE_REPLAY_URL"]
found = requests.post(f"{base}/search", json={"query": os.environ["SOURCEGATE_QUESTION"], "max_results": 1}, timeout=10)
found.raise_for_status()
url = found.json()["results"][0]["url"]
read = requests.post(f"{base}/extract", json={"urls": [url]}, timeout=10).json()
text = read["results"][0]["raw_content"] if read["results"] else ""
print(json.dumps({"answer": f"{text.splitlines()[-1] if text else 'unread'} [{url}]", "citations": [{"url": url}]}))
'''


def _steps() -> list[dict[str, Any]]:
    job = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]["resnapshot"]
    steps: list[dict[str, Any]] = job["steps"]
    return steps


def _step(words: str) -> dict[str, Any]:
    [step] = [s for s in _steps() if words in s.get("run", "")]
    return step


def test_the_job_records_with_the_agent_itself_and_edits_no_file_by_hand() -> None:
    record = _step("--record all")
    assert record["run"] == 'sourcegate run "$GOLDEN_SET" --record all -- python -m my_agent'
    for step in _steps():
        run = step.get("run", "")
        assert "sed " not in run and "golden.yaml" not in run, step["name"]  # the CLI bumps and stamps
    names = [s.get("name", "") for s in _steps()]
    assert names.index(record["name"]) < names.index(_step("snapshot verify")["name"]) \
        < names.index(_step("baseline update")["name"]) < names.index(_step("gh pr create")["name"])


@pytest.fixture
def tavily() -> Iterator[TavilyApi]:
    pages = {"/pinning": ("Pinning actions", "Pin actions to a full-length commit SHA: a tag can move.")}
    with TavilyApi(pages) as api:
        yield api


def _golden(root: Path, tavily: TavilyApi) -> Path:
    root.mkdir(parents=True)
    (root / "golden.yaml").write_text(
        "# the news set: re-recorded every week\nformat: sourcegate-golden/1\nversion: 1\nname: news\n"
        "snapshot_at: \"2026-01-05T05:17:00Z\"\nresnapshot_days: 7\ncases:\n"
        "- id: pin-actions\n  question: Why pin GitHub Actions to a commit SHA?\n", encoding="utf-8")
    config = {"record": {"search": {"tavily": {"endpoint": tavily.url("/search")}}, "allow": [tavily.authority]}}
    (root / "sourcegate.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    return root


def _run_step(words: str, golden: Path, agent: Path) -> subprocess.CompletedProcess[str]:
    """One step's script, as GitHub's bash runs it, with its ``env`` (secrets given test values)."""
    step = _step(words)
    env = {**os.environ, "GOLDEN_SET": str(golden), "PYTHONPATH": str(agent),
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    env.update({name: KEY if name == "TAVILY_API_KEY" else "unused" for name in step.get("env", {})})
    return subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                          cwd=golden.parent, env=env, capture_output=True, text=True, timeout=120)


def test_the_record_and_verify_steps_work_as_committed_week_after_week(tmp_path: Path, tavily: TavilyApi) -> None:
    golden = _golden(tmp_path / "cached-snapshots" / "news", tavily)
    agent = tmp_path / "agent"
    (agent / "my_agent").mkdir(parents=True)
    (agent / "my_agent" / "__main__.py").write_text(AGENT, encoding="utf-8")

    for week, text in enumerate(("Pin actions to a full-length commit SHA: a tag can move.",
                                 "Pin actions to a commit SHA: tags are moved by force pushes."), start=1):
        tavily.pages["/pinning"] = ("Pinning actions", text)  # the web changed since last week
        before = datetime.now(UTC).replace(microsecond=0)
        recorded = _run_step("--record all", golden, agent)
        assert recorded.returncode == 0, recorded.stderr
        assert _run_step("snapshot verify", golden, agent).returncode == 0
        now = load_golden(str(golden))
        assert now.version == week + 1 and now.snapshot_time is not None and now.snapshot_time >= before
        assert f"version: {week + 1}  {NOTE}\n" in (golden / "golden.yaml").read_text(encoding="utf-8")
        assert (golden / "golden.yaml").read_text(encoding="utf-8").startswith("# the news set")
    [search] = tavily.searches[-1:]
    assert search.authorization == f"Bearer {KEY}"

    # a page Tavily cannot read any more: the step fails, and says how to record it
    tavily.unreadable.add("/pinning")
    failed = _run_step("--record all", golden, agent)
    assert failed.returncode == 3
    last = failed.stderr.strip().splitlines()[-1]
    assert last.startswith("sourcegate: error: the recording left 1 page unrecorded")
    assert last.endswith(f"`sourcegate run {golden} --record all -- python -m my_agent`")
    assert load_golden(str(golden)).snapshot_at == now.snapshot_at  # an incomplete recording moves nothing
