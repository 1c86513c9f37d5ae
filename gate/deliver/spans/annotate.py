"""The case scores (:mod:`gate.deliver.spans.scores`) sent where tracing tools show evaluations: Phoenix's
span annotations (``POST /v1/span_annotations``) and Langfuse's scores (``POST /api/public/scores``).

Which tool: ``SOURCEGATE_PHOENIX_URL`` names a Phoenix; otherwise the OTLP endpoint's own receiver,
told by its address (Langfuse's OTLP endpoint is ``.../api/public/otel/v1/traces``) or by asking it
(Phoenix answers ``GET /arize_phoenix_version``). A collector or Jaeger gets no scores. The request
headers are the exporter's (``OTEL_EXPORTER_OTLP_TRACES_HEADERS`` or ``OTEL_EXPORTER_OTLP_HEADERS``:
Langfuse's Basic key, Phoenix's API key), plus ``Authorization: Bearer $PHOENIX_API_KEY`` for a Phoenix
when that is set. Nothing printed holds them.

Phoenix stores spans a moment after it acknowledges them; until then it answers an annotation of
them 404. Such a batch is sent again, within the send's deadline. Every send has one deadline, and
any failure is a :class:`SpanExportError` (``sourcegate check`` says it and keeps its exit code).
"""

from __future__ import annotations

import hashlib
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import unquote, urlsplit

import requests

from gate.deliver.spans.otel import HEADER_VARIABLES, SpanExportError, shown_endpoint
from gate.deliver.spans.scores import Score

__all__ = ["LANGFUSE_OTLP_PATH", "PHOENIX_BATCH", "send_scores"]

LANGFUSE_OTLP_PATH = "/api/public/otel"
PHOENIX_BATCH = 100
"""Annotations per request to Phoenix."""
_RETRY_PAUSE = 0.5


def send_scores(scores: Sequence[Score], *, endpoint: str | None, phoenix: str | None,
                environ: Mapping[str, str], deadline_seconds: float,
                sleep: Callable[[float], None] = time.sleep) -> str | None:
    """Send ``scores`` to the Phoenix at ``phoenix``, else to ``endpoint``'s receiver when it is Phoenix
    or Langfuse; what was done, in a line (None: the receiver takes no scores)."""
    deadline = time.monotonic() + deadline_seconds
    headers = _headers(environ)
    with requests.Session() as session:
        if phoenix is None and endpoint is not None:
            base = _langfuse_base(endpoint)
            if base is not None:
                _to_langfuse(session, scores, base, headers, deadline)
                return f"{len(scores)} scores sent to Langfuse at {shown_endpoint(base)}"
            phoenix = _phoenix_base(session, endpoint, headers, deadline)
            if phoenix is None:
                return None
        if phoenix is None:
            return None
        base = phoenix.rstrip("/")
        if environ.get("PHOENIX_API_KEY"):
            headers = {**headers, "Authorization": f"Bearer {environ['PHOENIX_API_KEY']}"}
        _to_phoenix(session, scores, base, headers, deadline, sleep)
        return f"{len(scores)} span annotations sent to Phoenix at {shown_endpoint(base)}"


def _headers(environ: Mapping[str, str]) -> dict[str, str]:
    """The exporter's headers, read as the OpenTelemetry SDK reads them (``k=v,k=v``, URL-encoded)."""
    for variable in HEADER_VARIABLES:
        raw = environ.get(variable, "")
        if raw.strip():
            pairs = (entry.partition("=") for entry in raw.split(","))
            return {unquote(k).strip(): unquote(v).strip() for k, sep, v in pairs if sep and k.strip()}
    return {}


def _langfuse_base(endpoint: str) -> str | None:
    parts = urlsplit(endpoint)
    at = parts.path.find(LANGFUSE_OTLP_PATH)
    return None if at < 0 else f"{parts.scheme}://{parts.netloc}{parts.path[:at]}"


def _left(deadline: float, most: float) -> float:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise TimeoutError
    return min(remaining, most)


def _phoenix_base(session: requests.Session, endpoint: str, headers: Mapping[str, str],
                  deadline: float) -> str | None:
    """The base URL of the Phoenix behind the OTLP ``endpoint``, or None when it is not one."""
    parts = urlsplit(endpoint)
    path = parts.path[:-len("/v1/traces")] if parts.path.endswith("/v1/traces") else parts.path.rstrip("/")
    base = f"{parts.scheme}://{parts.netloc}{path}"
    try:
        # a receiver that is no Phoenix may not answer a GET at all: it is asked briefly
        reply = session.get(f"{base}/arize_phoenix_version", headers=dict(headers), timeout=_left(deadline, 5.0))
    except (requests.RequestException, TimeoutError):
        return None
    return base if reply.status_code == 200 or "x-phoenix-server-version" in reply.headers else None


def _post(session: requests.Session, url: str, body: Any, headers: Mapping[str, str],
          deadline: float) -> requests.Response:
    try:
        # a Phoenix storing a batch of spans may take its time: the send's deadline bounds the wait
        return session.post(url, json=body, headers=dict(headers), timeout=_left(deadline, float("inf")))
    except TimeoutError:
        raise SpanExportError(f"{shown_endpoint(url)} did not take the scores in time "
                              "(SOURCEGATE_OTLP_DEADLINE); given up") from None
    except requests.RequestException as e:
        raise SpanExportError(f"{shown_endpoint(url)} cannot be reached ({type(e).__name__})") from None


def _to_phoenix(session: requests.Session, scores: Sequence[Score], base: str, headers: Mapping[str, str],
                deadline: float, sleep: Callable[[float], None]) -> None:
    url = f"{base}/v1/span_annotations?sync=true"
    for start in range(0, len(scores), PHOENIX_BATCH):
        body = {"data": [_annotation(s) for s in scores[start:start + PHOENIX_BATCH]]}
        while True:
            reply = _post(session, url, body, headers, deadline)
            if reply.status_code != 404 or time.monotonic() + _RETRY_PAUSE >= deadline:
                break
            sleep(_RETRY_PAUSE)  # the spans are not stored yet
        if reply.status_code >= 300:
            said = "its spans are not there (send them with --otlp-endpoint)" if reply.status_code == 404 else ""
            raise SpanExportError(f"Phoenix at {shown_endpoint(base)} refused the annotations: HTTP "
                                  f"{reply.status_code}{'; ' + said if said else ''}")


def _annotation(s: Score) -> dict[str, Any]:
    result = {k: v for k, v in (("label", s.label), ("score", s.score), ("explanation", s.explanation))
              if v is not None}
    return {"span_id": f"{s.span_id:016x}", "name": s.name, "annotator_kind": "CODE", "result": result,
            "metadata": dict(s.metadata), "identifier": s.identifier}


def _to_langfuse(session: requests.Session, scores: Sequence[Score], base: str, headers: Mapping[str, str],
                 deadline: float) -> None:
    url = f"{base}/api/public/scores"
    for s in scores:
        reply = _post(session, url, _langfuse_score(s), headers, deadline)
        if reply.status_code >= 300:
            raise SpanExportError(f"Langfuse at {shown_endpoint(base)} refused the scores: HTTP {reply.status_code}")


def _langfuse_score(s: Score) -> dict[str, Any]:
    """A score on the case's observation; its id is derived from the trace and the score's identifier,
    so sending the same report again updates it."""
    digest = hashlib.sha256(f"{s.trace_id:032x}\x00{s.identifier}".encode()).digest()[:16]
    body: dict[str, Any] = {"id": str(uuid.UUID(bytes=digest)), "traceId": f"{s.trace_id:032x}",
                            "observationId": f"{s.span_id:016x}", "name": s.name,
                            "metadata": {**s.metadata, **({"label": s.label} if s.label else {})}}
    if s.score is not None:
        body.update(value=s.score, dataType="NUMERIC")
    else:
        body.update(value=s.label or "", dataType="CATEGORICAL")
    if s.explanation:
        body["comment"] = s.explanation
    return body
