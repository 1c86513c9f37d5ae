"""``sourcegate snapshot build|verify|serve`` through ``main(argv)``: output and exit codes."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import signal
import socket
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from gate.cli import main
from gate.replay.serve import ReplayServer
from gate.snapshot.records import PAGES, url_key

EXAMPLE = Path(__file__).parent.parent / "cached-snapshots" / "example"
WSJ = "https://www.wsj.com/economy/central-banking/fed-cuts-rates-september-2026-3f9a1c7e"


def _example(root: Path) -> Path:
    root.mkdir()
    shutil.copy(EXAMPLE / "golden.yaml", root / "golden.yaml")
    shutil.copytree(EXAMPLE / "runs", root / "runs")
    return root


@pytest.fixture
def golden(tmp_path: Path) -> Path:
    """The example set's golden.yaml and runs, without a snapshot."""
    return _example(tmp_path / "example")


@dataclass(frozen=True)
class Build:
    """``sourcegate snapshot build`` of the example set (without a snapshot): its folder, exit code and stderr."""

    root: Path
    code: int
    err: str


@pytest.fixture(scope="module")
def build_once(tmp_path_factory: pytest.TempPathFactory) -> Build:
    """The example set's snapshot, built once for the module through ``main(argv)``."""
    root = _example(tmp_path_factory.mktemp("built") / "example")
    with contextlib.redirect_stderr(io.StringIO()) as err:
        code = main(["snapshot", "build", str(root)])
    return Build(root, code, err.getvalue())


@pytest.fixture
def built_once(build_once: Build) -> Path:
    """The example set with the snapshot ``sourcegate snapshot build`` writes (shared: only for reading)."""
    assert build_once.code == 0, build_once.err
    return build_once.root


@pytest.fixture
def built(built_once: Path, tmp_path: Path) -> Path:
    """The example set and its built snapshot: a copy of its own."""
    return Path(shutil.copytree(built_once, tmp_path / "example"))


def test_build_then_verify(build_once: Build, capsys: pytest.CaptureFixture[str]) -> None:
    assert build_once.code == 0
    assert "36 search, 50 pages, 50 extractions; 136 file(s) written" in build_once.err
    assert main(["snapshot", "verify", str(build_once.root)]) == 0
    assert "covers all 18 run(s)" in capsys.readouterr().err


def test_verify_lists_the_misses_and_exits_2(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    golden = built
    (golden / "snapshot" / PAGES.folder / f"{url_key(WSJ)}.json").unlink()
    assert main(["snapshot", "verify", str(golden)]) == 2
    out = capsys.readouterr().out
    assert "does not cover 1 of 18 run(s)" in out
    assert "fomc-september-2026-decision" in out and "page not recorded: https://wsj.com/economy/" in out


def test_verify_with_no_snapshot_misses_everything(golden: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["snapshot", "verify", str(golden), "--provider", "serpapi"]) == 2
    assert "does not cover 18 of 18 run(s) by provider 'serpapi'" in capsys.readouterr().out


def test_a_path_that_is_not_a_golden_set_is_an_input_error(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["snapshot", "build", str(tmp_path / "nope")]) == 2
    assert "expected a golden-set folder" in capsys.readouterr().err
    assert main(["snapshot", "verify", str(tmp_path)]) == 2
    assert "no golden.yaml" in capsys.readouterr().err
    assert main(["snapshot"]) == 2


def test_a_golden_set_without_its_runs_folder_is_an_input_error(golden: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    # Not "covers all 0 run(s)": a snapshot checked against no runs at all proves nothing.
    shutil.rmtree(golden / "runs")
    assert main(["snapshot", "verify", str(golden)]) == 2
    assert "no runs/ folder" in capsys.readouterr().err
    assert main(["snapshot", "build", str(golden)]) == 2
    assert "no runs/ folder" in capsys.readouterr().err
    assert not (golden / "snapshot").exists()


def test_serve_needs_a_snapshot(golden: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["snapshot", "serve", str(golden)]) == 2
    assert "run `sourcegate snapshot build` first" in capsys.readouterr().err


def test_serve_says_where_it_listens_and_stops_cleanly_on_ctrl_c(
        built_once: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    golden = built_once  # serving only reads the set

    def interrupted(self: ReplayServer, poll_interval: float = 0.5) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(ReplayServer, "serve_forever", interrupted)
    assert main(["snapshot", "serve", str(golden), "--port", "0"]) == 0
    err = capsys.readouterr().err
    assert "replaying" in err and "on http://127.0.0.1:" in err and "never live calls" in err


def test_serve_on_a_taken_port_is_an_input_error(built_once: Path, capsys: pytest.CaptureFixture[str]) -> None:
    golden = built_once  # serving only reads the set
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["snapshot", "serve", str(golden), "--port", str(port)]) == 2
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err


def test_serve_stops_cleanly_on_sigterm_and_restores_the_handler(
        built_once: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    golden = built_once  # serving only reads the set
    before = signal.getsignal(signal.SIGTERM)

    def terminated(self: ReplayServer, poll_interval: float = 0.5) -> None:
        os.kill(os.getpid(), signal.SIGTERM)  # what `kill $pid` does in a CI script
        time.sleep(5)
        raise AssertionError("SIGTERM did not stop the server")

    monkeypatch.setattr(ReplayServer, "serve_forever", terminated)
    assert main(["snapshot", "serve", str(golden), "--port", "0"]) == 0
    assert signal.getsignal(signal.SIGTERM) is before
