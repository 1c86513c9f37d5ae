"""What the docs say of the example set and of the code is what they give today.

The verdict line of docs/baseline.md is the first reason `check` writes on the example set, with
and without its baseline; the snapshot's counts and size in docs/snapshots.md and in the snapshot's
README are those of the committed snapshot, which a test elsewhere holds to what a build writes.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from gate.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "cached-snapshots" / "example"
SNAPSHOT = EXAMPLE / "snapshot"


def _flat(path: Path) -> str:
    """The file's text with its line breaks and runs of spaces made one space."""
    return " ".join(path.read_text(encoding="utf-8").split())


def _first_reason(golden: Path, out: Path) -> str:
    assert main(["check", str(golden), "--json", str(out), "--quiet"]) == 1
    reason: str = json.loads(out.read_text(encoding="utf-8"))["reasons"][0]
    return reason


def test_the_baseline_doc_quotes_the_example_sets_verdict_line(tmp_path: Path) -> None:
    doc = _flat(ROOT / "docs" / "baseline.md")
    with_baseline = _first_reason(EXAMPLE, tmp_path / "with.json")
    assert f"`{with_baseline}`" in doc, with_baseline
    bare = tmp_path / "example"
    shutil.copytree(EXAMPLE, bare, ignore=shutil.ignore_patterns("baseline.json"))
    without = _first_reason(bare, tmp_path / "without.json")
    quoted = re.search(r"without a baseline: `([^`]*?)\.\.\.\)`", doc)
    assert quoted is not None and without.startswith(quoted.group(1)), without


def test_the_snapshot_docs_give_the_example_snapshots_counts_and_size() -> None:
    counts = {layer: sum(1 for _ in (SNAPSHOT / folder).glob("*.json"))
              for layer, folder in (("searches", "search"), ("pages", "pages"), ("extractions", "extractions"))}
    size_kb = round(sum(f.stat().st_size for f in SNAPSHOT.rglob("*.json")) / 10_000) * 10
    figures = f"{counts['searches']} searches, {counts['pages']} pages, {counts['extractions']} extractions"
    cases = len(yaml.safe_load((EXAMPLE / "golden.yaml").read_text(encoding="utf-8"))["cases"])
    assert len(list((EXAMPLE / "runs").glob("*.json"))) == cases
    snapshots = _flat(ROOT / "docs" / "snapshots.md")
    assert f"built from its {cases} runs: {figures}, about {size_kb} KB of entries" in snapshots
    readme = _flat(SNAPSHOT / "README.md")
    assert f"{figures}; about {size_kb} KB of entries." in readme


def test_the_axes_doc_names_the_axes_that_carry_a_why_line(tmp_path: Path) -> None:
    out = tmp_path / "report.json"
    assert main(["check", str(EXAMPLE), "--json", str(out), "--quiet"]) == 1
    cases = json.loads(out.read_text(encoding="utf-8"))["cases"]
    noted = {name for case in cases for name in case["axes"]}
    assert noted == {"freshness", "diversity", "citation_validity"}
    assert all(case["judgement"]["query_scores"] for case in cases if case.get("judgement"))
    doc = _flat(ROOT / "docs" / "axes.md")
    assert "Freshness, diversity and citation validity each come with a line saying why" in doc
    assert "query quality has no such line" in doc and "`cases[].judgement.query_scores`" in doc


def test_the_provider_doc_names_every_list_a_new_provider_joins() -> None:
    from gate import config
    from gate.action import inputs
    from gate.judge import providers

    schema = json.loads((ROOT / "gate" / "schemas" / "config.json").read_text(encoding="utf-8"))
    doc = _flat(ROOT / "docs" / "judge-providers.md")
    # every provider is in each list the doc names, and each keyed provider has its input everywhere
    for name in providers.PROVIDERS:
        assert name in config.DEFAULT_MODELS and name in json.dumps(schema)
    for key_input in inputs.JUDGE_KEYS.values():
        assert key_input in inputs.INPUT_NAMES and key_input in inputs.SECRET_INPUTS
        assert f"  {key_input}:" in (ROOT / "action.yml").read_text(encoding="utf-8")
    for name in ("`PROVIDERS`", "`judge.provider` enum", "`DEFAULT_MODELS`", "`DEFAULT_PRICES`", "`INPUT_NAMES`",
                 "`SECRET_INPUTS`", "`JUDGE_KEYS`", "`action.yml`"):
        assert name in doc, name
    assert "A provider is one module and one registry line." not in doc


def test_the_docs_say_run_refuses_check_with_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    golden = tmp_path / "example"
    shutil.copytree(EXAMPLE, golden)
    code = main(["run", str(golden), "--check", "--out", str(tmp_path / "o"), "--", "true"])
    assert code == 2 and "--check gates" in capsys.readouterr().err and not (tmp_path / "o").exists()
    assert "`--check --out DIR` is refused (exit 2, nothing run)" in _flat(ROOT / "docs" / "run.md")


def test_every_documented_run_that_gates_judges_the_new_answers() -> None:
    # A re-run agent's answers are new to the judge cache: replayed, the run is inconclusive.
    docs = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), *sorted((ROOT / "examples").rglob("*.md"))]
    lines = [(doc, line) for doc in docs for line in doc.read_text(encoding="utf-8").splitlines()
             if re.match(r"\s*sourcegate run .*--check", line)]
    assert len(lines) >= 3
    for doc, line in lines:
        assert re.search(r"--judge (live|batch|off)\b", line), f"{doc.relative_to(ROOT)}: {line}"
