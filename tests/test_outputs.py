"""Where sourcegate writes: devices, FIFOs, sockets and stdout are written, never replaced; symlinks
are written through; golden-set symlinks that lead out are refused; an unwritable path is exit 2;
stale temporary files are cleaned up; ``{name}`` never leaves the folder it is in."""

from __future__ import annotations

import json
import os
import socket
import stat
import threading
import time
from pathlib import Path

import pytest

from gate.cli import main
from gate.errors import InputError
from gate.files.outputs import STALE_AFTER, TEMP_PREFIX, write_file
from gate.judge.base import ToolCall
from gate.judge.cache import JudgeCache
from gate.judge.model import Usage
from gate.judge.tools import EXTRACT_CLAIMS
from gate.load.goldensets import file_name, per_set_file
from tests.support.golden_factory import write_golden


@pytest.fixture
def golden(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return write_golden(tmp_path / "demo", ["a", "b"])


def _is_report(text: str) -> bool:
    return json.loads(text)["verdict"] == "pass"


# ---------------------------------------------------------------- not replaced


def test_json_to_dev_null_leaves_it_a_character_device(golden: Path) -> None:
    assert main(["check", str(golden), "--json", os.devnull]) == 0
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)


def test_a_character_device_made_here_stays_one(golden: Path, tmp_path: Path) -> None:
    device = tmp_path / "null"
    try:
        os.mknod(device, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # what /dev/null is on Linux
    except (PermissionError, AttributeError):
        pytest.skip("making a device node is not permitted here")
    assert main(["check", str(golden), "--json", str(device)]) == 0
    assert stat.S_ISCHR(os.stat(device).st_mode)


def test_a_fifo_gets_the_report_and_stays_a_fifo(golden: Path, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []

    def read() -> None:
        with open(fifo, "rb") as f:  # blocks until the gate opens the FIFO for writing
            got.append(f.read())

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    assert main(["check", str(golden), "--json", str(fifo)]) == 0
    reader.join(timeout=30)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert _is_report(got[0].decode("utf-8"))


def test_a_unix_socket_gets_the_report(golden: Path, tmp_path: Path) -> None:
    path = str(tmp_path / "s")
    got: list[bytes] = []
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as listener:
        listener.bind(path)
        listener.listen(1)

        def accept() -> None:
            conn, _ = listener.accept()
            with conn:
                chunks = []
                while chunk := conn.recv(65536):
                    chunks.append(chunk)
                got.append(b"".join(chunks))

        t = threading.Thread(target=accept, daemon=True)
        t.start()
        assert main(["check", str(golden), "--json", path]) == 0
        t.join(timeout=30)
    assert stat.S_ISSOCK(os.stat(path).st_mode)
    assert _is_report(got[0].decode("utf-8"))


def test_dev_stdout_is_stdout(golden: Path, capfd: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(golden), "--json", "/dev/stdout"]) == 0
    assert _is_report(capfd.readouterr().out)
    assert os.path.islink("/dev/stdout")


def test_a_symlink_is_written_through_and_stays_a_symlink(golden: Path, tmp_path: Path) -> None:
    target = tmp_path / "reports" / "real.json"
    target.parent.mkdir()
    target.write_text("old", encoding="utf-8")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert main(["check", str(golden), "--json", str(link)]) == 0
    assert link.is_symlink() and _is_report(target.read_text(encoding="utf-8"))


def test_a_regular_file_is_still_replaced_atomically(golden: Path, tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    out.write_text("old", encoding="utf-8")
    before = out.stat().st_ino
    assert main(["check", str(golden), "--json", str(out)]) == 0
    assert out.stat().st_ino != before and _is_report(out.read_text(encoding="utf-8"))
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(TEMP_PREFIX)] == []


# ---------------------------------------------------------------- cannot be written


@pytest.mark.parametrize(("make", "reason"), [
    (lambda t: (t / "taken").mkdir() or t / "taken", "a folder is in the way"),
    (lambda t: (t / "file").write_text("x") and t / "file" / "r.json", "a folder above it is a file"),
])
def test_an_unwritable_path_is_an_input_error_naming_it(
    golden: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], make: object, reason: str,
) -> None:
    target = make(tmp_path)  # type: ignore[operator]
    assert main(["check", str(golden), "--json", str(target)]) == 2
    err = capsys.readouterr().err
    assert f"{target}: cannot write here: {reason}" in err and "Traceback" not in err


def test_a_folder_without_permission_is_an_input_error(
    golden: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    if os.geteuid() == 0:
        pytest.skip("root may write into any folder")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0)
    try:
        assert main(["check", str(golden), "--json", str(locked / "r.json")]) == 2
    finally:
        locked.chmod(0o755)
    assert "Permission denied" in capsys.readouterr().err


# ---------------------------------------------------------------- symlinks out of the golden set


def test_the_baseline_is_not_written_through_a_symlink_out_of_the_set(
    golden: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    outside = tmp_path / "elsewhere.json"
    outside.write_text("precious", encoding="utf-8")
    (golden / "baseline.json").symlink_to(outside)
    assert main(["baseline", "update", str(golden)]) == 2
    assert outside.read_text(encoding="utf-8") == "precious"
    assert "symlink that leads out of the golden set" in capsys.readouterr().err


def test_a_baseline_symlink_inside_the_set_is_written_through(golden: Path) -> None:
    (golden / "kept").mkdir()
    (golden / "baseline.json").symlink_to(golden / "kept" / "b.json")
    assert main(["baseline", "update", str(golden)]) == 0
    assert _is_report((golden / "kept" / "b.json").read_text(encoding="utf-8"))


def test_the_snapshot_is_not_written_into_a_folder_outside_the_set(
    golden: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (golden / "snapshot").symlink_to(outside, target_is_directory=True)
    assert main(["snapshot", "build", str(golden)]) == 2
    assert list(outside.rglob("*.json")) == []
    assert "symlink that leads out of the golden set" in capsys.readouterr().err


def test_the_judge_cache_is_not_written_through_a_symlink_out_of_the_set(golden: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (golden / "judgements").symlink_to(outside, target_is_directory=True)
    cache = JudgeCache(str(golden / "judgements"))
    call = ToolCall(EXTRACT_CLAIMS, "claude-sonnet-4-6", "user text")
    with pytest.raises(InputError, match="leads out of the golden set"):
        cache.put(call, {"claims": []}, Usage())
    assert list(outside.iterdir()) == []


# ---------------------------------------------------------------- temporary files


def test_stale_temporary_files_are_removed_by_the_next_write(golden: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    stale, fresh, other = out / f"{TEMP_PREFIX}killed", out / f"{TEMP_PREFIX}writing", out / "notes.tmp"
    for f in (stale, fresh, other):
        f.write_text("partial", encoding="utf-8")
    old = time.time() - STALE_AFTER - 60
    os.utime(stale, (old, old))
    os.utime(other, (old, old))
    assert main(["check", str(golden), "--json", str(out / "r.json")]) == 0
    assert not stale.exists()
    assert fresh.exists() and other.exists()  # still being written elsewhere; not ours


def test_a_temporary_file_never_stays_behind_a_failed_write(tmp_path: Path) -> None:
    target = tmp_path / "r.json"
    with pytest.raises(TypeError):
        write_file(str(target), 5)  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- {name}


@pytest.mark.parametrize(("name", "safe"), [
    ("..", "__"), (".", "_"), (".hidden", "_hidden"), ("a/b", "a_b"), ("a\\b", "a_b"),
    ("nul\x00x", "nul_x"), ("line\nbreak", "line_break"), ("", "_"), ("x" * 500, "x" * 100),
    ("example", "example"),
])
def test_file_name_cannot_name_another_folder(name: str, safe: str) -> None:
    assert file_name(name) == safe
    assert per_set_file("out/{name}/r.json", name) == f"out/{safe}/r.json"


def test_a_set_named_dot_dot_writes_inside_the_templates_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    golden = write_golden(tmp_path / "set", ["a"], name="..")
    out = tmp_path / "out"
    assert main(["check", str(golden), "--json", str(out / "{name}" / "r.json")]) == 0
    assert _is_report((out / "__" / "r.json").read_text(encoding="utf-8"))
    assert not (tmp_path / "r.json").exists()
