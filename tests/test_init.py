"""``sourcegate init`` and ``import --golden``: starting a golden set from real recorded runs, then gating it."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from gate.cli import main
from gate.commands.scaffold import config_yaml, workflow_yaml
from gate.config import SETTINGS, Config, parse_config
from gate.files.jsonio import schema
from gate.load.golden import load_golden

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "import"
# Real records (see fixtures/import/ATTRIBUTION.md) in three formats; the perplexity one records no question.
REAL = [("anthropic", "anthropic/vercel-ai.anthropic-web-search-tool.1.json", "ai-news"),
        ("openai-responses", "openai/vercel-ai.openai-web-search-tool.1.json", "tech-news"),
        ("perplexity", "perplexity/vercel-ai.perplexity-citations.json", "sf-population"),
        ("langfuse", "langfuse/agno-2025-06-11.json", "x-trends")]


def _import(traces: Path, *extra: str) -> None:
    for fmt, fixture, case in REAL:
        assert main(["import", fmt, str(FIXTURES / fixture), "--out", str(traces), "--case", case, *extra]) == 0


def test_the_generated_configuration_holds_every_default() -> None:
    text = config_yaml()
    assert replace(parse_config(text, "sourcegate.yaml"), source=None) == Config()
    assert "# most distinct cited URLs per registered domain (default 2)\n  domain_cap: 2\n" in text


def _schema_paths(node: Mapping[str, Any], at: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """Every key the configuration schema names, as its path (not the keys of free-form maps, nor the
    deprecated keys, which are still accepted but no longer written or read)."""
    for key, child in node.get("properties", {}).items():
        if child.get("deprecated"):
            continue
        yield (*at, key)
        yield from _schema_paths(child, (*at, key))


def test_the_generated_configuration_writes_every_key_of_the_schema() -> None:
    data = yaml.safe_load(config_yaml())
    missing = []
    for path in _schema_paths(schema("config")):
        here: Any = data
        for key in path:
            here = here.get(key, KeyError) if isinstance(here, dict) else KeyError
        if here is KeyError:
            missing.append(".".join(path))
    assert missing == []
    assert set(SETTINGS) == {f.name for f in fields(Config)} - {"source"}


def test_a_configuration_that_is_not_the_default_is_written_as_it_is() -> None:
    changed = parse_config("""
checks: {disabled: [domain_cap, fabricated_url], require_primary: [legal], paraphrase_drift: {block: true},
         stale_days: {fast: 30}}
golden: {resnapshot_days: 45}
retrieval: {min_relevance: 4}
judge: {provider: openai, base_url: 'https://llm.example/v1', prices: {mine: {input: 1, output: 2, batch: 0.4}}}
soft: {primary_share: {floor: 0.3, block: true}}
compare: {max_baseline_age_days: null}
record: {search: {brave: {key_env: MY_KEY}, mine: {endpoint: 'https://s.example/api', params: {n: 5}}},
         allow: [10.0.0.0/8]}
replay: {on_miss: warn}
""", "sourcegate.yaml")
    assert parse_config(config_yaml(changed), "sourcegate.yaml") == changed


def test_the_workflow_template_is_the_example_workflow() -> None:
    template = (ROOT / "gate" / "data" / "workflow.yml").read_text(encoding="utf-8")
    assert template == (ROOT / "examples" / "sourcegate.yml").read_text(encoding="utf-8")
    text = workflow_yaml("agents/golden")
    assert "golden-set: agents/golden\n" in text and "permissions: {}\n" in text
    assert "uses: actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2" in text


def test_init_from_real_imported_runs_then_check_works(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    _import(tmp_path / "traces")
    assert "records no question" in capsys.readouterr().err  # the perplexity record
    assert main(["init", "my-set", "--from-runs", "traces"]) == 0
    err = capsys.readouterr().err
    assert "golden set 'my-set' with 4 case(s)" in err
    golden = load_golden("my-set")
    assert [c.id for c in golden.cases] == ["ai-news", "sf-population", "tech-news", "x-trends"]
    assert golden.cases[1].question == "TODO: the question the agent was asked"
    text = (tmp_path / "my-set" / "golden.yaml").read_text(encoding="utf-8")
    assert "  # class: lookup  # " in text and "  # freshness: slow  # " in text
    assert sorted(p.name for p in (tmp_path / "my-set" / "runs").iterdir()) == [
        "ai-news.json", "sf-population.json", "tech-news.json", "x-trends.json"]
    workflow = (tmp_path / ".github" / "workflows" / "sourcegate.yml").read_text(encoding="utf-8")
    assert "golden-set: my-set\n" in workflow
    assert main(["check", "my-set", "--json", "report.json", "--judge", "off", "-q"]) == 1
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    assert report["golden"]["name"] == "my-set"
    assert {c["id"] for c in report["cases"]} == {"ai-news", "sf-population", "tech-news", "x-trends"}
    assert all(f["check"] != "input_error" for c in report["cases"] for f in c["hard_failures"])
    assert capsys.readouterr().out.startswith("sourcegate: FAIL · golden set my-set v1 · 4 cases")


def test_init_refuses_to_overwrite_without_force(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "set").mkdir()
    (tmp_path / "set" / "golden.yaml").write_text("mine\n", encoding="utf-8")
    assert main(["init", "set"]) == 2
    assert "already exist(s): nothing written (pass --force to overwrite)" in capsys.readouterr().err
    assert (tmp_path / "set" / "golden.yaml").read_text(encoding="utf-8") == "mine\n"
    assert not (tmp_path / "set" / "sourcegate.yaml").exists() and not (tmp_path / ".github").exists()
    assert main(["init", "set", "--force"]) == 0
    assert load_golden("set").cases[0].id == "first-case"  # no trace yet: one placeholder case


def test_import_golden_adds_the_runs_as_cases_and_keeps_the_file_s_comments(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    fmt, fixture, _ = REAL[0]
    assert main(["import", fmt, str(FIXTURES / fixture), "--golden", "set", "--case", "first",
                 "--question", "What happened in AI this week?"]) == 0
    assert [c.id for c in load_golden("set").cases] == ["first"]
    fmt, fixture, _ = REAL[2]
    assert main(["import", fmt, str(FIXTURES / fixture), "--golden", "set", "--case", "second"]) == 0
    golden = load_golden("set")
    assert [(c.id, c.question) for c in golden.cases] == [
        ("first", "What happened in AI this week?"), ("second", "TODO: the question the agent was asked")]
    assert (tmp_path / "set" / "golden.yaml").read_text(encoding="utf-8").startswith("# The golden set:")
    assert sorted(p.name for p in (tmp_path / "set" / "runs").iterdir()) == ["first.json", "second.json"]


def test_import_refuses_to_overwrite_a_trace_without_force(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fmt, fixture, case = REAL[0]
    argv = ["import", fmt, str(FIXTURES / fixture), "--out", str(tmp_path), "--case", case]
    assert main(argv) == 0
    (tmp_path / f"{case}.json").write_text("{}", encoding="utf-8")
    assert main(argv) == 2
    assert "exists: nothing written (pass --force to overwrite it)" in capsys.readouterr().err
    assert (tmp_path / f"{case}.json").read_text(encoding="utf-8") == "{}"
    assert main([*argv, "--force"]) == 0
    assert json.loads((tmp_path / f"{case}.json").read_text(encoding="utf-8"))["case"] == case


def test_init_checks_every_target_before_writing_any(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    traces = tmp_path / "traces"
    _import(traces)
    (tmp_path / ".github").write_text("", encoding="utf-8")  # a file where the workflow's folder goes
    assert main(["init", "sets/a", "--from-runs", "traces"]) == 2
    assert ("the workflow .github/workflows/sourcegate.yml: cannot write here: a folder above it is a file"
            in capsys.readouterr().err)
    assert not (tmp_path / "sets").exists()  # not one file of the set written


@pytest.mark.parametrize("force", [[], ["--force"]])
def test_a_second_set_leaves_the_existing_workflow_and_says_how_it_gates_the_set(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], force: list[str]) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["init", "sets/a"]) == 0
    workflow = (tmp_path / ".github" / "workflows" / "sourcegate.yml").read_text(encoding="utf-8")
    capsys.readouterr()
    assert main(["init", "sets/c", *force]) == 0
    err = capsys.readouterr().err
    assert ".github/workflows/sourcegate.yml exists: left as it is" in err
    assert "add sets/c to that input, unless the input is empty and the set is under cached-snapshots/" in err
    assert (tmp_path / ".github" / "workflows" / "sourcegate.yml").read_text(encoding="utf-8") == workflow
    assert "golden-set: sets/a\n" in workflow
    assert load_golden("sets/c").cases[0].id == "first-case"
