"""``POST /guard`` under a case's URL: the gate's hard checks on a draft, against what the replay server served
the case so far, answered as JSON; every draft an attempt of the case's trace, for an agent in any language.

A real replay server on loopback, a case's scope registered as ``sourcegate run`` registers it, and the
run assembled from its calls as ``run`` assembles it."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from gate.config import Config
from gate.model import Case
from gate.replay.routes import REPLAY_APIS
from gate.replay.serve import ReplayServer
from gate.runner.assemble import Finished, assemble
from gate.runner.guarding import case_guard
from gate.runner.scope import CaseScope
from gate.snapshot.records import ExtractionRecord, PageRecord, SearchRecord
from gate.snapshot.store import SnapshotStore
from tests.support.loopback import ServerThread

READ = "https://a.test/moons"
SHOWN = "https://a.test/list"
INVENTED = "https://nasa.example.gov/jupiter-moons-2026"
RESULTS = {"results": [{"title": "Moons", "url": READ, "content": "Jupiter has 95 moons"},
                       {"title": "List", "url": SHOWN, "content": "A list"}]}
CASE = Case(id="moons", question="How many moons does Jupiter have?")
START = datetime(2026, 10, 1, 12, 0, tzinfo=UTC)


@dataclass
class Agent:
    """A case's agent as the server sees it: its requests under ``/case/<token>``."""

    server: ReplayServer
    scope: CaseScope
    token: str = "t0k3n"

    def send(self, method: str, path: str, body: Any = None, scoped: bool = True, **params: str) -> tuple[int, Any]:
        host, port = self.server.server_address[:2]
        conn = http.client.HTTPConnection(str(host), port, timeout=5)
        target = (f"/case/{self.token}" if scoped else "") + path + ("?" + urlencode(params) if params else "")
        try:
            data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
            conn.request(method, target, body=data, headers={"Content-Type": "application/json"})
            response = conn.getresponse()
            return response.status, json.loads(response.read())
        finally:
            conn.close()

    def guard(self, answer: str, citations: list[Any] | None = None) -> dict[str, Any]:
        status, reply = self.send("POST", "/guard", {"answer": answer, "citations": citations})
        assert status == 200, reply
        assert isinstance(reply, dict)
        return reply


@pytest.fixture
def agent(tmp_path: Path) -> Iterator[Agent]:
    store = SnapshotStore(str(tmp_path / "snapshot"))
    store.put_search(SearchRecord("tavily", "jupiter moons", RESULTS))
    store.put_page(PageRecord(url=READ, status=200, body="Jupiter has 95 known moons.", content_type="text/plain"))
    store.put_extraction(ExtractionRecord(url=READ, text="Jupiter has 95 known moons."))
    server = ReplayServer(store, port=0)
    scope = CaseScope(clock=server.clock, guard=case_guard(CASE, Config()))
    server.scopes["t0k3n"] = scope
    with ServerThread(server, "replay"):
        yield Agent(server, scope)


def _searched_and_read(agent: Agent) -> None:
    assert agent.send("GET", "/search", provider="tavily", q="jupiter moons")[0] == 200
    assert agent.send("GET", "/extract", url=READ)[0] == 200


def test_a_draft_is_checked_against_what_the_case_was_served(agent: Agent) -> None:
    _searched_and_read(agent)
    reply = agent.guard(f"Jupiter has 95 moons [{READ}] (a 2026 count: {INVENTED}); see also {SHOWN}.")
    assert (reply["passed"], reply["attempt"]) == (False, 1)
    assert [(f["check"], f["url"]) for f in reply["findings"]] == [("fabricated_url", INVENTED),
                                                                    ("unread_citation", SHOWN)]
    assert reply["rejected"] == reply["rejected_so_far"] == [INVENTED, SHOWN]
    assert reply["message"].splitlines()[0] == "The guard rejected answer 1:"
    assert f"Do not cite or show these URLs again: {INVENTED}, {SHOWN}" in reply["message"]
    again = agent.guard(f"Jupiter has 95 moons [{READ}].", [{"url": READ, "quote": "Jupiter has 95 known moons"}])
    assert (again["passed"], again["attempt"], again["findings"], again["message"]) == (True, 2, [], None)
    assert again["rejected_so_far"] == [INVENTED, SHOWN]


def test_a_draft_that_brings_a_rejected_url_back_is_rejected_for_it(agent: Agent) -> None:
    _searched_and_read(agent)
    agent.guard(f"Jupiter has 95 moons [{READ}] [{SHOWN}].")
    reply = agent.guard(f"Jupiter has 95 moons [{READ}]; a list: {SHOWN}.")
    assert [f["check"] for f in reply["findings"]] == ["unread_citation", "rejected_url_kept"]
    assert "rejected in attempt 1 (unread_citation)" in reply["findings"][1]["message"]


def test_a_draft_that_cites_nothing_is_rejected_for_it(agent: Agent) -> None:
    _searched_and_read(agent)
    reply = agent.guard("Jupiter has 95 moons.")
    assert [(f["check"], f["url"]) for f in reply["findings"]] == [("no_citations", None)]
    assert reply["rejected"] == [] and reply["passed"] is False


def test_every_draft_is_an_attempt_of_the_assembled_trace_and_no_page(agent: Agent) -> None:
    _searched_and_read(agent)
    agent.guard(f"95 moons ({INVENTED}).")
    clean = f"Jupiter has 95 moons [{READ}]."
    agent.guard(clean)
    answer = json.dumps({"answer": clean})
    run = assemble(CASE, ("node", "agent.mjs"), Finished(None, answer, ""), agent.scope.calls(), None, START)
    assert [p.url for p in run.pages] == [READ]  # the drafts guarded are no pages read
    first, second = run.attempts
    assert (first.rejected, first.kept, second.rejected, second.kept) == ((INVENTED,), False, (), True)
    assert [f.check for f in first.findings] == ["fabricated_url"]
    assert first.started_at == START and first.duration_ms is not None and first.duration_ms > 0
    assert second.started_at is not None and second.started_at > first.started_at
    # an agent that printed another answer than any draft kept none
    other = assemble(CASE, ("node",), Finished(None, json.dumps({"answer": "42"}), ""), agent.scope.calls(), None,
                     START)
    assert not any(a.kept for a in other.attempts)


def test_a_bad_draft_is_a_400_in_the_guard_s_words(agent: Agent) -> None:
    for body in ([1, 2], {"citations": []}, {"answer": "a", "citations": "https://a.test/"},
                 {"answer": "a", "citations": [{"quote": "q"}]}):
        status, reply = agent.send("POST", "/guard", body)
        assert status == 400 and isinstance(reply["error"], str), body
    assert not agent.scope.calls()  # nothing guarded, nothing recorded


def test_outside_a_case_there_is_nothing_to_guard_against(agent: Agent) -> None:
    status, reply = agent.send("POST", "/guard", {"answer": "a"}, scoped=False)
    assert status == 404 and "under a case's URL" in reply["error"]
    unguarded = CaseScope()  # a case whose scope has no guard
    agent.server.scopes["other"] = unguarded
    status, _ = Agent(agent.server, unguarded, "other").send("POST", "/guard", {"answer": "a"})
    assert status == 404


def test_the_guard_is_one_route_of_the_registry() -> None:
    guard = REPLAY_APIS["guard"]
    assert [(r.method, r.path) for r in guard.routes] == [("POST", "/guard")]
