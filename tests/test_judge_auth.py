"""A key the judge API refuses (401, 403) stops the judge after one call, with one clear message.

The real SDK against the fake Messages API on loopback: the server answers 401 with the API's
``authentication_error`` body to a request whose key is not its own.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.cli import main
from gate.config import Config, JudgeConfig
from gate.errors import EXIT_INCONCLUSIVE
from gate.jsonio import load_json, validate
from gate.judge.session import JudgeSession
from gate.model import Case
from tests.support.anthropic_server import AnthropicServer, Reply, Request
from tests.support.golden_factory import write_golden
from tests.support.judge_run import make_run
from tests.support.openai_server import OpenAIServer
from tests.support.scripted_judge import scripted_judge


def _forbidden(request: Request) -> Reply:
    return Reply(403, {"type": "error", "error": {"type": "permission_error",
                                                  "message": "Your API key does not have permission to use the "
                                                             "specified resource."}})


def test_a_refused_key_makes_one_call_for_the_whole_set_and_the_run_is_inconclusive(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_golden(tmp_path / "set", ["a", "b", "c", "d", "e", "f"])
    out = tmp_path / "report.json"
    with AnthropicServer(scripted_judge) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-wrong")
        code = main(["check", str(root), "--judge", "live", "--json", str(out)])
        calls = server.calls
    assert code == EXIT_INCONCLUSIVE
    assert calls == 1  # not retried by the SDK, not sent again for the other runs or workers
    report = load_json(str(out))
    validate(report, "report", str(out))
    assert report["verdict"] == "inconclusive"
    stopped = [w for w in report["warnings"] if "refused the key" in w]
    assert len(stopped) == 1
    assert "401 authentication_error" in stopped[0] and "ANTHROPIC_API_KEY" in stopped[0]
    assert stopped[0].startswith("judge: stopped calling the API: the Anthropic API refused the key")
    errors = [c["judgement"]["claims_error"] for c in report["cases"]]
    assert all(e and "refused the key" in e for e in errors)
    assert report["judge"]["counts"].get("supported", 0) == 0
    assert not list((root / "judgements").glob("*.json")) if (root / "judgements").exists() else True
    capsys.readouterr()


def test_a_403_stops_the_session_at_once_too(monkeypatch: pytest.MonkeyPatch) -> None:
    config = Config(judge=JudgeConfig(model="claude-sonnet-4-6", concurrency=4))
    run = make_run()
    with AnthropicServer(_forbidden) as server:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", server.api_key)
        with JudgeSession("live", config, None, expected_runs=5) as session:
            judgements = list(session.map(lambda i: session.judge(run, Case(f"c{i}", run.question)), range(5)))
        assert server.calls == 1
    assert all(j is not None and j.claims_error and "403 permission_error" in j.claims_error for j in judgements)
    assert sum("refused the key" in w for w in session.warnings) == 1


def test_the_openai_provider_stops_after_one_refused_call_too(monkeypatch: pytest.MonkeyPatch) -> None:
    config = Config(judge=JudgeConfig(provider="openai", model="gpt-4.1-mini", concurrency=4))
    run = make_run()
    with OpenAIServer(scripted_judge) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.url + "/v1")
        monkeypatch.setenv("OPENAI_API_KEY", "wrong")
        with JudgeSession("live", config, None, expected_runs=4) as session:
            judgements = list(session.map(lambda i: session.judge(run, Case(f"c{i}", run.question)), range(4)))
        assert server.calls == 1
    assert all(j is not None and j.claims_error and "refused the key (401" in j.claims_error for j in judgements)
    assert [w for w in session.warnings if "refused the key" in w][0].endswith(
        "check OPENAI_API_KEY; no further judge call is made")
