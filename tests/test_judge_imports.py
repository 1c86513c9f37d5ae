"""The SDKs are imported only when a live judge runs: never by ``import gate.cli``, replay or off."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.fresh_import import FreshImport
from tests.support.golden_factory import write_golden

ROOT = Path(__file__).resolve().parent.parent


def sdk_loaded(code: str) -> bool:
    check = "; print('anthropic' in sys.modules or 'openai' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code + check],
                         capture_output=True, text=True, cwd=ROOT, check=True)
    return out.stdout.strip().splitlines()[-1] == "True"


def test_importing_the_cli_and_the_judge_package_does_not_load_the_sdk(cli_import: FreshImport) -> None:
    # The probe imports gate.cli, gate.judge, gate.judge.session, gate.judge.providers, gate.action.inputs
    # and gate.report.json.
    assert cli_import.loaded("anthropic", "openai") == []


@pytest.mark.parametrize("mode", ["replay", "off"])
def test_replay_and_off_runs_do_not_load_the_sdk(tmp_path: Path, mode: str) -> None:
    root = write_golden(tmp_path / "set", ["a"])
    (root / "judgements").mkdir()
    assert not sdk_loaded(f"import sys; from gate.cli import main; main(['check', {str(root)!r}, '--judge', "
                          f"{mode!r}, '--json', {str(tmp_path / 'r.json')!r}])")


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
