"""The pure parts of ``sourcegate run``: reading an agent's stdout answer, assembling a trace from
what was served, the findings of a run, and the ``replay:`` configuration."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from gate.checks.run_findings import RUN_FINDINGS, run_findings
from gate.config import Config, ReplayConfig, parse_config
from gate.errors import InputError
from gate.files.jsonio import validate
from gate.load.golden import parse_trace
from gate.model import Case, Citation, Confinement, Page, Replay, ReplayMiss, Run
from gate.record.trace import trace_dict
from gate.runner.assemble import Finished, assemble, stdout_answer
from gate.runner.scope import CaseScope, Served
from gate.score.evaluate import evaluate_run

CASE = Case(id="c1", question="Which?")
NOW = datetime(2026, 11, 30, 12, tzinfo=UTC)
SEARCH = {"results": [{"title": "A", "url": "https://a.example/x", "snippet": "s"}]}


@pytest.mark.parametrize(("stdout", "expected"), [
    ('{"answer": "yes"}', ("yes", None)),
    ('log line\n{"answer": "yes", "citations": [{"url": "https://a.example/x"}]}\n',
     ("yes", (Citation("https://a.example/x"),))),
    ('{"answer": "yes", "citations": [{"url": "https://a.example/x", "quote": "q"}]}',
     ("yes", (Citation("https://a.example/x", "q"),))),
])
def test_an_answer_on_stdout(stdout: str, expected: tuple[str, tuple[Citation, ...] | None]) -> None:
    assert stdout_answer(stdout) == expected


@pytest.mark.parametrize(("stdout", "message"), [
    ("", "stdout was empty"),
    ("thinking...", "printed no answer"),
    ('["yes"]', "printed no answer"),
    ('{"text": "yes"}', 'without a string "answer"'),
    ('{"answer": "yes", "citations": "https://a.example"}', "not a list"),
    ('{"answer": "yes", "citations": [{"quote": "q"}]}', "citation 0"),
])
def test_no_answer_on_stdout_says_what_was_expected(stdout: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        stdout_answer(stdout)


def _scope() -> CaseScope:
    scope = CaseScope()
    scope.saw([Served("search", "first", "trace", SEARCH, True, "GET /search")])
    scope.saw([Served("search", "missing", "trace", None, False, "GET /search", "not in the snapshot")])
    scope.saw([Served("search", "missing", "trace", None, False, "GET /search", "not in the snapshot")])
    scope.saw([Served("pages", "https://a.example/x", None,
                      {"url": "https://a.example/x", "status": 200, "final_url": None, "body": "page text",
                       "fetched_at": "2026-10-01T00:00:00Z", "truncated": False}, True, "GET /fetch")])
    scope.saw([])  # a bad request served nothing
    return scope


def test_a_trace_is_assembled_from_the_served_calls_and_round_trips() -> None:
    finished = Finished(None, '{"answer": "A says so https://a.example/x"}', "")
    run = assemble(CASE, ["agent"], finished, _scope().calls(), None, NOW)
    assert run.queries == ("first", "missing", "missing")
    assert [(r.query, r.url) for r in run.results] == [(0, "https://a.example/x")]
    assert [(p.url, p.text, p.status) for p in run.pages] == [("https://a.example/x", "page text", 200)]
    assert run.replay == Replay(command=("agent",), served=True, misses=(
        ReplayMiss("search", "missing", "trace", "GET /search", "not in the snapshot"),))
    data = trace_dict(run)
    validate(data, "trace", "assembled")
    assert parse_trace(data, "assembled", "c1").replay == run.replay


def test_an_extraction_served_keeps_its_links_and_a_link_it_showed_is_seen() -> None:
    scope = CaseScope()
    scope.saw([Served("extractions", "https://a.example/x", None,
                      {"url": "https://a.example/x", "text": "A page", "published": None,
                       "anchors": [{"href": "https://b.example/y", "text": "B"}, {"href": "", "text": "none"}]},
                      True, "GET /extract")])
    finished = Finished(None, '{"answer": "A [1], B [2]", "citations": [{"url": "https://a.example/x"}, '
                              '{"url": "https://b.example/y"}]}', "")
    run = assemble(CASE, ["agent"], finished, scope.calls(), None, NOW)
    [page] = run.pages
    assert (page.text, page.links) == ("A page", ("https://b.example/y",))
    data = trace_dict(run)
    validate(data, "trace", "assembled")
    assert parse_trace(data, "assembled", "c1").pages == run.pages
    # the agent was shown B's link beside A's text: seen, cited unread
    found = evaluate_run(run, CASE, Config()).hard_failures
    assert [(f.check, f.url) for f in found] == [("unread_citation", "https://b.example/y")]


def test_a_failed_agent_keeps_what_it_was_served_and_the_end_of_its_stderr() -> None:
    finished = Finished("exited with code 2", "", "x" * 1000 + "ValueError: bad")
    run = assemble(CASE, ["agent"], finished, _scope().calls(), None, NOW)
    assert run.answer == "" and run.queries
    assert run.replay is not None and run.replay.agent_error is not None
    assert run.replay.agent_error.startswith("exited with code 2; the end of its stderr: xxx")
    assert run.replay.agent_error.endswith("ValueError: bad") and len(run.replay.agent_error) < 400


def test_an_agent_s_own_trace_is_kept_with_the_misses_added() -> None:
    own = Run(case="", question="Which?", answer="mine", queries=("own query",))
    run = assemble(CASE, ["agent"], Finished(None, "", ""), _scope().calls(), own, NOW)
    assert run.answer == "mine" and run.queries == ("own query",) and run.case == "c1"
    assert run.replay is not None and not run.replay.served and len(run.replay.misses) == 1


def test_a_page_of_the_agents_own_trace_that_was_never_served_is_named_each_spelling_counting_once() -> None:
    own = Run(case="", question="Which?", answer="mine", pages=(
        Page(url="https://www.example.org/a/", text="as served"), Page(url="https://example.org/made-up", text="mine")))
    served = [Served("pages", "http://example.org/a", None, {"body": "as served"}, True),
              Served("extractions", "https://example.org/made-up", None, None, False)]  # asked, not answered
    run = assemble(CASE, ["agent"], Finished(None, "", ""), served, own, NOW)
    assert run.replay is not None and run.replay.unserved_pages == ("https://example.org/made-up",)
    failures, _ = run_findings(run, Config())
    assert [(f.check, f.url) for f in failures if f.check == "unserved_page"] == [
        ("unserved_page", "https://example.org/made-up")]


def test_run_findings_have_ids_descriptions_and_a_severity_from_the_config() -> None:
    assert set(RUN_FINDINGS) == {"replay_miss", "agent_error", "cross_case_request", "live_request",
                                 "unserved_search", "unserved_page", "agent_output_dropped",
                                 "agent_left_processes", "outside_connections", "unconfined"}
    assert all(k.description for k in RUN_FINDINGS.values())
    run = Run(case="c1", question="?", answer="", replay=Replay(
        misses=(ReplayMiss("pages", "https://b.example/"),), agent_error="timed out after 5 s"))
    failures, warnings = run_findings(run, Config())
    assert [(f.check, f.url) for f in failures] == [("agent_error", None), ("replay_miss", "https://b.example/")]
    assert warnings == ()
    failures, warnings = run_findings(run, Config(replay=ReplayConfig(on_miss="warn")))
    assert [f.check for f in failures] == ["agent_error"] and [w.kind for w in warnings] == ["replay_miss"]
    assert run_findings(Run(case="c", question="?", answer=""), Config()) == ((), ())


@pytest.mark.parametrize(("reason", "golden", "command", "named"), [
    ("not in the snapshot", "my set", ("python", "agent.py"), "sourcegate run 'my set' --record -- python agent.py"),
    ("not recorded: HTTP 500", "set", ("python", "agent.py"), "sourcegate run set --record -- python agent.py"),
    ("topic 'news' differs from the recording's (none: the provider's default)", "set", ("agent",),
     "sourcegate run set --record all -- agent"),  # --record keeps the recording that cannot answer
    (None, None, ("agent",), "sourcegate run GOLDEN --record -- agent"),  # a trace that names no set
    ("not in the snapshot", "set", (), "sourcegate snapshot record set"),  # no agent's command to name
])
def test_a_miss_names_the_command_that_records_it(reason: str | None, golden: str | None,
                                                  command: tuple[str, ...], named: str) -> None:
    replay = Replay(command=command, misses=(ReplayMiss("search", "q", "tavily", "POST /search", reason),),
                    golden=golden)
    [failure], _ = run_findings(Run(case="c1", question="?", answer="", replay=replay), Config())
    assert f"record it with `{named}`, then run the agent again" in failure.message


def test_the_replay_section_of_the_config(tmp_path: Path) -> None:
    assert parse_config("replay: {on_miss: warn}", "s.yaml").replay.on_miss == "warn"
    assert parse_config("{}", "s.yaml").replay.on_miss == "fail"
    with pytest.raises(InputError, match="on_miss"):
        parse_config("replay: {on_miss: ignore}", "s.yaml")


@pytest.mark.parametrize("network", [Confinement(True), Confinement(False, "--network proxy"), None])
def test_whether_the_agent_ran_confined_is_kept_in_the_trace(network: Confinement | None) -> None:
    run = assemble(CASE, ["agent"], Finished(None, '{"answer": "x"}', ""), (), None, NOW, network=network)
    data = trace_dict(run)
    validate(data, "trace", "the trace")
    assert ("network" in data["replay"]) == (network is not None)  # a trace of an earlier version has none
    read = parse_trace(data, "t.json", "c1")
    assert read.replay is not None and read.replay.network == network


def test_a_run_not_confined_is_warned_of_in_its_case_and_a_confined_one_is_not() -> None:
    def warned(network: Confinement | None) -> list[str]:
        run = Run(case="c1", question="?", answer="", replay=Replay(network=network))
        return [w.message for w in run_findings(run, Config())[1] if w.kind == "unconfined"]

    assert warned(Confinement(True)) == [] and warned(None) == []
    assert warned(Confinement(False, "--network proxy")) == [
        "not confined: the agent ran without a network namespace (--network proxy), so a client that ignores the "
        "proxy variables could have reached the live web unseen (docs/trust.md)"]
