"""The judged claims sit on the span that made them: the synthesis span carries each claim of the answer
with its verdict, the judge's quote and the quote the code verified on a page, read back from the OTLP
file against the JSON report; the case span keeps the vector."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gate.cli import main
from tests.support.otlp_receiver import attributes, decode_json_lines, spans_of

EXAMPLE = Path(__file__).parent.parent / "cached-snapshots" / "example"


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], list[Any]]:
    """The example set, judged from its cache: the JSON report and the spans."""
    out = tmp_path_factory.mktemp("claims")
    main(["check", str(EXAMPLE), "--json", str(out / "r.json"), "--otlp-json", str(out / "s.jsonl"), "-q"])
    return (json.loads((out / "r.json").read_text(encoding="utf-8")),
            spans_of(decode_json_lines((out / "s.jsonl").read_text(encoding="utf-8"))))


def _by_case(spans: list[Any], name: str | None) -> dict[str, dict[str, Any]]:
    cases = {s.trace_id: attributes(s)["sourcegate.case.id"] for s in spans if not s.parent_span_id}
    return {cases[s.trace_id]: attributes(s) for s in spans
            if (s.name == name if name is not None else not s.parent_span_id)}


def test_each_claim_is_on_the_synthesis_span_with_its_verdict_and_verified_quote(
        checked: tuple[dict[str, Any], list[Any]]) -> None:
    report, spans = checked
    synthesis = _by_case(spans, "synthesis")
    quoted = 0
    for case in report["cases"]:
        judgement = case.get("judgement")
        if judgement is None:
            continue
        a = synthesis[case["id"]]
        assert a["sourcegate.claims.count"] == len(judgement["claims"])
        verdicts = {v["claim_id"]: v for v in judgement["verdicts"]}
        quotes = {q["claim"]: q for q in reversed(case["quotes"]) if q["claim"]}
        for i, claim in enumerate(judgement["claims"]):
            v = verdicts.get(claim["id"], {})
            assert a[f"sourcegate.claim.{i}.id"] == claim["id"] and a[f"sourcegate.claim.{i}.text"] == claim["text"]
            assert a[f"sourcegate.claim.{i}.verdict"] == (v.get("verdict") or "unscored")
            assert a.get(f"sourcegate.claim.{i}.evidence") == v.get("evidence")
            if claim["id"] in quotes:
                assert a[f"sourcegate.claim.{i}.quote"] == quotes[claim["id"]]["quote"]
                assert a[f"sourcegate.claim.{i}.quote_url"] == quotes[claim["id"]]["url"]
                quoted += 1
            else:
                assert f"sourcegate.claim.{i}.quote" not in a
    assert quoted > 10


def test_the_case_span_keeps_the_vector_and_no_claim(checked: tuple[dict[str, Any], list[Any]]) -> None:
    report, spans = checked
    roots = _by_case(spans, None)
    for case in report["cases"]:
        a = roots[case["id"]]
        assert not [k for k in a if k.startswith(("sourcegate.claim.", "sourcegate.claims."))]
        for name, value in case["soft"].items():
            if value is not None:
                assert a[f"sourcegate.soft.{name}"] == value
