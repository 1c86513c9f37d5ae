"""``sourcegate-trace/1``'s optional ``attempts``: each draft the agent guarded, what was rejected in it
and why, and which became the answer; written and read back unchanged, and a trace without them is
what it always was."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from gate.errors import InputError
from gate.files.jsonio import validate
from gate.load.golden import parse_trace
from gate.model import Attempt, Citation, Finding, Run
from gate.record.trace import trace_dict

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
INVENTED = "https://who.int/invented-page-2026"
FABRICATED = Finding("fabricated_url", f"cited {INVENTED} but no search result, redirect or page the agent read "
                                       "ever showed it", INVENTED)
REGENERATED = Run(
    case="q1", question="How much exercise?", answer="150 minutes a week [1].", started_at=START,
    citations=(Citation("https://cdc.example.gov/adults"),),
    attempts=(Attempt(rejected=(INVENTED,), findings=(FABRICATED,), started_at=START, duration_ms=812.5),
              Attempt(kept=True, started_at=datetime(2026, 3, 1, 12, 0, 0, 812_500, tzinfo=UTC), duration_ms=400.0)))


def test_attempts_are_written_and_read_back_unchanged() -> None:
    data = trace_dict(REGENERATED)
    validate(data, "trace", "<test>")
    assert data["attempts"] == [
        {"rejected": [INVENTED], "findings": [{"check": "fabricated_url", "url": INVENTED,
                                               "message": FABRICATED.message}],
         "started_at": "2026-03-01T12:00:00Z", "duration_ms": 812.5},
        {"rejected": [], "findings": [], "kept": True, "started_at": "2026-03-01T12:00:00.812500Z",
         "duration_ms": 400.0},
    ]
    assert parse_trace(json.loads(json.dumps(data)), "<test>", "q1").attempts == REGENERATED.attempts


def test_a_trace_without_attempts_keeps_its_shape() -> None:
    plain = Run(case="q1", question="How much exercise?", answer="150 minutes.")
    data = trace_dict(plain)
    assert "attempts" not in data
    assert parse_trace(data, "<test>", "q1").attempts == ()


def test_a_finding_without_a_url_is_an_attempt_s_finding_too() -> None:
    cites_nothing = Run(case="q1", question="q", answer="42.", attempts=(
        Attempt(findings=(Finding("no_citations", "the answer cites no source"),)),))
    data = trace_dict(cites_nothing)
    assert data["attempts"] == [{"rejected": [], "findings": [{"check": "no_citations", "url": None,
                                                               "message": "the answer cites no source"}]}]
    assert parse_trace(data, "<test>", "q1").attempts == cites_nothing.attempts


def test_at_most_one_attempt_is_kept() -> None:
    data = trace_dict(REGENERATED)
    data["attempts"][0]["kept"] = True
    with pytest.raises(InputError, match="more than one attempt is kept"):
        parse_trace(data, "<test>", "q1")
