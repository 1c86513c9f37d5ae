"""Against a real Arize Phoenix: the example set's spans arrive with their durations and token counts,
each case's scores are span annotations Phoenix lists, and ``SOURCEGATE_SPAN_TIME=export`` puts the
traces in its default "last 7 days" view. The values are read back, not only the span kinds: every
RETRIEVER span's scores and losses against the JSON report's, each query's annotations on its own span,
the claims on the synthesis span, and a re-run of a case as a trace of its own beside the committed run's.

``arize-phoenix`` is an optional test dependency (``requirements-phoenix.txt``, installed by its CI job
in ci.yml); without it this file is skipped. Phoenix runs as its own process on loopback, with its
database in a temporary folder.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from gate.cli import main
from gate.deliver.spans import load_runs
from gate.deliver.spans.ids import search_place, span_id, trace_id
from gate.load.golden import load_golden

INSTALLED = importlib.util.find_spec("phoenix") is not None
if not INSTALLED and os.environ.get("SOURCEGATE_REQUIRE_PHOENIX"):  # ci.yml's job: a skip would hide it
    raise AssertionError("SOURCEGATE_REQUIRE_PHOENIX is set and arize-phoenix is not installed (the locked "
                         "Phoenix needs Python 3.12 or newer: make test-phoenix PYTHON=python3.12 in a fresh clone)")
pytestmark = pytest.mark.skipif(not INSTALLED, reason="arize-phoenix is not installed (make test-phoenix, with "
                                "Python 3.12 or newer; its CI job does)")

EXAMPLE = Path(__file__).parent.parent / "cached-snapshots" / "example"
STARTUP_SECONDS = 300


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as reply:  # noqa: S310 (the loopback Phoenix)
        return json.loads(reply.read())


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Phoenix server of its own on 127.0.0.1, until the module's tests are done."""
    work = tmp_path_factory.mktemp("phoenix")
    port = _free_port()
    env = {**os.environ, "PHOENIX_WORKING_DIR": str(work), "PHOENIX_HOST": "127.0.0.1",
           "PHOENIX_PORT": str(port), "PHOENIX_GRPC_PORT": str(_free_port()),
           "PHOENIX_TELEMETRY_ENABLED": "false", "PYTHONWARNINGS": "ignore"}
    log = (work / "phoenix.log").open("wb")
    server = subprocess.Popen([sys.executable, "-m", "phoenix.server.main", "serve"], env=env,
                              stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while True:
            with contextlib.suppress(OSError), urllib.request.urlopen(f"{url}/arize_phoenix_version", timeout=5):
                break
            if server.poll() is not None or time.monotonic() > deadline:
                raise AssertionError("Phoenix did not start:\n" + (work / "phoenix.log").read_text(errors="replace"))
            time.sleep(1)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


def _send(phoenix: str, out: Path, project: str, *extra: str) -> tuple[str, dict[str, Any]]:
    """Check the example set (with ``extra``), its spans and scores sent to ``project`` of the Phoenix;
    what check said, and the JSON report."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.MonkeyPatch.context() as env:
        env.setenv("SOURCEGATE_SPAN_TIME", "export")
        env.setenv("SOURCEGATE_OTLP_DEADLINE", "120")  # a Phoenix just started stores its first spans slowly
        env.setenv("OTEL_RESOURCE_ATTRIBUTES", f"openinference.project.name={project}")
        code = main(["check", str(EXAMPLE), "--otlp-endpoint", phoenix, "--json", str(out / "r.json"), *extra])
    assert code in (0, 1), err.getvalue()
    return err.getvalue(), json.loads((out / "r.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def checked(phoenix: str, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, Any]]:
    """The example set checked once, its spans and scores sent to the Phoenix: what check said, the report."""
    return _send(phoenix, tmp_path_factory.mktemp("check"), "sourcegate")


@pytest.fixture(scope="module")
def sent(checked: tuple[str, dict[str, Any]]) -> str:
    """What the check that sent the example set to the Phoenix said."""
    return checked[0]


def _attribute(span: dict[str, Any], name: str) -> Any:
    """An attribute of a span as Phoenix gives it back: by its dotted name, or nested under its parts."""
    attributes = span["attributes"]
    if name in attributes:
        return attributes[name]
    node: Any = attributes
    for part in name.split("."):
        if isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return None
    return node


def _spans(phoenix: str, project: str) -> list[dict[str, Any]]:
    """Every span of ``project`` sent in the last day (each check stamps its spans at export)."""
    since = (datetime.now(UTC) - timedelta(days=1)).isoformat()
    spans: list[dict[str, Any]] = []
    cursor = None
    while True:  # a page at a time: Phoenix gives at most 1,000 spans a request
        query = {"start_time": since, "limit": 1000, **({"cursor": cursor} if cursor else {})}
        page = _get(f"{phoenix}/v1/projects/{project}/spans?{urlencode(query)}")
        spans += page["data"]
        cursor = page.get("next_cursor")
        if not cursor:
            return spans


def _by_case(spans: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """The spans of each case's trace, by case id (each trace's root names its case)."""
    cases = {s["context"]["trace_id"]: _attribute(s, "sourcegate.case.id") for s in spans if s.get("parent_id") is None}
    out: dict[str, list[dict[str, Any]]] = {}
    for s in spans:
        out.setdefault(cases[s["context"]["trace_id"]], []).append(s)
    return out


def _case_span(case: str) -> str:
    golden = load_golden(str(EXAMPLE))
    return f"{span_id(trace_id(golden.name, golden.version, case, load_runs([str(EXAMPLE)])[case]), 'case'):016x}"


def test_phoenix_lists_each_case_s_scores_as_annotations_of_its_span(phoenix: str, sent: str) -> None:
    assert "span annotations sent to Phoenix" in sent and "not sent" not in sent
    query = urlencode({"span_ids": _case_span("who-physical-activity-adults"), "limit": 100})
    found = _get(f"{phoenix}/v1/projects/sourcegate/span_annotations?{query}")["data"]
    by_name = {a["name"]: a for a in found}
    assert by_name["verdict"]["result"]["label"] == "fail" and by_name["verdict"]["annotator_kind"] == "CODE"
    assert "grounding_rate" in by_name and "query_quality" in by_name
    failure = by_name["hard_failure.fabricated_url"]
    assert "no search result" in failure["result"]["explanation"]


def test_the_traces_are_in_the_default_last_7_days_view(phoenix: str, sent: str) -> None:
    since = (datetime.now(UTC) - timedelta(days=7)).isoformat()
    query = urlencode({"start_time": since, "limit": 1000})
    spans = _get(f"{phoenix}/v1/projects/sourcegate/spans?{query}")["data"]
    roots = [s for s in spans if s.get("parent_id") is None]
    assert len(roots) == 18
    assert all(s["attributes"].get("sourcegate", {}).get("recorded_at") or
               s["attributes"].get("sourcegate.recorded_at") for s in roots)


def test_every_retriever_span_in_phoenix_carries_its_own_query_s_scores(
        phoenix: str, checked: tuple[str, dict[str, Any]]) -> None:
    _, report = checked
    by_case = _by_case(_spans(phoenix, "sourcegate"))
    compared = 0
    for case in report["cases"]:
        retrievers = {_attribute(s, "sourcegate.query.index"): s for s in by_case[case["id"]]
                      if s["span_kind"] == "RETRIEVER" and _attribute(s, "sourcegate.query.index") is not None}
        for score in (case.get("judgement") or {}).get("query_scores", []):
            span = retrievers[score["index"] - 1]  # the judge numbers queries from 1, the spans from 0
            assert _attribute(span, "input.value") == score["query"]
            assert _attribute(span, "sourcegate.query.constraint_preservation") == score["constraint_preservation"]
            assert _attribute(span, "sourcegate.query.entity_recall") == score["entity_recall"]
            compared += 1
        for i, kept in enumerate(case.get("queries", [])):
            assert list(_attribute(retrievers[i], "sourcegate.query.dropped_constraints") or []) == \
                kept["dropped_constraints"]
    assert compared == 36


def test_phoenix_lists_each_query_s_scores_as_annotations_of_its_own_span(
        phoenix: str, checked: tuple[str, dict[str, Any]]) -> None:
    _, report = checked
    ecb = next(c for c in report["cases"] if c["id"] == "ecb-deposit-rate-now")
    first, second = ecb["judgement"]["query_scores"]
    golden = load_golden(str(EXAMPLE))
    trace = trace_id(golden.name, golden.version, ecb["id"], load_runs([str(EXAMPLE)])[ecb["id"]])
    for score in (first, second):
        span = f"{span_id(trace, search_place(score['index'] - 1)):016x}"
        query = urlencode({"span_ids": span, "limit": 100})
        found = {a["name"]: a for a in _get(f"{phoenix}/v1/projects/sourcegate/span_annotations?{query}")["data"]}
        assert found["constraint_preservation"]["result"]["score"] == score["constraint_preservation"]
        assert found["entity_recall"]["result"]["score"] == score["entity_recall"]


def test_the_claims_are_on_the_synthesis_span_and_the_vector_on_the_case_span(
        phoenix: str, checked: tuple[str, dict[str, Any]]) -> None:
    _, report = checked
    by_case = _by_case(_spans(phoenix, "sourcegate"))
    case = next(c for c in report["cases"] if c["id"] == "who-physical-activity-adults")
    spans = by_case[case["id"]]
    synthesis = next(s for s in spans if s["name"] == "synthesis")
    root = next(s for s in spans if s.get("parent_id") is None)
    claims = case["judgement"]["claims"]
    assert _attribute(synthesis, "sourcegate.claims.count") == len(claims)
    assert _attribute(synthesis, "sourcegate.claim.0.text") == claims[0]["text"]
    assert _attribute(root, "sourcegate.claims.count") is None
    assert _attribute(root, "sourcegate.soft.grounding_rate") == case["soft"]["grounding_rate"]


def test_a_re_run_of_a_case_is_a_trace_of_its_own_beside_the_committed_run(
        phoenix: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    case = "ecb-deposit-rate-now"
    traces = tmp_path_factory.mktemp("rerun") / "traces"
    shutil.copytree(EXAMPLE / "runs", traces)
    rerun = json.loads((traces / f"{case}.json").read_text(encoding="utf-8"))
    rerun["answer"] += " (re-run)"
    (traces / f"{case}.json").write_text(json.dumps(rerun), encoding="utf-8")
    committed = json.loads((EXAMPLE / "runs" / f"{case}.json").read_text(encoding="utf-8"))["answer"]
    # The committed runs are in the project "sourcegate" already (sent by the check above): sent again,
    # they are the same traces, which Phoenix keeps where it has them; the re-run is a trace of its own.
    _send(phoenix, tmp_path_factory.mktemp("again"), "reruns")
    _send(phoenix, tmp_path_factory.mktemp("rerun"), "reruns", "--runs", str(traces))
    [rerun_root] = [s for s in _spans(phoenix, "reruns") if s.get("parent_id") is None]
    assert _attribute(rerun_root, "sourcegate.case.id") == case
    assert _attribute(rerun_root, "output.value") == rerun["answer"]
    first = [s for s in _by_case(_spans(phoenix, "sourcegate"))[case] if s.get("parent_id") is None]
    assert [_attribute(s, "output.value") for s in first] == [committed]  # the committed run's, unmerged
    assert first[0]["context"]["trace_id"] != rerun_root["context"]["trace_id"]
    synthesis = [s for s in _spans(phoenix, "reruns") if s["name"] == "synthesis"]
    assert [_attribute(s, "output.value") for s in synthesis] == [rerun["answer"]]
