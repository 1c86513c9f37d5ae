"""Sending spans over OTLP/HTTP has a total deadline, and what it prints holds no credential.

The exporter times out each read: a collector that trickles its reply one byte every half second
never trips it, and held ``sourcegate check`` past 300 s. The send now gives up at its deadline
(``SOURCEGATE_OTLP_DEADLINE``, 30 s by default) while the collector is still trickling, says so, and keeps the
verdict's exit code. The endpoint's userinfo and the values of the exporter's headers
(``OTEL_EXPORTER_OTLP_HEADERS``) never reach stderr, not even through the exporter's own log.
"""

from __future__ import annotations

import io
import logging
import threading
from collections.abc import Iterator
from contextlib import redirect_stderr
from pathlib import Path

import pytest

from gate.cli import main
from gate.deliver.spans import DEFAULT_DEADLINE, SpanExportError, export_otlp, load_runs, otlp_deadline
from gate.deliver.spans.otel import shown_endpoint
from gate.files.jsonio import load_json
from gate.store.baseline import parse_report
from tests.support.otlp_receiver import otlp_receiver

ROOT = Path(__file__).parent.parent
EXAMPLE = ROOT / "cached-snapshots" / "example"
PASSWORD = "pw-0123456789abcdef"
TOKEN = "tok-fedcba9876543210"


@pytest.fixture(autouse=True)
def _abandoned_sends_end_within_their_test() -> Iterator[None]:
    """A send given up at its deadline goes on in its thread until the collector closes the connection,
    then the exporter logs its failure: waited for here, so what it prints is this test's output."""
    before = set(threading.enumerate())
    yield
    for thread in set(threading.enumerate()) - before:
        if thread.name == "sourcegate-deadline":
            thread.join(10)


def _check(tmp_path: Path, *extra: str) -> tuple[int, str]:
    with redirect_stderr(io.StringIO()) as err:
        code = main(["check", str(EXAMPLE), "--json", str(tmp_path / "r.json"), "--judge", "replay", *extra])
    return code, err.getvalue()


@pytest.fixture(scope="module")
def verdict(tmp_path_factory: pytest.TempPathFactory) -> int:
    """The example set's exit code without spans."""
    return _check(tmp_path_factory.mktemp("plain"))[0]


def test_a_trickling_collector_is_given_up_at_the_deadline_and_the_verdict_stands(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, verdict: int) -> None:
    # 200 bytes at one every 0.5 s is 100 s of reply: the deadline of 1 s ends the send long before
    monkeypatch.setenv("SOURCEGATE_OTLP_DEADLINE", "1")
    with otlp_receiver(200, trickle=0.5, reply_bytes=200) as collector:
        code, said = _check(tmp_path, "--otlp-endpoint", collector.url)
        sent_when_given_up = collector.sent[0]
    assert code == verdict
    assert len(collector.posts) == 1 and sent_when_given_up < 200  # it was still trickling
    assert (f"spans not sent: the OTLP endpoint {collector.url}/v1/traces did not take the" in said
            and "within 1 s (SOURCEGATE_OTLP_DEADLINE); given up" in said)
    assert (tmp_path / "r.json").exists()  # the reports were written before the send


def test_the_deadline_has_a_documented_default() -> None:
    assert DEFAULT_DEADLINE == otlp_deadline({}) == 30.0
    assert otlp_deadline({"SOURCEGATE_OTLP_DEADLINE": " 2.5 "}) == 2.5
    docs = (ROOT / "docs" / "spans.md").read_text(encoding="utf-8")
    assert "`SOURCEGATE_OTLP_DEADLINE`" in docs and "**30 s**" in docs


def test_the_python_api_takes_the_deadline_too(tmp_path: Path) -> None:
    _check(tmp_path)
    report = parse_report(load_json(str(tmp_path / "r.json")), "r.json")
    with otlp_receiver(200, trickle=0.5, reply_bytes=200) as collector, \
            pytest.raises(SpanExportError, match=r"within 0\.5 s"):
        export_otlp(report, load_runs([str(EXAMPLE)]), collector.url, deadline_seconds=0.5)
    assert collector.sent[0] < 200


@pytest.mark.parametrize("bad", ["0", "-1", "soon", "inf", "nan"])
def test_a_deadline_that_is_not_a_number_of_seconds_is_refused_before_the_run(
        bad: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SOURCEGATE_OTLP_DEADLINE", bad)
    report = str(tmp_path / "r.json")
    assert main(["check", str(EXAMPLE), "--json", report, "--otlp-endpoint", "http://127.0.0.1:9"]) == 2
    assert f"SOURCEGATE_OTLP_DEADLINE: expected a number of seconds above 0, got {bad!r}" in capsys.readouterr().err
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("endpoint", ["http://[", "http://[::1", "http://collector:99999/v1/traces"])
def test_an_endpoint_that_is_no_url_is_an_input_error_not_a_traceback(
        endpoint: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(EXAMPLE), "--json", str(tmp_path / "r.json"), "--otlp-endpoint", endpoint]) == 2
    said = capsys.readouterr().err
    assert "--otlp-endpoint: expected an http:// or https:// URL" in said and "Traceback" not in said


def test_a_failed_export_never_prints_the_password_nor_a_header_value(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, verdict: int) -> None:
    # The first header is not URL-encoded as the specification asks (a quote): the exporter's own log
    # quotes such an entry whole. Both headers are still sent, and neither value is ever shown.
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", f'x-api-key="{TOKEN}",x-team-key={TOKEN}2')
    with otlp_receiver(401) as collector:
        endpoint = collector.url.replace("http://", f"http://collector-user:{PASSWORD}@") + "/v1/traces?api_key=k-1234"
        code, said = _check(tmp_path, "--otlp-endpoint", endpoint)
    assert code == verdict and len(collector.posts) == 1
    assert collector.headers[0]["x-team-key"] == f"{TOKEN}2"  # sent, as configured
    assert "spans not sent" in said and "OTLP exporter:" in said
    shown = collector.url.replace("http://", "http://REDACTED@") + "/v1/traces?api_key=REDACTED"
    assert f"the OTLP endpoint {shown} did not take" in said
    for secret in (PASSWORD, TOKEN, "collector-user", "k-1234"):
        assert secret not in said


def test_the_exporter_log_goes_back_to_its_own_handlers_after_the_send(tmp_path: Path) -> None:
    logger = logging.getLogger("opentelemetry")
    before = (list(logger.handlers), logger.propagate)
    with otlp_receiver(400) as collector:
        _check(tmp_path, "--otlp-endpoint", collector.url)
    assert (list(logger.handlers), logger.propagate) == before


def test_an_endpoint_is_shown_without_userinfo_or_secret_parameters() -> None:
    assert shown_endpoint("https://pk-1:sk-2@cloud.example/api/v1/traces") == "https://REDACTED@cloud.example/api/v1/traces"
    assert shown_endpoint("http://a@b@host:4318/v1/traces?token=x&q=1") == "http://REDACTED@host:4318/v1/traces?token=REDACTED&q=1"
    assert shown_endpoint("http://localhost:4318/v1/traces") == "http://localhost:4318/v1/traces"
    assert PASSWORD not in str(SpanExportError(f"x {shown_endpoint(f'http://u:{PASSWORD}@h/')}"))
