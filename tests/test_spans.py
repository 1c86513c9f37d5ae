"""``sourcegate check --otlp-json/--otlp-endpoint``: OpenInference spans, decoded with the OpenTelemetry
protobuf definitions, and sent to a loopback OTLP/HTTP receiver."""

from __future__ import annotations

import io
import json
import shutil
import sys
from contextlib import redirect_stderr
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from gate.cli import main
from gate.deliver.spans import load_runs, traces_endpoint
from gate.deliver.spans.ids import span_id, trace_id
from gate.errors import InputError
from tests.support.fresh_import import FreshImport
from tests.support.otlp_receiver import attributes, decode_json_lines, otlp_receiver, spans_of

ROOT = Path(__file__).parent.parent
EXAMPLE = ROOT / "cached-snapshots" / "example"
RUN = json.loads((EXAMPLE / "runs" / "ecb-deposit-rate-now.json").read_text(encoding="utf-8"))


def _check(tmp_path: Path, *extra: str) -> tuple[int, str]:
    out = tmp_path / "spans.jsonl"
    code = main(["check", str(EXAMPLE), "--otlp-json", str(out), "--json", str(tmp_path / "r.json"), *extra])
    return code, out.read_text(encoding="utf-8") if out.exists() else ""


@dataclass(frozen=True)
class Sent:
    """One check of the example set that wrote its spans to a file and sent them to an endpoint."""

    code: int
    text: str
    posts: list[tuple[str, str, bytes]]
    stderr: str


def _check_and_send(tmp_path: Path, status: int, endpoint_path: str = "") -> Sent:
    with otlp_receiver(status=status) as receiver, redirect_stderr(io.StringIO()) as stderr:
        code, text = _check(tmp_path, "--otlp-endpoint", receiver.url + endpoint_path)
    return Sent(code, text, receiver.posts, stderr.getvalue())


@pytest.fixture(scope="module")
def refused(tmp_path_factory: pytest.TempPathFactory) -> Sent:
    """The example set checked with ``--otlp-json``, its spans sent to an endpoint that refuses them."""
    return _check_and_send(tmp_path_factory.mktemp("spans"), 400, "/v1/traces")


@pytest.fixture(scope="module")
def written(refused: Sent) -> tuple[int, str]:
    """The exit code and the OTLP/JSON spans file of the example set's check (the file is written
    whatever the endpoint says: this is the check whose endpoint refused the spans)."""
    return refused.code, refused.text


@pytest.fixture(scope="module")
def sent(tmp_path_factory: pytest.TempPathFactory) -> Sent:
    """The example set checked again, its spans sent to an endpoint that takes them."""
    return _check_and_send(tmp_path_factory.mktemp("spans"), 200)


def _case(text: str, case: str) -> list[Any]:
    for request in decode_json_lines(text):
        spans = spans_of([request])
        if any(attributes(s).get("sourcegate.case.id") == case for s in spans):
            return spans
    raise AssertionError(f"no trace for {case}")


def test_one_trace_per_case_each_a_tree_under_one_chain_root(written: tuple[int, str]) -> None:
    code, text = written
    requests = decode_json_lines(text)
    cases = [c for c in (attributes(s).get("sourcegate.case.id") for s in spans_of(requests)) if c]
    assert len(requests) == len(cases) == len(set(cases)) > 1
    for request in requests:
        spans = spans_of([request])
        assert len({s.trace_id for s in spans}) == 1
        ids = {s.span_id for s in spans}
        roots = [s for s in spans if not s.parent_span_id]
        assert len(roots) == 1 and attributes(roots[0])["openinference.span.kind"] == "CHAIN"
        assert all(s.parent_span_id in ids for s in spans if s.parent_span_id)
        assert all(s.start_time_unix_nano <= s.end_time_unix_nano for s in spans)
    assert code in (0, 1)


def test_the_recorded_run_becomes_retriever_tool_and_llm_spans(written: tuple[int, str]) -> None:
    spans = _case(written[1], "ecb-deposit-rate-now")
    by_id = {s.span_id: s for s in spans}
    kinds = [(s.name, attributes(s)["openinference.span.kind"]) for s in spans]
    assert kinds.count(("search", "RETRIEVER")) == 2 and kinds.count(("web_search", "TOOL")) == 2
    assert kinds.count(("fetch_page", "TOOL")) == 2 and kinds.count(("synthesis", "LLM")) == 1
    [root] = [s for s in spans if not s.parent_span_id]
    retrievers = [s for s in spans if s.name == "search"]
    assert [attributes(s)["input.value"] for s in retrievers] == RUN["queries"]
    for s in spans:
        if s.name == "web_search":
            assert by_id[s.parent_span_id].name == "search"
        elif s is not root:
            assert s.parent_span_id == root.span_id
    first = attributes(retrievers[0])
    shown = [r for r in RUN["results"] if r["query"] == 0]
    assert [first[f"retrieval.documents.{j}.document.id"] for j in range(len(shown))] == [r["url"] for r in shown]
    meta = json.loads(first["retrieval.documents.0.document.metadata"])
    assert meta["registered_domain"] == "europa.eu" and meta["published"] == "2025-06-05"
    assert meta["age_days"] == 497 and meta["source_type"] in ("primary", "secondary", "unknown")
    assert first["sourcegate.regime"] == attributes(root)["sourcegate.regime"]
    llm = attributes(next(s for s in spans if s.name == "synthesis"))
    assert llm["llm.model_name"] == "claude-sonnet-4-5" and llm["output.value"] == RUN["answer"]
    page = attributes(next(s for s in spans if s.name == "fetch_page"))
    assert page["url.full"] == RUN["pages"][0]["url"] and page["http.response.status_code"] == 200
    assert page["output.value"] == RUN["pages"][0]["text"]


def test_times_come_from_the_recording(written: tuple[int, str]) -> None:
    spans = _case(written[1], "ecb-deposit-rate-now")
    [root] = [s for s in spans if not s.parent_span_id]
    assert root.start_time_unix_nano == 1_792_049_412 * 10**9  # started_at 2026-10-15T07:30:12Z
    assert root.end_time_unix_nano == 1_792_049_426 * 10**9  # the last fetched_at, 07:30:26Z
    fetches = sorted(s.start_time_unix_nano for s in spans if s.name == "fetch_page")
    assert fetches == [1_792_049_419 * 10**9, 1_792_049_426 * 10**9]


def test_the_root_carries_verdict_figures_checks_and_hard_failures(written: tuple[int, str]) -> None:
    requests = decode_json_lines(written[1])
    roots = [s for s in spans_of(requests) if not s.parent_span_id]
    failed = [s for s in roots if attributes(s)["sourcegate.verdict"] == "fail"]
    assert failed, "the example set has a failing case"
    for s in roots:
        a = attributes(s)
        assert a["sourcegate.golden_set.name"] and a["input.value"]
        assert any(k.startswith("sourcegate.check.") for k in a)
        assert any(k.startswith("sourcegate.soft.") for k in a) or a["sourcegate.verdict"] == "fail"
    for s in failed:
        a = attributes(s)
        events = [e for e in s.events if e.name == "sourcegate.hard_failure"]
        assert len(events) == a["sourcegate.hard_failure_count"] > 0
        checks = {attributes(e)["sourcegate.check"] for e in events}  # type: ignore[arg-type]
        assert checks == set(a["sourcegate.hard_failures"])
        assert all(a[f"sourcegate.check.{c}"] == "fail" for c in checks if f"sourcegate.check.{c}" in a)
        assert s.status.code == s.status.STATUS_CODE_ERROR and s.status.message.startswith("hard failures: ")


def test_a_trace_id_names_the_run_so_the_same_run_sent_again_is_the_same_trace(written: tuple[int, str],
                                                                             sent: Sent) -> None:
    again = sent.text  # a second check of the same runs
    assert again == written[1]
    spans = _case(written[1], "ecb-deposit-rate-now")
    [root] = [s for s in spans if not s.parent_span_id]
    golden = attributes(root)
    tid = trace_id(golden["sourcegate.golden_set.name"], golden["sourcegate.golden_set.version"],
                   "ecb-deposit-rate-now", load_runs([str(EXAMPLE)])["ecb-deposit-rate-now"])
    assert root.trace_id == tid.to_bytes(16, "big") and root.span_id == span_id(tid, "case").to_bytes(8, "big")


def test_a_re_run_of_a_case_is_another_trace(written: tuple[int, str], tmp_path: Path) -> None:
    traces = tmp_path / "traces"
    shutil.copytree(EXAMPLE / "runs", traces)
    rerun = dict(RUN, answer=RUN["answer"] + " (re-run)")
    (traces / "ecb-deposit-rate-now.json").write_text(json.dumps(rerun), encoding="utf-8")
    code, text = _check(tmp_path, "--runs", str(traces))
    before = {attributes(s)["sourcegate.case.id"]: s.trace_id for s in spans_of(decode_json_lines(written[1]))
              if not s.parent_span_id}
    after = {attributes(s)["sourcegate.case.id"]: s.trace_id for s in spans_of(decode_json_lines(text))
             if not s.parent_span_id}
    assert after["ecb-deposit-rate-now"] != before["ecb-deposit-rate-now"]  # another run, another trace
    assert {c: t for c, t in after.items() if c != "ecb-deposit-rate-now"} == {
        c: t for c, t in before.items() if c != "ecb-deposit-rate-now"}  # the same runs, the same traces


def test_the_exporter_sends_the_same_spans_over_otlp_http(written: tuple[int, str], sent: Sent) -> None:
    code, text = sent.code, sent.text
    assert code == written[0] and text == written[1]
    [(path, content_type, body)] = sent.posts
    assert path == "/v1/traces" and content_type == "application/x-protobuf"
    received = spans_of([ExportTraceServiceRequest.FromString(body)])
    assert sorted(s.SerializeToString() for s in received) == sorted(
        s.SerializeToString() for s in spans_of(decode_json_lines(text)))


def test_a_refusing_endpoint_is_said_and_changes_no_exit_code(refused: Sent, sent: Sent) -> None:
    assert refused.code == sent.code and len(refused.posts) == 1
    assert refused.posts[0][0] == "/v1/traces" and "spans not sent" in refused.stderr
    assert "spans not sent" not in sent.stderr


def test_traces_endpoint_adds_the_signal_path_to_a_base_url() -> None:
    assert traces_endpoint("http://localhost:4318") == "http://localhost:4318/v1/traces"
    assert traces_endpoint("http://localhost:6006/") == "http://localhost:6006/v1/traces"
    custom = "https://cloud.langfuse.com/api/public/otel/v1/traces"
    assert traces_endpoint(custom) == custom
    with pytest.raises(InputError, match="expected an http"):
        traces_endpoint("localhost:4318")


def test_a_bad_endpoint_is_an_input_error_before_anything_is_written(tmp_path: Path) -> None:
    code = main(["check", str(EXAMPLE), "--json", str(tmp_path / "r.json"), "--otlp-endpoint", "ftp://x"])
    assert code == 2 and not (tmp_path / "r.json").exists()


def test_without_the_otel_extra_the_flags_say_how_to_install_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "opentelemetry.sdk", None)  # what an absent package looks like
    code, text = _check(tmp_path)
    assert code == 2 and text == "" and not (tmp_path / "r.json").exists()
    assert "the optional extra sourcegate[otel]: pip install '.[otel]'" in capsys.readouterr().err


def test_several_sets_need_name_in_the_otlp_json_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other"
    shutil.copytree(EXAMPLE, other)
    golden = other / "golden.yaml"
    golden.write_text(golden.read_text(encoding="utf-8").replace("name: example", "name: other", 1), encoding="utf-8")
    code = main(["check", str(EXAMPLE), str(other), "--otlp-json", str(tmp_path / "s.jsonl")])
    assert code == 2 and "--otlp-json needs {name}" in capsys.readouterr().err


def test_importing_the_cli_does_not_import_opentelemetry(cli_import: FreshImport) -> None:
    assert cli_import.loaded("opentelemetry") == [] and "opentelemetry" not in cli_import.importtime


def test_span_time_export_moves_every_trace_to_the_time_it_is_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, written: tuple[int, str]) -> None:
    import time

    monkeypatch.setenv("SOURCEGATE_SPAN_TIME", "export")
    before = time.time_ns()
    _, text = _check(tmp_path)
    after = time.time_ns()
    recorded = {s.span_id: s for s in spans_of(decode_json_lines(written[1]))}
    for s in spans_of(decode_json_lines(text)):
        was = recorded[s.span_id]  # the same ids, the same lengths, later
        assert s.end_time_unix_nano - s.start_time_unix_nano == was.end_time_unix_nano - was.start_time_unix_nano
        if not s.parent_span_id:
            assert before <= s.end_time_unix_nano <= after
            assert attributes(s)["sourcegate.recorded_at"].endswith("Z")


def test_a_span_time_that_is_not_one_stops_check_before_anything_is_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SOURCEGATE_SPAN_TIME", "now")
    code, text = _check(tmp_path)
    assert code == 2 and text == "" and not (tmp_path / "r.json").exists()
    assert "SOURCEGATE_SPAN_TIME: expected one of recorded, export, got 'now'" in capsys.readouterr().err
