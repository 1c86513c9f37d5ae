"""The spans are of the runs the report gated: ``check --runs DIR`` writes the spans of DIR's traces,
not of the set's committed ``runs/``, and ``run --check`` those of the runs its agents just gave."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from gate.cli import main
from tests.support.otlp_receiver import attributes, decode_json_lines, spans_of
from tests.support.run_golden import PLAN_ENV, faithful_plan, make_golden, scripted_agent

EXAMPLE = Path(__file__).parent.parent / "cached-snapshots" / "example"
CASE = "ecb-deposit-rate-now"
RERUN_ANSWER = "The ECB's deposit facility rate is 2.00% (re-run) [1].\n\n[1]: {url}"


def _answers(spans_file: Path) -> dict[str, Any]:
    """Each case's answer as its synthesis span says it, by case id."""
    spans = spans_of(decode_json_lines(spans_file.read_text(encoding="utf-8")))
    cases = {s.trace_id: attributes(s)["sourcegate.case.id"] for s in spans if not s.parent_span_id}
    return {cases[s.trace_id]: attributes(s)["output.value"] for s in spans if s.name == "synthesis"}


def test_check_runs_dir_writes_the_spans_of_the_traces_it_gated(tmp_path: Path) -> None:
    traces = tmp_path / "traces"
    shutil.copytree(EXAMPLE / "runs", traces)
    rerun = json.loads((traces / f"{CASE}.json").read_text(encoding="utf-8"))
    committed = rerun["answer"]
    rerun["answer"] = RERUN_ANSWER.format(url=rerun["pages"][0]["url"])
    (traces / f"{CASE}.json").write_text(json.dumps(rerun), encoding="utf-8")
    out, report = tmp_path / "spans.jsonl", tmp_path / "report.json"
    main(["check", str(EXAMPLE), "--runs", str(traces), "--otlp-json", str(out), "--json", str(report), "-q"])
    gated = next(c for c in json.loads(report.read_text(encoding="utf-8"))["cases"] if c["id"] == CASE)
    assert gated["answer"] == rerun["answer"] != committed
    assert _answers(out)[CASE] == rerun["answer"]  # the answer the report gated, beside its verdict


def test_run_check_writes_the_spans_of_the_runs_its_agents_gave(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    golden = make_golden(tmp_path / "set", [CASE])
    committed = json.loads((golden / "runs" / f"{CASE}.json").read_text(encoding="utf-8"))["answer"]
    plan = {**faithful_plan(CASE), "answer": "The deposit facility rate stands at 2.00% (agent re-run)."}
    monkeypatch.setenv(PLAN_ENV, json.dumps({CASE: plan}))
    out = tmp_path / "spans.jsonl"
    main(["run", str(golden), "--check", "--judge", "off", "--otlp-json", str(out), "--json",
          str(tmp_path / "r.json"), "-q", "--", *scripted_agent(tmp_path)])
    assert _answers(out) == {CASE: plan["answer"]} and plan["answer"] != committed
