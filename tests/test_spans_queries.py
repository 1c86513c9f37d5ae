"""Each RETRIEVER span carries its own query's scores and what it dropped of the case's constraints and
entities, read back from the OTLP file and held against the JSON report of the same check: the example set
(two queries a case) and a set whose cases send three and four queries each, judged by the scripted judge
(each query loses points for what it drops)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from gate.cli import main
from tests.support.otlp_receiver import attributes, decode_json_lines, spans_of

EXAMPLE = Path(__file__).parent.parent / "cached-snapshots" / "example"

QUESTION = "Which EU member states adopted the euro after 2010, and when did each switch?"
QUERIES = {
    # one query keeps everything; the others drop the date, the member states or the euro
    "euro-after-2010": ["EU member states adopted euro after 2010", "euro adoption dates", "countries euro 2015",
                        "which states joined the eurozone"],
    "euro-croatia": ["Croatia euro adoption 2023 EU member states after 2010", "Croatia euro",
                     "EU member states 2023 currency"],
}


@dataclass(frozen=True)
class Checked:
    """One check with ``--json`` and ``--otlp-json``: the report and the spans, as read back."""

    report: dict[str, Any]
    spans: list[Any]


def _check(root: Path, out: Path, *extra: str) -> Checked:
    report, spans = out / "report.json", out / "spans.jsonl"
    code = main(["check", str(root), "--json", str(report), "--otlp-json", str(spans), "-q", *extra])
    assert code in (0, 1)
    return Checked(json.loads(report.read_text(encoding="utf-8")),
                   spans_of(decode_json_lines(spans.read_text(encoding="utf-8"))))


def _multi_query_set(root: Path) -> Path:
    cases = [{"id": case, "question": QUESTION, "class": "lookup", "constraints": ["after 2010", "EU member states"],
              "entities": ["euro"]} for case in QUERIES]
    (root / "runs").mkdir(parents=True)
    (root / "golden.yaml").write_text(yaml.safe_dump({"version": 1, "name": "queries", "cases": cases}),
                                      encoding="utf-8")
    url = "https://ec.europa.eu/euro/adoption"
    for case, queries in QUERIES.items():
        run = {"format": "sourcegate-trace/1", "case": case, "question": QUESTION,
               "started_at": "2026-03-01T10:00:00Z", "queries": queries,
               "results": [{"query": q, "position": 1, "title": f"Result of query {q}", "url": f"{url}/{q}",
                            "snippet": "Croatia adopted the euro in 2023.", "published": "2025-01-01"}
                           for q in range(len(queries))],
               "pages": [{"url": f"{url}/0", "status": 200, "text": "Croatia adopted the euro on 1 January 2023.",
                          "fetched_at": "2026-03-01T10:00:05Z", "published": "2025-01-01"}],
               "answer": f"Croatia adopted the euro on 1 January 2023 [1].\n\n[1]: {url}/0"}
        (root / "runs" / f"{case}.json").write_text(json.dumps(run), encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Checked:
    """The example set, judged from its cache."""
    return _check(EXAMPLE, tmp_path_factory.mktemp("example"))


@pytest.fixture(scope="module")
def several(tmp_path_factory: pytest.TempPathFactory) -> Checked:
    """Two cases of three and four queries, judged live by the scripted judge."""
    root = _multi_query_set(tmp_path_factory.mktemp("queries") / "set")
    return _check(root, tmp_path_factory.mktemp("out"), "--judge", "live", "--judge-provider", "scripted")


def _retrievers(checked: Checked) -> dict[tuple[str, int], dict[str, Any]]:
    """Every RETRIEVER span of a query, by (case, its place among the case's queries)."""
    cases = {s.trace_id: attributes(s)["sourcegate.case.id"] for s in checked.spans if not s.parent_span_id}
    return {(cases[s.trace_id], attributes(s)["sourcegate.query.index"]): attributes(s) for s in checked.spans
            if attributes(s)["openinference.span.kind"] == "RETRIEVER" and "sourcegate.query.index" in attributes(s)}


def _assert_each_span_has_its_own_scores(checked: Checked) -> int:
    spans = _retrievers(checked)
    scored = 0
    for case in checked.report["cases"]:
        for i, kept in enumerate(case.get("queries", [])):
            span = spans[case["id"], i]
            assert span["input.value"] == kept["query"]
            assert list(span["sourcegate.query.dropped_constraints"]) == kept["dropped_constraints"]
            assert list(span["sourcegate.query.dropped_entities"]) == kept["dropped_entities"]
        for score in (case.get("judgement") or {}).get("query_scores", []):
            span = spans[case["id"], score["index"] - 1]  # the judge numbers queries from 1, the spans from 0
            assert span["input.value"] == score["query"]
            assert span["sourcegate.query.constraint_preservation"] == score["constraint_preservation"]
            assert span["sourcegate.query.entity_recall"] == score["entity_recall"]
            scored += 1
    return scored


def test_every_retriever_span_of_the_example_set_carries_its_own_query_s_scores(example: Checked) -> None:
    assert _assert_each_span_has_its_own_scores(example) == 36
    unscored = [k for k, a in _retrievers(example).items() if "sourcegate.query.entity_recall" not in a]
    assert unscored == []


def test_the_first_query_of_a_case_has_its_scores_and_the_second_its_own(example: Checked) -> None:
    spans = _retrievers(example)
    first, second = spans["ecb-deposit-rate-now", 0], spans["ecb-deposit-rate-now", 1]
    assert "sourcegate.query.constraint_preservation" in first
    scores = {(q["constraint_preservation"], q["entity_recall"]) for c in example.report["cases"]
              if c["id"] == "ecb-deposit-rate-now" for q in c["judgement"]["query_scores"]}
    assert len(scores) == 2  # the two queries scored apart: a shifted span would show the other's
    assert (first["sourcegate.query.constraint_preservation"], first["sourcegate.query.entity_recall"]) != (
        second["sourcegate.query.constraint_preservation"], second["sourcegate.query.entity_recall"])


def test_cases_of_several_queries_each_keep_their_own_scores(several: Checked) -> None:
    assert _assert_each_span_has_its_own_scores(several) == sum(len(q) for q in QUERIES.values())
    spans = _retrievers(several)
    scores = [(spans["euro-after-2010", i]["sourcegate.query.constraint_preservation"],
               spans["euro-after-2010", i]["sourcegate.query.entity_recall"]) for i in range(4)]
    assert len(set(scores)) > 1 and scores[0] == (5, 5)  # the first query keeps everything
    assert spans["euro-after-2010", 0]["sourcegate.query.dropped_constraints"] == ()
    assert spans["euro-after-2010", 1]["sourcegate.query.dropped_constraints"] == ("after 2010", "EU member states")
