"""OpenTelemetry spans of a gate run, with OpenInference conventions, for the tracing tools teams run.

    write_otlp_json(report, runs, "spans.jsonl")           # what a collector's file exporter writes
    export_otlp(report, runs, "http://localhost:6006/v1/traces")   # Phoenix, Langfuse, Jaeger, a collector

``runs`` maps case ids to the recorded runs the report judged (:func:`load_runs` reads them from the
paths the report was run on). One trace per case: a CHAIN root with the verdict, the soft figures
and every hard failure, a RETRIEVER span per search, a TOOL span per search call and page fetch, an
LLM span for the answer (:mod:`gate.deliver.spans.tree`; the attributes are listed in docs/spans.md). Ids
are derived from the golden set and the case, so a re-run gives the same trace.

Building spans is pure; writing and sending them needs the optional extra
(``pip install '.[otel]'`` in a checkout), imported only then (:mod:`gate.deliver.spans.otel`).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping, Sequence
from urllib.parse import urlsplit

from gate.deliver.spans.model import SpanEvent, SpanSpec
from gate.deliver.spans.otel import (
    DEFAULT_DEADLINE,
    SpanExportError,
    encode_json_lines,
    require_extra,
    send,
    shown_endpoint,
)
from gate.deliver.spans.tree import build_spans
from gate.errors import InputError
from gate.model import Run
from gate.verdict.report import Report

__all__ = ["DEADLINE_VARIABLE", "DEFAULT_DEADLINE", "SpanEvent", "SpanExportError", "SpanSpec", "build_spans",
           "export_otlp", "load_runs", "otlp_deadline", "otlp_json", "preflight", "prepare", "traces_endpoint",
           "write_otlp_json"]

TRACES_PATH = "/v1/traces"
DEADLINE_VARIABLE = "SOURCEGATE_OTLP_DEADLINE"
"""The environment variable that sets the deadline of an OTLP/HTTP send, in seconds (default
:data:`DEFAULT_DEADLINE`, 30)."""


def otlp_deadline(env: Mapping[str, str]) -> float:
    """The seconds an OTLP/HTTP send may take: ``SOURCEGATE_OTLP_DEADLINE`` in ``env``, else 30.

    Anything but a number of seconds above 0 is an :class:`InputError` naming the variable.
    """
    raw = env.get(DEADLINE_VARIABLE, "").strip()
    if not raw:
        return DEFAULT_DEADLINE
    try:
        seconds = float(raw)
    except ValueError:
        seconds = 0.0
    if not 0 < seconds < float("inf"):
        raise InputError(f"{DEADLINE_VARIABLE}: expected a number of seconds above 0, got {raw!r}")
    return seconds


def load_runs(paths: Sequence[str]) -> dict[str, Run]:
    """The runs of one golden-set folder, or of trace files, by case id (as the gate loads them)."""
    from gate.load.golden import load_golden, load_trace, run_files

    files = (run_files(load_golden(paths[0]).root) if len(paths) == 1 and os.path.isdir(paths[0])
             else list(paths))
    runs = (load_trace(f) for f in files)
    return {run.case: run for run in runs}


def otlp_json(report: Report, runs: Mapping[str, Run]) -> str:
    """The report's spans as OTLP/JSON lines (one ``ExportTraceServiceRequest`` per case)."""
    return encode_json_lines(build_spans(report, runs))


def write_otlp_json(report: Report, runs: Mapping[str, Run], file: str) -> None:
    """Write the report's spans as OTLP/JSON to ``file`` (whole, or not at all; '-' for stdout)."""
    from gate.deliver.publish import emit

    emit(file, otlp_json(report, runs))


def traces_endpoint(url: str) -> str:
    """The OTLP/HTTP traces URL: ``url`` itself, or ``url`` + ``/v1/traces`` when it names no path."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises for a port that is not one
    except ValueError:  # an unclosed IPv6 bracket, a port over 65535
        parts = urlsplit("")
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InputError(f"--otlp-endpoint: expected an http:// or https:// URL, got {shown_endpoint(url)!r}")
    return url.rstrip("/") + TRACES_PATH if parts.path in ("", "/") else url


def export_otlp(report: Report, runs: Mapping[str, Run], endpoint: str, *,
                deadline_seconds: float = DEFAULT_DEADLINE) -> None:
    """Send the report's spans over OTLP/HTTP (protobuf) to ``endpoint``, all within ``deadline_seconds``;
    raises SpanExportError."""
    send(build_spans(report, runs), traces_endpoint(endpoint), deadline_seconds=deadline_seconds)


def preflight(endpoint: str | None, env: Mapping[str, str] | None = None) -> None:
    """What spans need, checked before a golden set runs: the optional extra, and ``endpoint`` (when
    given) an http(s) URL, with a deadline ``SOURCEGATE_OTLP_DEADLINE`` in ``env`` (default
    ``os.environ``) can read. Any of them wrong is an :class:`InputError` now, not after the run."""
    require_extra()
    if endpoint is not None:
        traces_endpoint(endpoint)
        otlp_deadline(os.environ if env is None else env)


def prepare(report: Report, paths: Sequence[str], *, json_file: str | None,
            endpoint: str | None, deadline_seconds: float = DEFAULT_DEADLINE) -> Callable[[], None]:
    """For ``sourcegate check``: encode now (a missing extra or bad URL stops before any report is
    written), write and send when called. A refused send, or one not done within
    ``deadline_seconds``, is said on stderr and changes no exit code: the gate's verdict does not
    depend on a tracing tool being up."""
    runs = load_runs(paths)
    specs = build_spans(report, runs)
    url = None if endpoint is None else traces_endpoint(endpoint)
    body = encode_json_lines(specs)

    def finish() -> None:
        from gate.deliver.publish import emit

        emit(json_file, body)
        if url is not None:
            try:
                send(specs, url, deadline_seconds=deadline_seconds)
            except SpanExportError as e:
                print(f"sourcegate: warning: spans not sent: {e}", file=sys.stderr)

    return finish
