"""The ``otlp`` and ``langsmith`` importers: real span files and run exports become trace files, and
the spans ``sourcegate check --otlp-json`` writes import back into the runs they came from."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from gate.cli import main
from gate.deliver.spans import load_runs, otlp_json, write_otlp_json
from gate.errors import InputError
from gate.importers import convert
from gate.load.golden import load_trace, parse_trace
from gate.model import Run
from gate.pipeline import run_paths
from gate.record.trace import trace_dict
from gate.urls import extract_urls
from gate.verdict.report import Report
from tests.test_spans_tree import REGENERATED, _report, _result

FIXTURES = Path(__file__).parent / "fixtures" / "import"
SPEC_TRACE = FIXTURES / "openinference" / "openinference-spec.traces-md.example-spans.json"
LANGSMITH = FIXTURES / "langsmith" / "langsmith-sdk.langsmith_js_wrap_openai_default.json"
LANGSMITH_STREAM = FIXTURES / "langsmith" / "langsmith-sdk.langsmith_js_wrap_openai_stream.json"
EXAMPLE = Path(__file__).parent.parent / "cached-snapshots" / "example"


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


# --- otlp: OpenInference's own example spans -------------------------------------------------

def test_the_openinference_example_trace_is_a_run_with_question_and_answer() -> None:
    trace = convert("otlp", _read(SPEC_TRACE), case="hello", source=str(SPEC_TRACE))
    assert trace["question"] == "Is anybody there?" and trace["answer"] == "Yes, I am here."
    assert trace["started_at"] == "2023-09-07T18:54:47.293922Z"  # -06:00 in the file
    assert trace["queries"] == [] and trace["results"] == [] and "citations" not in trace


def test_a_span_id_recorded_twice_is_one_span_read_from_its_first_record() -> None:
    # the spec's page goes on with a second example that reuses the first one's trace and span ids
    doc = json.loads(_read(SPEC_TRACE))
    first, _, again = doc["spans"]
    assert again["context"] == first["context"] and again["attributes"]["input.value"] == "Hello?"
    trace = convert("otlp", doc, source="in.json")
    assert (trace["question"], trace["answer"]) == ("Is anybody there?", "Yes, I am here.")


def test_two_roots_in_one_trace_are_refused_naming_the_file() -> None:
    doc = json.loads(_read(SPEC_TRACE))
    second = json.loads(json.dumps(doc["spans"][0]))
    second["context"]["span_id"] = "0b0e0f00-0000-4000-8000-000000000002"
    doc["spans"].append(second)
    with pytest.raises(InputError, match=r"in\.json at \$\.spans\[0\]: expected one root span in trace ed7b336d"):
        convert("otlp", doc, source="in.json")


def test_web_documents_of_a_retriever_span_are_results_and_other_documents_are_not() -> None:
    spans = {"spans": [
        {"name": "agent", "context": {"trace_id": "t", "span_id": "r"}, "parent_id": None,
         "start_time": "2025-03-01T10:00:00+00:00",
         "attributes": {"openinference.span.kind": "AGENT", "input.value": "When did X ship?",
                        "output.value": "In 2024 (https://x.example/news)."}},
        {"name": "retrieve", "context": {"trace_id": "t", "span_id": "s"}, "parent_id": "r",
         "start_time": "2025-03-01T10:00:01+00:00",
         "attributes": {"openinference.span.kind": "RETRIEVER", "input": {"value": "{\"query\": \"X ship date\"}"},
                        "retrieval": {"documents": [
                            {"document.id": "https://x.example/news", "document.content": "X shipped",
                             "document.metadata": "{\"title\": \"X news\", \"published\": \"2024-05-02\"}"},
                            {"document.id": "chunk-7", "document.content": "<document-chunk-7>"}]}}}]}
    trace = convert("otlp", spans, case="x")
    assert trace["queries"] == ["X ship date"]
    assert trace["results"] == [{"query": 0, "position": 1, "url": "https://x.example/news", "title": "X news",
                                 "snippet": "X shipped", "published": "2024-05-02"}]


def test_a_file_of_several_traces_needs_the_case_it_holds(spans_file: Path) -> None:
    line = json.loads(_read(spans_file).splitlines()[0])
    other = json.loads(json.dumps(line).replace(line["resourceSpans"][0]["scopeSpans"][0]["spans"][0]["traceId"],
                                                "0" * 31 + "1"))
    text = json.dumps(line) + "\n" + json.dumps(other) + "\n"
    with pytest.raises(InputError, match="holds 2 traces and none is case 'nope'"):
        convert("otlp", text, case="nope")


# --- otlp: round trip -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def example() -> tuple[Report, dict[str, Run]]:
    """The example set's report (judge off) and its runs, read once for the module."""
    return run_paths([str(EXAMPLE)], None, judge_mode="off"), load_runs([str(EXAMPLE)])


@pytest.fixture(scope="module")
def spans_file(example: tuple[Report, dict[str, Run]], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example set's spans, written once for the module (tests import from it, never write to it)."""
    out = tmp_path_factory.mktemp("spans") / "spans.jsonl"
    write_otlp_json(*example, str(out))
    return out


def test_written_spans_import_back_into_the_same_run(example: tuple[Report, dict[str, Run]], spans_file: Path,
                                                     tmp_path: Path) -> None:
    lines = _read(spans_file).splitlines()
    original = example[1]
    assert len(lines) == len(original)
    for case, run in original.items():
        assert main(["import", "otlp", str(spans_file), "--case", case, "--out", str(tmp_path / "runs")]) == 0
        back = load_trace(str(tmp_path / "runs" / f"{case}.json"))
        # a run of the minimal shape comes back as a native trace (with the same content)
        same = {"citations": None, "source": "", "agent": (), "shape": "native"}
        assert replace(back, **same) == replace(run, **same)
        assert dict(back.agent).get("model") == dict(run.agent).get("model")
        # the cited URLs come back (without their quotes): the ones the answer's links cite when the run
        # listed none
        listed = [c.url for c in run.citations] if run.citations is not None else extract_urls(run.answer)
        assert [c.url for c in back.citations or ()] == list(dict.fromkeys(listed))


def test_the_attempts_of_a_run_import_back_from_its_spans() -> None:
    text = otlp_json(_report(_result("q1")), {"q1": REGENERATED})
    trace = convert("otlp", text, case="q1")
    assert trace["attempts"] == trace_dict(REGENERATED)["attempts"]
    assert parse_trace(trace, "<spans>", "q1").attempts == REGENERATED.attempts


def test_an_imported_run_gets_the_same_verdict(spans_file: Path, tmp_path: Path) -> None:
    original = EXAMPLE / "runs" / "ecb-deposit-rate-now.json"
    assert main(["import", "otlp", str(spans_file), "--case", "ecb-deposit-rate-now", "--out",
                 str(tmp_path / "runs")]) == 0
    reports: list[Any] = []
    for n, file in enumerate((original, tmp_path / "runs" / "ecb-deposit-rate-now.json")):
        code = main(["check", str(file), "--json", str(tmp_path / f"{n}.json")])
        report = json.loads(_read(tmp_path / f"{n}.json"))
        reports.append((code, report["verdict"], [(c["id"], c["hard_failures"]) for c in report["cases"]]))
    assert reports[0] == reports[1]


# --- langsmith --------------------------------------------------------------------------------

@pytest.mark.parametrize("path", [LANGSMITH, LANGSMITH_STREAM], ids=["default", "stream"])
def test_the_langsmith_sdk_payload_is_a_run(path: Path) -> None:
    trace = convert("langsmith", _read(path), case="howdy", source=str(path))
    assert trace["question"] == "howdy" and trace["answer"] == "Howdy! How can I assist you today?"
    assert trace["agent"] == {"model": "gpt-4o-mini"} and trace["queries"] == []
    assert trace["started_at"].startswith("2024-10-13T07:05:3")


def test_langsmith_retriever_runs_are_queries_and_results() -> None:
    runs = [
        {"id": "a", "name": "RAG", "run_type": "chain", "start_time": "2025-01-02T03:04:05.000001",
         "inputs": {"question": "Who won?"}, "outputs": {"output": "B won (https://news.example/b)."}},
        {"id": "b", "parent_run_id": "a", "name": "Retriever", "run_type": "retriever",
         "start_time": "2025-01-02T03:04:06", "inputs": {"query": "winner"},
         "outputs": {"documents": [
             {"page_content": "B won the final", "metadata": {"source": "https://news.example/b", "title": "B"}},
             {"page_content": "a local note", "metadata": {"source": "notes.txt"}}]}},
    ]
    trace = convert("langsmith", {"runs": runs}, case="w")
    assert trace["question"] == "Who won?" and trace["started_at"] == "2025-01-02T03:04:05.000001Z"
    assert trace["queries"] == ["winner"]
    assert trace["results"] == [{"query": 0, "position": 1, "url": "https://news.example/b", "title": "B",
                                 "snippet": "B won the final"}]


def test_langsmith_runs_without_a_root_are_refused() -> None:
    runs = [{"id": "a", "parent_run_id": "b", "run_type": "llm"}, {"id": "b", "parent_run_id": "a"}]
    with pytest.raises(InputError, match="expected one root run"):
        convert("langsmith", runs, source="x.json")
