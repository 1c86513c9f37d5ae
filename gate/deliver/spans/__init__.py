"""OpenTelemetry spans of a gate run, with OpenInference conventions, for the tracing tools teams run.

    write_otlp_json(report, runs, "spans.jsonl")           # what a collector's file exporter writes
    export_otlp(report, runs, "http://localhost:6006/v1/traces")   # Phoenix, Langfuse, Jaeger, a collector

``runs`` maps case ids to the recorded runs the report judged: the runs it gated, wherever the gate read
them (:class:`gate.load.gated.GatedRuns`: the set's ``runs/``, ``check --runs DIR``, the runs ``run
--check`` holds; :func:`load_runs` reads them from paths). One trace per case: a CHAIN root with the
verdict, the soft figures and every hard failure, a RETRIEVER span per search, a TOOL span per search
call and page fetch, an LLM span for the answer (:mod:`gate.deliver.spans.tree`; the attributes are
listed in docs/spans.md). A trace id names one run (:mod:`gate.deliver.spans.ids`): the same run sent
twice is one trace, a re-run of the case another.

Building spans is pure; writing and sending them needs the optional extra
(``pip install '.[otel]'`` in a checkout), imported only then (:mod:`gate.deliver.spans.otel`). The
cases' scores go where the tools show evaluations, Phoenix's span annotations and Langfuse's scores
(:mod:`gate.deliver.spans.scores`, sent by :mod:`gate.deliver.spans.annotate`). ``stamp="export"``
(``SOURCEGATE_SPAN_TIME=export``) moves each trace to the moment it is sent, for the tools whose
default views show recent traces only.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from urllib.parse import urlsplit

from gate.deadline import DeadlineExceeded, call_by
from gate.deliver.spans.model import SpanEvent, SpanSpec
from gate.deliver.spans.otel import (
    DEFAULT_DEADLINE,
    SpanExportError,
    encode_json_lines,
    require_extra,
    send,
    shown_endpoint,
)
from gate.deliver.spans.scores import Score, case_scores
from gate.deliver.spans.timing import SPAN_TIMES, restamp
from gate.deliver.spans.tree import build_spans
from gate.errors import InputError
from gate.load.gated import GatedRuns
from gate.model import Run
from gate.verdict.report import Report

__all__ = ["DEADLINE_VARIABLE", "DEFAULT_DEADLINE", "PHOENIX_VARIABLE", "SPAN_TIMES", "SPAN_TIME_VARIABLE",
           "Score", "SpanEvent", "SpanExportError", "SpanSpec", "build_spans", "case_scores", "export_otlp",
           "load_runs", "otlp_deadline", "otlp_json", "phoenix_url", "preflight", "prepare", "send_case_scores",
           "span_time", "stamped_spans", "traces_endpoint", "write_otlp_json"]

TRACES_PATH = "/v1/traces"
SPAN_TIME_VARIABLE = "SOURCEGATE_SPAN_TIME"
"""The environment variable that stamps spans with the recording's times (``recorded``, the default) or
moves each trace to the moment it is exported (``export``)."""
PHOENIX_VARIABLE = "SOURCEGATE_PHOENIX_URL"
"""The environment variable naming the Phoenix that gets the cases' scores as span annotations when the
spans reach it another way (a collector in between); the OTLP endpoint's own Phoenix gets them anyway."""
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


def span_time(env: Mapping[str, str]) -> str:
    """``SOURCEGATE_SPAN_TIME`` in ``env`` (``recorded`` or ``export``), else ``recorded``; anything else
    is an :class:`InputError` naming the variable."""
    raw = env.get(SPAN_TIME_VARIABLE, "").strip() or "recorded"
    if raw not in SPAN_TIMES:
        raise InputError(f"{SPAN_TIME_VARIABLE}: expected one of {', '.join(SPAN_TIMES)}, got {raw!r}")
    return raw


def phoenix_url(env: Mapping[str, str]) -> str | None:
    """``SOURCEGATE_PHOENIX_URL`` in ``env`` (an http(s) URL), or None; anything else is an :class:`InputError`."""
    raw = env.get(PHOENIX_VARIABLE, "").strip()
    if not raw:
        return None
    traces_endpoint(raw, PHOENIX_VARIABLE)
    return raw.rstrip("/")


def load_runs(paths: Sequence[str], runs_dir: str | None = None) -> dict[str, Run]:
    """The runs of one golden-set folder (its ``runs/``, or ``runs_dir``), or of trace files, by case id
    (as the gate loads them)."""
    return GatedRuns(tuple(paths), runs_dir).load()


def otlp_json(report: Report, runs: Mapping[str, Run]) -> str:
    """The report's spans as OTLP/JSON lines (one ``ExportTraceServiceRequest`` per case)."""
    return encode_json_lines(build_spans(report, runs))


def write_otlp_json(report: Report, runs: Mapping[str, Run], file: str) -> None:
    """Write the report's spans as OTLP/JSON to ``file`` (whole, or not at all; '-' for stdout)."""
    from gate.deliver.publish import emit

    emit(file, otlp_json(report, runs))


def traces_endpoint(url: str, flag: str = "--otlp-endpoint") -> str:
    """The OTLP/HTTP traces URL: ``url`` itself, or ``url`` + ``/v1/traces`` when it names no path; an
    :class:`InputError` naming ``flag`` when it is not an http(s) URL."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises for a port that is not one
    except ValueError:  # an unclosed IPv6 bracket, a port over 65535
        parts = urlsplit("")
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise InputError(f"{flag}: expected an http:// or https:// URL, got {shown_endpoint(url)!r}")
    return url.rstrip("/") + TRACES_PATH if parts.path in ("", "/") else url


def stamped_spans(report: Report, runs: Mapping[str, Run], stamp: str = "recorded",
                  now_ns: int | None = None) -> tuple[SpanSpec, ...]:
    """The report's spans at the recording's times (``stamp`` ``recorded``), or each trace moved to end
    at ``now_ns`` (``export``; default: now)."""
    specs = build_spans(report, runs)
    if stamp == "recorded":
        return specs
    if stamp != "export":
        raise InputError(f"{SPAN_TIME_VARIABLE}: expected one of {', '.join(SPAN_TIMES)}, got {stamp!r}")
    return restamp(specs, time.time_ns() if now_ns is None else now_ns)


def export_otlp(report: Report, runs: Mapping[str, Run], endpoint: str, *,
                deadline_seconds: float = DEFAULT_DEADLINE, stamp: str = "recorded") -> None:
    """Send the report's spans over OTLP/HTTP (protobuf) to ``endpoint``, all within ``deadline_seconds``;
    raises SpanExportError."""
    send(stamped_spans(report, runs, stamp), traces_endpoint(endpoint), deadline_seconds=deadline_seconds)


def send_case_scores(report: Report, runs: Mapping[str, Run], *, endpoint: str | None, phoenix: str | None,
                     env: Mapping[str, str] | None = None, deadline_seconds: float = DEFAULT_DEADLINE) -> str | None:
    """Send the cases' scores, on the traces of ``runs`` (the runs the report gated), to the Phoenix at
    ``phoenix``, else to the OTLP ``endpoint``'s receiver when it is Phoenix or Langfuse, all within
    ``deadline_seconds``; what was sent, in a line (None: nothing, the receiver takes no scores).
    Raises SpanExportError."""
    from gate.deliver.spans.annotate import send_scores

    scores = case_scores(report, runs)
    environ = os.environ if env is None else env
    try:
        return call_by(time.monotonic() + deadline_seconds, lambda: send_scores(
            scores, endpoint=endpoint, phoenix=phoenix, environ=environ, deadline_seconds=deadline_seconds))
    except DeadlineExceeded:
        raise SpanExportError(f"the scores were not taken within {deadline_seconds:g} s "
                              "(SOURCEGATE_OTLP_DEADLINE); given up") from None


def preflight(endpoint: str | None, env: Mapping[str, str] | None = None) -> None:
    """What spans need, checked before a golden set runs: the optional extra, ``endpoint`` (when given)
    an http(s) URL, and ``SOURCEGATE_OTLP_DEADLINE``, ``SOURCEGATE_SPAN_TIME`` and
    ``SOURCEGATE_PHOENIX_URL`` in ``env`` (default ``os.environ``) readable. Any of them wrong is an
    :class:`InputError` now, not after the run."""
    environ = os.environ if env is None else env
    require_extra()
    if endpoint is not None:
        traces_endpoint(endpoint)
    otlp_deadline(environ)
    span_time(environ)
    phoenix_url(environ)


def prepare(report: Report, gated: GatedRuns, *, json_file: str | None,
            endpoint: str | None, deadline_seconds: float = DEFAULT_DEADLINE, phoenix: str | None = None,
            stamp: str = "recorded") -> Callable[[], None]:
    """For ``sourcegate check``: encode now (a missing extra or bad URL stops before any report is
    written), write and send when called, then the scores (to ``phoenix``, or the endpoint's Phoenix
    or Langfuse). A refused send, or one not done within ``deadline_seconds``, is said on stderr and
    changes no exit code: the gate's verdict does not depend on a tracing tool being up. The spans are of
    the runs ``gated`` names: those the report gated, wherever they were read from."""
    runs = gated.load()
    specs = stamped_spans(report, runs, stamp)
    url = None if endpoint is None else traces_endpoint(endpoint)
    body = encode_json_lines(specs)

    def finish() -> None:
        from gate.deliver.publish import emit

        emit(json_file, body)
        sent = url is None
        if url is not None:
            try:
                send(specs, url, deadline_seconds=deadline_seconds)
                sent = True
            except SpanExportError as e:
                print(f"sourcegate: warning: spans not sent: {e}", file=sys.stderr)
        if sent and (phoenix is not None or url is not None):
            try:
                said = send_case_scores(report, runs, endpoint=url, phoenix=phoenix,
                                        deadline_seconds=deadline_seconds)
            except SpanExportError as e:
                print(f"sourcegate: warning: scores not sent: {e}", file=sys.stderr)
            else:
                if said is not None:
                    print(f"sourcegate: {said}", file=sys.stderr)

    return finish
