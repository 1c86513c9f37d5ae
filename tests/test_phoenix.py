"""Against a real Arize Phoenix: the example set's spans arrive with their durations and token counts,
each case's scores are span annotations Phoenix lists, and ``SOURCEGATE_SPAN_TIME=export`` puts the
traces in its default "last 7 days" view.

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
from gate.deliver.spans.ids import span_id, trace_id
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


@pytest.fixture(scope="module")
def sent(phoenix: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The example set checked once, its spans and scores sent to the Phoenix; what check said."""
    out = tmp_path_factory.mktemp("check")
    err = io.StringIO()
    with contextlib.redirect_stderr(err), pytest.MonkeyPatch.context() as env:
        env.setenv("SOURCEGATE_SPAN_TIME", "export")
        env.setenv("SOURCEGATE_OTLP_DEADLINE", "120")  # a Phoenix just started stores its first spans slowly
        env.setenv("OTEL_RESOURCE_ATTRIBUTES", "openinference.project.name=sourcegate")
        code = main(["check", str(EXAMPLE), "--otlp-endpoint", phoenix, "--json", str(out / "r.json")])
    assert code in (0, 1), err.getvalue()
    return err.getvalue()


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
