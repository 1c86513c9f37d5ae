"""Every importer is bounded in depth: JSON nested past the limit is exit 2 naming the file and where.

A recorded run is input from whoever recorded it. Nested arrays or objects, 150 levels deep (past
the limit of 100) or 100,000 (past the interpreter's own recursion guard), are refused by
``sourcegate import`` as an input error that names the file and the JSON path where the nesting
passes the limit, never as a traceback. Each importer of the registry is tried by name, with the
deep value where that format keeps its JSON; JSON text held inside a string of a record (a tool's
output, a span attribute, a streamed tool input) is bounded the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from gate.cli import main
from gate.importers import FORMATS

DEPTHS = (150, 100_000)
SHAPES = ("arrays", "objects")


def deep(shape: str, depth: int) -> str:
    """``depth`` arrays (``[[[...]]]``) or objects (``{"a": {"a": ...}}``) inside one another."""
    if shape == "arrays":
        return "[" * depth + "]" * depth
    return '{"a": ' * depth + "1" + "}" * depth


def _tavily(value: str) -> str:
    banner = "=" * 32
    return "\n".join([
        f"{banner} Human Message {banner}", "", "what is new?",
        f"{banner} Ai Message {banner}", "Tool Calls:", "  tavily_search (call_1)", " Call ID: call_1",
        "  Args:", "    query: news",
        f"{banner} Tool Message {banner}", "Name: tavily_search", "",
        '{"query": "news", "results": ' + value + "}",
        f"{banner} Ai Message {banner}", "", "Nothing new.", ""])


# format id -> (the file's text with the deep value in it, the JSON path at which the value sits,
# the line the error names when the format reads JSON out of a text log)
WHERE: dict[str, tuple[Callable[[str], str], str, int | None]] = {
    "anthropic": (lambda v: '{"type": "message", "content": ' + v + "}", "$.content", None),
    "openai-responses": (lambda v: '{"object": "response", "output": ' + v + "}", "$.output", None),
    "perplexity": (lambda v: '{"object": "chat.completion", "choices": ' + v + "}", "$.choices", None),
    "langfuse": (lambda v: '{"trace": {"input": "q", "output": "a"}, "observations": ' + v + "}",
                 "$.observations", None),
    "tavily-agent-log": (_tavily, "$.results", 13),
    "otlp": (lambda v: '{"resourceSpans": ' + v + "}", "$.resourceSpans", None),
    "langsmith": (lambda v: '{"post": ' + v + "}", "$.post", None),
}


def test_every_importer_of_the_registry_is_tried() -> None:
    assert set(WHERE) == set(FORMATS)


def _import(fmt: str, file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["import", fmt, str(file), "--out", str(tmp_path / "runs")])
    return code, capsys.readouterr().err


def _refused(code: int, said: str, file: Path, path: str, line: int | None, tmp_path: Path) -> None:
    assert code == 2, said
    assert "Traceback" not in said and "internal error" not in said
    where = f"{file} at {path}" if line is None else f"{file} at line {line}, {path}"
    assert where in said, said
    assert "nested" in said
    assert not (tmp_path / "runs").exists()  # nothing half-written


@pytest.mark.parametrize("depth", DEPTHS)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("fmt", FORMATS)
def test_an_importer_refuses_deep_json_naming_the_file_and_where(
        fmt: str, shape: str, depth: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wrap, path, line = WHERE[fmt]
    file = tmp_path / "deep.json"
    file.write_text(wrap(deep(shape, depth)), encoding="utf-8")
    code, said = _import(fmt, file, tmp_path, capsys)
    _refused(code, said, file, path, line, tmp_path)
    # the path goes on down to the level past the limit
    step = "[0]" if shape == "arrays" else ".a"
    assert f"{path}{step * 99}" in said


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_whole_file_one_deep_array_is_refused_by_every_importer(
        fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = tmp_path / "deep.json"
    file.write_text("[" * 100_000, encoding="utf-8")
    code, said = _import(fmt, file, tmp_path, capsys)
    assert code == 2 and "Traceback" not in said and str(file) in said


@pytest.mark.parametrize("fmt", ["anthropic", "openai-responses"])
@pytest.mark.parametrize("depth", DEPTHS)
def test_a_deep_event_of_a_stream_capture_names_its_line(
        fmt: str, depth: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = {"type": "message_start", "message": {"type": "message", "content": []}} if fmt == "anthropic" \
        else {"type": "response.created", "response": {"object": "response", "output": []}}
    file = tmp_path / "deep.chunks.txt"
    file.write_text(json.dumps(first) + '\n{"type": "x", "delta": ' + deep("objects", depth) + "}\n",
                    encoding="utf-8")
    code, said = _import(fmt, file, tmp_path, capsys)
    _refused(code, said, file, "$.delta", 2, tmp_path)


@pytest.mark.parametrize("depth", DEPTHS)
def test_a_deep_streamed_tool_input_is_refused(depth: int, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    events = [
        {"type": "message_start", "message": {"type": "message", "content": []}},
        {"type": "content_block_start", "index": 0,
         "content_block": {"type": "server_tool_use", "id": "t1", "name": "web_search", "input": {}}},
        {"type": "content_block_delta", "index": 0,
         "delta": {"type": "input_json_delta", "partial_json": '{"query": ' + deep("arrays", depth) + "}"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_stop"},
    ]
    file = tmp_path / "deep.chunks.txt"
    file.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    code, said = _import("anthropic", file, tmp_path, capsys)
    assert code == 2 and "Traceback" not in said
    assert f"{file} at line 4" in said and "nested" in said


def _span(attributes: dict[str, str]) -> dict[str, object]:
    return {"traceId": "0" * 31 + "1", "spanId": "0" * 15 + "1", "name": "search", "startTimeUnixNano": "1",
            "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attributes.items()]}


@pytest.mark.parametrize("depth", DEPTHS)
def test_json_text_in_a_span_attribute_is_bounded(depth: int, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    span = _span({"openinference.span.kind": "CHAIN", "input.value": '{"query": ' + deep("arrays", depth) + "}",
                  "output.value": "a"})
    file = tmp_path / "spans.json"
    file.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}), encoding="utf-8")
    code, said = _import("otlp", file, tmp_path, capsys)
    _refused(code, said, file, "$.resourceSpans[0].scopeSpans[0].spans[0].attributes.input.value.query",
             None, tmp_path)


@pytest.mark.parametrize("depth", DEPTHS)
def test_json_text_in_a_langsmith_tool_output_is_bounded(depth: int, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    runs = {"post": [
        {"id": "r", "run_type": "chain", "inputs": {"question": "q"}, "outputs": {"output": "a"}},
        {"id": "s", "parent_run_id": "r", "run_type": "tool", "name": "web_search", "inputs": {"query": "q"},
         "outputs": {"output": deep("objects", depth)}},
    ]}
    file = tmp_path / "runs.json"
    file.write_text(json.dumps(runs), encoding="utf-8")
    code, said = _import("langsmith", file, tmp_path, capsys)
    _refused(code, said, file, "$.post[1].outputs", None, tmp_path)


@pytest.mark.parametrize("depth", DEPTHS)
def test_json_text_in_a_langfuse_observation_is_bounded(depth: int, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    doc = {"trace": {"input": "q", "output": "a"},
           "observations": [{"metadata": json.dumps({"attributes": {"openinference.span.kind": "TOOL"}}),
                             "name": "web_search", "input": deep("arrays", depth)}]}
    file = tmp_path / "trace.json"
    file.write_text(json.dumps(doc), encoding="utf-8")
    code, said = _import("langfuse", file, tmp_path, capsys)
    _refused(code, said, file, "$.observations[0].input", None, tmp_path)


def test_text_in_a_record_that_is_not_json_stays_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A tool's plain answer that starts like JSON is still a text answer, as before: no error.
    runs = {"post": [
        {"id": "r", "run_type": "chain", "inputs": {"question": "q"}, "outputs": {"output": "a"}},
        {"id": "s", "parent_run_id": "r", "run_type": "tool", "name": "web_search", "inputs": {"query": "q"},
         "outputs": {"output": "[not json, a sentence in brackets"}},
    ]}
    file = tmp_path / "runs.json"
    file.write_text(json.dumps(runs), encoding="utf-8")
    code, said = _import("langsmith", file, tmp_path, capsys)
    assert code == 0, said
