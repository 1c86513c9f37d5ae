"""A key the judge API refuses (401, 403) stops the judge after one call, with one clear message.

The real SDK against the fake Messages API on loopback: the server answers 401 with the API's
``authentication_error`` body to a request whose key is not its own.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from gate.cli import main
from gate.config import Config, JudgeConfig
from gate.exitcodes import ExitCode
from gate.files.jsonio import load_json, validate
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
    assert code == ExitCode.INCONCLUSIVE
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


# -- the message reaches stderr, however stdout and stderr are taken -----------------------------

OPENAI_CONFIG = "judge:\n  provider: openai\n  model: gpt-4.1-mini\n  concurrency: 4\n"
ANTHROPIC_CONFIG = "judge:\n  model: claude-sonnet-4-6\n  concurrency: 4\n"


@dataclass(frozen=True)
class Checked:
    returncode: int
    stdout: str
    stderr: str


PipedCheck = Callable[..., Checked]


@pytest.fixture
def piped_check(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> PipedCheck:
    """``sourcegate check PATHS --judge live --json r.json ARGV`` with stdout and stderr captured, not
    terminals (as in a CI log), and the judge's variables from ``env`` only (the suite scrubs the
    process's own)."""
    def check(paths: list[Path], env: dict[str, str], *argv: str) -> Checked:
        with monkeypatch.context() as m:
            for name, value in {"NO_COLOR": "1", **env}.items():
                m.setenv(name, value)
            out = paths[0].parent / ("r.json" if len(paths) == 1 else "r-{name}.json")
            code = main(["check", *map(str, paths), "--judge", "live", "--json", str(out), *argv])
        seen = capsys.readouterr()
        return Checked(code, seen.out, seen.err)
    return check


def _refusals(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "refused the key" in line]


@pytest.mark.parametrize(("provider", "server", "variable", "name"), [
    ("anthropic", AnthropicServer, "ANTHROPIC_API_KEY", "the Anthropic API"),
    ("openai", OpenAIServer, "OPENAI_API_KEY", "the OpenAI-compatible API"),
])
def test_a_refused_key_is_said_once_on_stderr_when_nothing_is_a_terminal(
        tmp_path: Path, provider: str, server: type[AnthropicServer | OpenAIServer], variable: str,
        name: str, piped_check: PipedCheck) -> None:
    root = write_golden(tmp_path / "set", ["a", "b", "c", "d", "e", "f"])
    (root / "sourcegate.yaml").write_text(OPENAI_CONFIG if provider == "openai" else ANTHROPIC_CONFIG,
                                          encoding="utf-8")
    wrong = "sk-wrong-0123456789abcdef"
    with server(scripted_judge) as api:
        base = api.url + ("/v1" if provider == "openai" else "")
        env = {f"{provider.upper()}_BASE_URL": base, variable: wrong}
        done = piped_check([root], env)
        quiet = piped_check([root], env, "-q")
    assert done.returncode == ExitCode.INCONCLUSIVE, done.stderr
    [line] = _refusals(done.stderr)
    assert line.startswith(f"sourcegate: judge: stopped calling the API: {name} refused the key (401")
    assert f"check {variable}" in line
    assert wrong not in done.stderr + done.stdout
    assert "judging done: 6/6" in done.stderr  # the progress lines are still there
    # -q: the verdict line only, and nothing on stderr
    assert quiet.returncode == ExitCode.INCONCLUSIVE
    assert quiet.stderr == ""


def test_each_set_says_it_once(tmp_path: Path, piped_check: PipedCheck) -> None:
    roots = [write_golden(tmp_path / name, ["a", "b", "c"], name=name) for name in ("one", "two")]
    with AnthropicServer(scripted_judge) as api:
        done = piped_check(roots, {"ANTHROPIC_BASE_URL": api.url, "ANTHROPIC_API_KEY": "sk-ant-wrong"})
        calls = api.calls
    assert done.returncode == ExitCode.INCONCLUSIVE, done.stderr
    assert len(_refusals(done.stderr)) == 2 == calls


def test_the_key_never_shows_even_when_the_api_repeats_it(tmp_path: Path, piped_check: PipedCheck) -> None:
    root = write_golden(tmp_path / "set", ["a", "b"])
    key = "sk-ant-api03-a-key-that-must-never-show"

    def repeats_the_key(request: Request) -> Reply:
        sent = request.headers.get("x-api-key") or request.headers.get("authorization", "").removeprefix("Bearer ")
        return Reply(401, {"type": "error", "error": {"type": "authentication_error",
                                                      "message": f"invalid x-api-key {sent}\n::error::injected"}})

    with AnthropicServer(repeats_the_key, api_key=key) as api:
        done = piped_check([root], {"ANTHROPIC_BASE_URL": api.url, "ANTHROPIC_API_KEY": key})
    report = (tmp_path / "r.json").read_text(encoding="utf-8")
    assert done.returncode == ExitCode.INCONCLUSIVE, done.stderr
    [line] = _refusals(done.stderr)
    assert "invalid x-api-key [the key]" in line and "check ANTHROPIC_API_KEY" in line
    assert key not in done.stderr + done.stdout + report
    assert not any(s.lstrip().startswith("::") for s in done.stderr.splitlines())
