"""The SDKs are imported only when a live judge runs: never by ``import gate.cli``, replay or off, nor by a
live judge that has no key to send."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support.fresh_import import FreshImport
from tests.support.golden_factory import write_golden

# Each mode in a process of its own, forked from the fresh process that imported the CLI (the state
# `python -c "from gate.cli import main; main(...)"` has once the CLI is imported): what one mode loads
# cannot hide what the other does.
CHECK_ONE_MODE = """
import sys
from gate.cli import main

root, out, mode = sys.argv[1:]
main(["check", root, "--judge", mode, "--json", out])
print("anthropic" in sys.modules or "openai" in sys.modules)
"""


@pytest.fixture(scope="module")
def sdk_loaded_by(tmp_path_factory: pytest.TempPathFactory, cli_import: FreshImport) -> dict[str, bool]:
    """Whether ``sourcegate check`` loaded an SDK, by judge mode, in a fresh process."""
    tmp = tmp_path_factory.mktemp("modes")
    root = write_golden(tmp / "set", ["a"])
    (root / "judgements").mkdir()
    loaded: dict[str, bool] = {}
    for mode in ("replay", "off"):
        done = cli_import.run(CHECK_ONE_MODE, str(root), str(tmp / f"{mode}.json"), mode)
        assert done.returncode == 0, done.stderr
        loaded[mode] = {"True": True, "False": False}[done.stdout.splitlines()[-1]]
    return loaded


def test_importing_the_cli_and_the_judge_package_does_not_load_the_sdk(cli_import: FreshImport) -> None:
    # The probe imports gate.cli, gate.judge, gate.judge.session, gate.judge.providers, gate.action.inputs
    # and gate.report.json.
    assert cli_import.loaded("anthropic", "openai") == []


@pytest.mark.parametrize("mode", ["replay", "off"])
def test_replay_and_off_runs_do_not_load_the_sdk(sdk_loaded_by: dict[str, bool], mode: str) -> None:
    assert sdk_loaded_by[mode] is False


def test_a_replay_without_any_judge_cache_says_so_and_judges_nothing(tmp_path: Path) -> None:
    from gate.pipeline import run_paths

    root = write_golden(tmp_path / "set", ["a"])
    report = run_paths([str(root)], None, judge_mode="replay")
    assert report.verdict == "pass" and report.cases[0].judgement is None
    assert any("no judge cache" in w for w in report.warnings)


def test_live_without_a_key_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from gate.cli import main

    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    root = write_golden(tmp_path / "set", ["a"])
    assert main(["check", str(root), "--judge", "live"]) == 2


def test_live_without_a_key_is_refused_before_the_sdk_loads(tmp_path: Path, cli_import: FreshImport) -> None:
    root = write_golden(tmp_path / "set", ["a"])
    code = ("import sys; from gate.cli import main; rc = main(['check', sys.argv[1], '--judge', 'live']); "
            "print('anthropic' in sys.modules); sys.exit(rc)")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    done = cli_import.run(code, str(root), env=env)
    assert done.returncode == 2 and "needs an API key: set ANTHROPIC_API_KEY" in done.stderr
    assert done.stdout.split()[-1] == "False"
