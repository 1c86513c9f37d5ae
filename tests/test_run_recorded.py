"""What a recording run left unrecorded, said in one line with the command that records it (pure)."""

from __future__ import annotations

from gate.commands.recorded import left_unrecorded
from gate.model import NOT_IN_SNAPSHOT, Replay, ReplayMiss, Run

AGENT = ("python", "agent.py")


def _run(case: str, *misses: ReplayMiss) -> Run:
    return Run(case=case, question="q", answer="a", replay=Replay(command=AGENT, misses=misses))


def test_a_complete_recording_leaves_nothing_to_say() -> None:
    assert left_unrecorded([_run("a"), Run(case="b", question="q", answer="a")], "mine", AGENT, afresh=False) is None


def test_each_search_and_page_is_counted_once_and_a_route_no_server_answers_is_not() -> None:
    failed = ReplayMiss("pages", "https://a.test/", "tavily", "POST /extract", "not recorded: HTTP 503")
    runs = [_run("a", failed, ReplayMiss("search", "q", "brave", "GET /search", "not recorded: HTTP 500")),
            _run("b", failed, ReplayMiss("pages", "https://b.test/", None, "GET /fetch", "not recorded: refused"),
                 ReplayMiss("route", "POST /crawl", "tavily", "POST /crawl", "not implemented"))]
    said = left_unrecorded(runs, "sets/mine", AGENT, afresh=False)
    assert said == ("the recording left 1 search and 2 pages unrecorded (each case's replay_miss says which and "
                    "why; the traces and what was recorded are written): record them with "
                    "`sourcegate run sets/mine --record -- python agent.py`")


def test_a_recording_kept_with_other_parameters_or_a_record_all_is_recorded_again_with_record_all() -> None:
    kept = ReplayMiss("search", "q", "tavily", "POST /search", "topic 'news' differs from the recording's None")
    assert "--record all -- python agent.py" in str(left_unrecorded([_run("a", kept)], "mine", AGENT, afresh=False))
    absent = ReplayMiss("pages", "https://a.test/", None, "GET /fetch", NOT_IN_SNAPSHOT)
    assert "--record -- python" in str(left_unrecorded([_run("a", absent)], "mine", AGENT, afresh=False))
    assert "--record all --" in str(left_unrecorded([_run("a", absent)], "mine", AGENT, afresh=True))
