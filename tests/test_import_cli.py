"""``sourcegate import``: one trace file per input, all or nothing, the same bytes every time."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import gate.importers
from gate.cli import main
from gate.commands.import_ import FORMAT_IDS, case_id
from gate.files.jsonio import dump_json
from gate.importers import FORMATS, convert
from gate.load.golden import load_trace
from tests.support.fresh_import import FreshImport

FIXTURES = Path(__file__).parent / "fixtures" / "import"
SEARCH = FIXTURES / "anthropic" / "vercel-ai.anthropic-web-search-tool.1.json"
STREAM = FIXTURES / "anthropic" / "vercel-ai.anthropic-web-search-tool.1.chunks.txt"
FETCH = FIXTURES / "anthropic" / "vercel-ai.anthropic-web-fetch-tool.1.json"
PERPLEXITY = FIXTURES / "perplexity" / "vercel-ai.perplexity-citations.json"
EVERY = [("anthropic", SEARCH), ("anthropic", STREAM), ("anthropic", FETCH),
         ("openai-responses", FIXTURES / "openai" / "vercel-ai.openai-web-search-tool.1.json"),
         ("openai-responses", FIXTURES / "openai" / "vercel-ai.openai-web-search-tool.1.chunks.txt"),
         ("perplexity", PERPLEXITY), ("langfuse", FIXTURES / "langfuse" / "agno-2025-06-11.json"),
         ("tavily-agent-log", FIXTURES / "tavily" / "run-iphone-models.cell15.stdout.txt"),
         ("otlp", FIXTURES / "openinference" / "openinference-spec.traces-md.example-spans.json"),
         ("langsmith", FIXTURES / "langsmith" / "langsmith-sdk.langsmith_js_wrap_openai_default.json")]


def test_each_input_becomes_one_trace_named_by_its_file(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "runs"
    assert main(["import", "anthropic", str(SEARCH), str(FETCH), "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["vercel-ai.anthropic-web-fetch-tool.1.json",
                                                     "vercel-ai.anthropic-web-search-tool.1.json"]
    fetched = json.loads((out / "vercel-ai.anthropic-web-fetch-tool.1.json").read_text(encoding="utf-8"))
    assert fetched["case"] == "vercel-ai.anthropic-web-fetch-tool.1"
    written = out / "vercel-ai.anthropic-web-fetch-tool.1.json"
    assert f"sourcegate: {FETCH} -> {written}" in capsys.readouterr().err


def test_the_same_stem_twice_is_refused_and_nothing_is_written(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    # SEARCH and STREAM are both "vercel-ai.anthropic-web-search-tool.1" once their extensions go
    out = tmp_path / "runs"
    assert main(["import", "anthropic", str(SEARCH), str(STREAM), "--out", str(out)]) == 2
    assert "two inputs would both be written to" in capsys.readouterr().err
    assert not out.exists()


def test_output_is_deterministic_and_loads_as_a_trace(tmp_path: Path) -> None:
    for n in (1, 2):
        assert main(["import", "perplexity", str(PERPLEXITY), "--out", str(tmp_path / str(n)), "--case",
                     "sf-population", "--question", "What is the population of San Francisco?"]) == 0
    first, second = (tmp_path / "1" / "sf-population.json"), (tmp_path / "2" / "sf-population.json")
    assert first.read_bytes() == second.read_bytes()
    expected = convert("perplexity", PERPLEXITY.read_text(encoding="utf-8"), case="sf-population",
                       question="What is the population of San Francisco?")
    assert first.read_text(encoding="utf-8") == dump_json(expected)
    run = load_trace(str(first))
    assert run.case == "sf-population" and run.shape == "native" and len(run.results) == 7


def test_one_bad_input_writes_nothing_and_names_file_and_path(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "cut.json"
    bad.write_text(FETCH.read_text(encoding="utf-8")[:3000], encoding="utf-8")
    out = tmp_path / "runs"
    assert main(["import", "anthropic", str(SEARCH), str(bad), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"sourcegate: error: {bad} at $.content[2].content.content.source.data: malformed JSON" in err
    assert not out.exists()


def test_wrong_format_for_the_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import", "perplexity", str(SEARCH), "--out", str(tmp_path)]) == 2
    assert f"{SEARCH} at $.object: expected 'chat.completion'" in capsys.readouterr().err


@pytest.mark.parametrize(("argv", "message"), [
    (["import", "nope", "x.json", "--out", "o"], "argument FORMAT: invalid choice: 'nope'"),
    (["import", "anthropic", "x.json"], "the following arguments are required: --out"),
    (["import", "anthropic", str(SEARCH), str(FETCH), "--out", "o", "--case", "a"], "--case names one trace"),
    (["import", "anthropic", str(SEARCH), "--out", "o", "--case", "../escape"], "not usable as a file name"),
    (["import", "anthropic", "missing.json", "--out", "o"], "missing.json: no such file"),
    (["import", "anthropic", str(SEARCH), "--out", str(SEARCH)], "--out must be a folder"),
])
def test_usage_errors_exit_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str],
                             tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(("name", "case"), [
    ("run.json", "run"), ("x.chunks.txt", "x"), ("cell15.stdout.txt", "cell15"), ("trace", "trace"),
    ("a.b.json", "a.b"),
])
def test_the_default_case_id_is_the_file_name_without_its_extensions(name: str, case: str) -> None:
    assert case_id(f"some/dir/{name}") == case


def test_the_parser_lists_every_registered_format_and_each_importer_says_what_it_is() -> None:
    from gate.importers.registry import IMPORTERS

    assert FORMAT_IDS == FORMATS == tuple(IMPORTERS)
    for fmt, importer in IMPORTERS.items():
        assert importer.id == fmt
        assert (importer.__doc__ or "").strip() and importer.description
        assert (importer.convert.__doc__ or "").strip()
    public = {n for n, v in vars(gate.importers).items()
              if not n.startswith("_") and n != "annotations" and not isinstance(v, ModuleType)}
    assert sorted(gate.importers.__all__) == sorted(public) == ["FORMATS", "convert"]
    assert (convert.__doc__ or "").strip()


def test_an_unknown_format_in_the_api_is_an_input_error() -> None:
    with pytest.raises(gate.errors.InputError, match="unknown import format 'csv'"):
        convert("csv", {})


def test_importing_never_opens_a_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("an importer tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    for fmt, path in EVERY:
        trace = convert(fmt, path.read_text(encoding="utf-8"), source=str(path))
        assert json.loads(dump_json(trace)) == trace


def test_building_the_cli_parser_loads_no_importer(cli_import: FreshImport) -> None:
    assert cli_import.loaded("gate.importers") == ["gate.importers"]
