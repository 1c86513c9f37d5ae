"""The docs show a real rendering of the PR comment for the example set, kept current; the README starts
with the two commands and points at the example workflows.

Regenerate after an intended change: ``SOURCEGATE_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/test_readme.py``.
"""

from __future__ import annotations

import functools
import json
import os
import re
from datetime import datetime
from pathlib import Path

from gate.pipeline import SetRequest, run_set
from gate.report.comment import CommentReporter
from gate.verdict.report import Report

ROOT = Path(__file__).parent.parent
EXAMPLE = ROOT / "cached-snapshots" / "example"
README = ROOT / "README.md"
REVIEWER = ROOT / "docs" / "reviewer.md"
START, END = "<!-- readme-comment:start -->\n", "<!-- readme-comment:end -->\n"


def example_comment() -> str:
    """The example set's PR comment, dated at its baseline so the rendering does not age.

    Paths are relative to the repository root, as in a workflow run, so no machine's path shows.
    """
    body = CommentReporter().render(example_report())
    return re.sub(r"\n?<!-- sourcegate:comment[^>]*-->\n?", "\n", body).strip() + "\n"


@functools.cache
def example_report() -> Report:
    """The example set's report against its baseline, dated at the baseline, with relative paths.

    Built once per run: a report is a frozen value, which tests read and never change."""
    written = json.loads((EXAMPLE / "baseline.json").read_text(encoding="utf-8"))["baseline"]["written_at"]
    here = os.getcwd()
    os.chdir(ROOT)
    try:
        report = run_set(SetRequest(("cached-snapshots/example",)), now=datetime.fromisoformat(written))
    finally:
        os.chdir(here)
    return report


def test_the_docs_show_the_current_comment_of_the_example_set() -> None:
    text = REVIEWER.read_text(encoding="utf-8")
    before, rest = text.split(START, 1)
    shown, after = rest.split(END, 1)
    expected = example_comment()
    if os.environ.get("SOURCEGATE_UPDATE_GOLDEN") == "1":
        REVIEWER.write_text(before + START + expected + END + after, encoding="utf-8")
        return
    assert shown == expected, "docs/reviewer.md's comment is stale: regenerate with SOURCEGATE_UPDATE_GOLDEN=1"


def test_readme_starts_with_the_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    first_block = text.split("```sh\n", 1)[1].split("```", 1)[0]
    assert first_block.splitlines()[0].startswith("make demo")
    assert first_block.splitlines()[1].startswith("make test")


def test_the_readme_points_at_the_example_workflows_and_keeps_to_a_first_visit() -> None:
    text = README.read_text(encoding="utf-8")
    for name in ("run-agent.yml", "sourcegate.yml"):
        assert f"](examples/{name})" in text
    assert len(text.splitlines()) <= 250
    assert "](docs/images/comment.png)" in text and (ROOT / "docs" / "images" / "comment.png").is_file()
