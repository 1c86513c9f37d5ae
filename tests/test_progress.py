"""Progress of long work: plain periodic lines in CI logs, a ``rich`` bar on a terminal only, none with -q."""

from __future__ import annotations

import io
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from gate.cli import main
from gate.term.progress import NullProgress, PlainProgress, RichProgress, for_cli
from tests.support.anthropic_server import AnthropicServer
from tests.support.golden_factory import write_golden
from tests.support.pty_run import gate_under_pty
from tests.support.run_golden import PLAN_ENV, faithful_plan, make_golden, scripted_agent
from tests.support.scripted_judge import scripted_judge

ROOT = Path(__file__).resolve().parent.parent


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_plain_progress_prints_every_tenth_and_a_last_line_with_spending_and_time_left() -> None:
    out, clock = io.StringIO(), Clock()
    p = PlainProgress(out, every=30, clock=clock)
    p.start(20, "judging")
    for _ in range(20):
        clock.now += 1.5
        p.advance(0, calls=3, tokens=1000, cost=0.01)
        p.advance(1)
    p.close()
    lines = out.getvalue().splitlines()
    assert len(lines) == 11  # one per tenth, and the last one
    assert lines[0] == "sourcegate: judging: 2/20, 6 calls, 2,000 tokens, $0.0200, 3 s, about 27 s left"
    assert lines[-2] == "sourcegate: judging: 20/20, 60 calls, 20,000 tokens, $0.2000, 30 s, about 0 s left"
    assert lines[-1] == "sourcegate: judging done: 20/20, 60 calls, 20,000 tokens, $0.2000, 30 s"


def test_plain_progress_of_unknown_length_prints_every_n_seconds_and_says_when_the_price_is_unknown() -> None:
    out, clock = io.StringIO(), Clock()
    p = PlainProgress(out, every=10, clock=clock)
    p.start(None, "recording")
    for _ in range(5):
        clock.now += 4
        p.advance(1)
    p.note("a line of its own")
    p.close()
    p.close()  # once only
    assert out.getvalue().splitlines() == [
        "sourcegate: recording: 3, 12 s",
        "sourcegate: a line of its own",
        "sourcegate: recording done: 5, 20 s",
    ]
    out2 = io.StringIO()
    q = PlainProgress(out2, clock=Clock())
    q.start(1, "judging")
    q.advance(1, calls=1, tokens=10, cost=None)
    assert "cost unknown" in out2.getvalue()


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_cli_picks_nothing_when_quiet_a_bar_on_a_terminal_and_plain_lines_elsewhere() -> None:
    assert isinstance(for_cli(quiet=True, stream=_Tty(), env={}), NullProgress)
    assert isinstance(for_cli(stream=_Tty(), env={"TERM": "xterm"}), RichProgress)
    assert isinstance(for_cli(stream=_Tty(), env={"TERM": "dumb"}), PlainProgress)
    assert isinstance(for_cli(stream=io.StringIO(), env={"CI": "true"}), PlainProgress)

    class NoTty:  # a stand-in stream, e.g. the action's tee of its log
        def write(self, text: str) -> int:
            return len(text)

        def flush(self) -> None:
            pass

    assert isinstance(for_cli(stream=NoTty(), env={}), PlainProgress)  # type: ignore[arg-type]


@pytest.fixture
def api() -> Iterator[AnthropicServer]:
    with AnthropicServer(scripted_judge) as server:
        yield server


def _live_env(server: AnthropicServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "GITHUB_STEP_SUMMARY")}
    return {**env, "PYTHONPATH": str(ROOT), "TERM": "xterm", "ANTHROPIC_BASE_URL": server.url,
            "ANTHROPIC_API_KEY": server.api_key}


def _stderr_under_pty(argv: list[str], env: dict[str, str]) -> tuple[str, int]:
    """Run ``sourcegate ARGV`` in a child with stderr on a pseudo-terminal; (what it wrote there, exit code)."""
    return gate_under_pty(argv, env, stream="stderr", errors="replace")


def test_a_live_judge_in_a_ci_log_prints_plain_lines_and_quiet_prints_none(
        api: AnthropicServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    # In-process: stderr is a pipe here as in a CI log (the terminal case below needs its own process).
    for name, value in _live_env(api).items():
        if name.startswith("ANTHROPIC_") or name == "TERM":
            monkeypatch.setenv(name, value)
    root = write_golden(tmp_path / "set", ["a", "b", "c"])
    argv = ["check", str(root), "--judge", "live", "--json", str(tmp_path / "r.json")]
    assert main(argv) == 0
    stderr = capsys.readouterr().err
    lines = [line for line in stderr.splitlines() if line.startswith("sourcegate: judging")]
    assert lines[-1].startswith("sourcegate: judging done: 3/3, 9 calls, ")
    assert "\x1b[" not in stderr and "━" not in stderr
    assert main([*argv, "-q"]) == 0
    assert "judging" not in capsys.readouterr().err


def test_a_live_judge_on_a_terminal_draws_a_bar_with_calls_tokens_and_cost(api: AnthropicServer,
                                                                           tmp_path: Path) -> None:
    root = write_golden(tmp_path / "set", ["a", "b", "c"])
    out, code = _stderr_under_pty(["check", str(root), "--judge", "live", "--json", str(tmp_path / "r.json")],
                                  _live_env(api))
    assert code == 0, out
    assert "judging" in out and "3/3" in out and "9 calls" in out and "tokens" in out
    assert "━" in out  # rich's bar
    assert "\x1b[" in out  # drawn in place on the terminal
    assert "sourcegate: judging done" not in out  # no plain lines on a terminal


def test_a_replay_run_shows_no_progress(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = write_golden(tmp_path / "set", ["a", "b"])
    assert main(["check", str(root), "--judge", "replay", "--json", str(tmp_path / "r.json")]) == 0
    assert "judging" not in capsys.readouterr().err


def test_sourcegate_run_counts_the_cases_the_agent_finished(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    case = "euro-adoption-after-2010"
    golden = make_golden(tmp_path / "set", [case])
    monkeypatch.setenv(PLAN_ENV, json.dumps({case: faithful_plan(case)}))
    assert main(["run", str(golden), "--", *scripted_agent(tmp_path)]) == 0
    assert "sourcegate: running the agent done: 1/1, " in capsys.readouterr().err
    assert main(["run", str(golden), "-q", "--", *scripted_agent(tmp_path)]) == 0
    assert "running the agent" not in capsys.readouterr().err
