"""The gate's scores where tracing tools show evaluations: Phoenix span annotations and Langfuse scores,
sent with the spans to loopback servers speaking those tools' APIs (``tests/test_phoenix.py`` runs a
real Phoenix)."""

from __future__ import annotations

import base64
import io
from contextlib import redirect_stderr
from pathlib import Path

import pytest

from gate.cli import main
from gate.deliver.spans import case_scores, load_runs
from gate.deliver.spans.ids import search_place, span_id, trace_id
from gate.load.golden import load_golden
from tests.support.tracing_tools import langfuse, phoenix

ROOT = Path(__file__).parent.parent
EXAMPLE = ROOT / "cached-snapshots" / "example"
SECRET = "sk-lf-0123456789abcdef"


def _check(tmp_path: Path, endpoint: str) -> tuple[int, str]:
    with redirect_stderr(io.StringIO()) as err:
        code = main(["check", str(EXAMPLE), "--otlp-endpoint", endpoint, "--json", str(tmp_path / "r.json")])
    return code, err.getvalue()


@pytest.fixture(scope="module")
def example_scores() -> int:
    from gate.pipeline import run_paths

    return len(case_scores(run_paths([str(EXAMPLE)], None), load_runs([str(EXAMPLE)])))


def _trace(case: str) -> int:
    """The trace of the example set's committed run of ``case``."""
    golden = load_golden(str(EXAMPLE))
    return trace_id(golden.name, golden.version, case, load_runs([str(EXAMPLE)])[case])


def test_phoenix_behind_the_otlp_endpoint_gets_each_case_s_scores_as_span_annotations(
        tmp_path: Path, example_scores: int) -> None:
    with phoenix() as tool:
        code, err = _check(tmp_path, tool.url)
        assert code in (0, 1) and f"{example_scores} span annotations sent to Phoenix" in err
    assert tool.refusals >= 1  # it answered 404 until the spans were stored: the gate sent again
    trace = _trace("who-physical-activity-adults")
    root = f"{span_id(trace, 'case'):016x}"
    mine = {name: a for (span, name, _), a in tool.annotations.items() if span == root}
    assert mine["verdict"]["result"] == {"label": "fail", "score": 0.0,
                                         "explanation": "hard failures: fabricated_url, rejected_url_kept"}
    assert mine["verdict"]["annotator_kind"] == "CODE"
    assert 0 <= mine["grounding_rate"]["result"]["score"] <= 1 and "query_quality" in mine
    failure = mine["hard_failure.fabricated_url"]
    assert failure["result"]["label"] == "fail" and "no search result" in failure["result"]["explanation"]
    assert failure["metadata"]["url"].startswith("https://www.who.int/")
    # each query's scores on its own RETRIEVER span, explained by what it dropped of the question
    second_query = {name: a for (span, name, _), a in tool.annotations.items()
                    if span == f"{span_id(trace, search_place(1)):016x}"}
    assert set(second_query) == {"constraint_preservation", "entity_recall"}
    assert second_query["entity_recall"]["metadata"]["query"] == "adult physical activity guidelines minutes per week"
    assert "dropped «WHO»" in second_query["entity_recall"]["result"]["explanation"]
    assert len(tool.annotations) == example_scores
    again = dict(tool.annotations)
    with phoenix() as second:
        second.spans |= {span for span, _, _ in again}
        _check(tmp_path, second.url)
    assert set(second.annotations) == set(again)  # the same identifiers: re-sent, not added


def test_langfuse_gets_scores_on_the_case_observation_with_the_exporter_s_key(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, example_scores: int) -> None:
    basic = base64.b64encode(f"pk-lf-1:{SECRET}".encode()).decode()
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", f"Authorization=Basic {basic}")
    with langfuse("pk-lf-1", SECRET) as tool:
        code, err = _check(tmp_path, f"{tool.url}/api/public/otel/v1/traces")
    assert f"{example_scores} scores sent to Langfuse" in err and SECRET not in err and basic not in err
    assert len(tool.scores) == example_scores
    trace = _trace("storm-dervla-disruption")
    mine = [s for s in tool.scores.values() if s["traceId"] == f"{trace:032x}"]
    on_case = [s for s in mine if s["name"] not in ("constraint_preservation", "entity_recall")]
    assert {s["observationId"] for s in on_case} == {f"{span_id(trace, 'case'):016x}"}
    verdict = next(s for s in mine if s["name"] == "verdict")
    assert verdict["value"] == 0.0 and verdict["dataType"] == "NUMERIC" and verdict["metadata"]["label"] == "fail"
    assert any(s["name"] == "hard_failure.domain_cap" for s in mine)


def test_a_langfuse_that_refuses_the_key_is_said_and_changes_no_exit_code(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    with langfuse("pk-lf-1", SECRET) as tool:
        code, err = _check(tmp_path, f"{tool.url}/api/public/otel/v1/traces")
    # nothing listens there: spans not sent (at once, not after the exporter's retries of a refused connection)
    monkeypatch.setenv("SOURCEGATE_OTLP_DEADLINE", "0.5")
    expected, unsent = _check(tmp_path, "http://127.0.0.1:9/")
    assert "spans not sent" in unsent
    assert code == expected and "spans not sent" in err and "scores" not in err.replace("spans not sent", "")


def test_a_phoenix_behind_a_collector_is_named_by_sourcegate_phoenix_url(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.support.otlp_receiver import otlp_receiver

    with phoenix() as tool, otlp_receiver() as collector:
        # Phoenix never gets these spans: the collector forwards them elsewhere
        monkeypatch.setenv("SOURCEGATE_PHOENIX_URL", tool.url)
        monkeypatch.setenv("SOURCEGATE_OTLP_DEADLINE", "2")
        code, err = _check(tmp_path, collector.url)
    assert "scores not sent" in err and "its spans are not there" in err
    assert [p for p, _, _ in collector.posts] == ["/v1/traces"]


def test_a_collector_that_is_no_tracing_tool_gets_no_scores(tmp_path: Path) -> None:
    from tests.support.otlp_receiver import otlp_receiver

    with otlp_receiver() as collector:
        _, err = _check(tmp_path, collector.url)
    assert "scores" not in err and [p for p, _, _ in collector.posts] == ["/v1/traces"]


def test_a_bad_phoenix_url_stops_check_before_anything_is_written(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCEGATE_PHOENIX_URL", "localhost:6006")
    code, err = _check(tmp_path, "http://127.0.0.1:9/")
    assert code == 2 and "SOURCEGATE_PHOENIX_URL" in err and not (tmp_path / "r.json").exists()
