"""The scheduled drift job of ``examples/resnapshot.yml``: one issue kept up to date, never a gate.

Read statically, like every workflow (``tests/test_workflows.py`` holds them all to least privilege
and pinned actions); what the job relies on from sourcegate is checked against the real command: the
marker the issue is found by is the first line of the markdown ``sourcegate drift`` writes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from gate.drift.model import DriftReport
from gate.drift.render import drift_markdown
from gate.text.marker import marker

ROOT = Path(__file__).resolve().parent.parent
WORKFLOW = ROOT / "examples" / "resnapshot.yml"


def _job() -> dict[str, Any]:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    job = data["jobs"]["drift"]
    assert isinstance(job, dict)
    return job


def _step(job: dict[str, Any], words: str) -> dict[str, Any]:
    [step] = [s for s in job["steps"] if words in s.get("run", "")]
    return step


def test_the_drift_job_reads_the_code_and_writes_only_issues() -> None:
    job = _job()
    assert job["permissions"] == {"contents": "read", "issues": "write"}
    assert "needs" not in job  # beside the re-snapshot job, not after it: it checks the committed set


def test_the_drift_report_never_gates_and_reaches_the_job_summary() -> None:
    run = _step(_job(), "--markdown drift.md")["run"]
    assert '--json drift.json --markdown drift.md' in run and "--fail-on" not in run
    assert 'cat drift.md >> "$GITHUB_STEP_SUMMARY"' in run


def test_one_issue_is_found_by_the_report_s_marker_among_the_bot_s_own() -> None:
    step = _step(_job(), "gh issue")
    assert step["env"]["GH_TOKEN"] == "${{ github.token }}"
    run = step["run"]
    assert "MARKER=$(head -n 1 drift.md)" in run and "contains(env.MARKER)" in run
    assert "--app github-actions" in run  # a marker pasted by someone else is not taken for ours
    assert run.count("gh issue create") == 1 and "gh issue edit" in run and "gh issue close" in run
    first = drift_markdown(DriftReport("news", 3, "2026-12-07T05:17:00Z", False, ())).splitlines()[0]
    assert first == marker("news", "drift") == "<!-- sourcegate:drift key=news -->"
