"""A partial report cannot forge a verdict: ``sourcegate merge`` checks every case again from its trace.

The partial reports of ``check --shard i/n`` come from other jobs, which may have run a pull
request's code: here they are edited as such a job could edit them (every hard failure removed, the
edit made to agree with itself, failing cases left out of every shard, a judgement dropped) and the
merge must refuse them, naming the file, the case and the field, and write nothing. The traces may
be kept outside the golden set (``--runs DIR``, as a workflow downloads an agent's traces).
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from gate.cli import main
from gate.load.shards import ids_digest
from tests.conftest import EXAMPLE
from tests.support.checked_once import checked, shards


def _read(file: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(file.read_text(encoding="utf-8"))
    return data


def _write(file: Path, data: dict[str, Any]) -> None:
    file.write_text(json.dumps(data, indent=2), encoding="utf-8")


def _merge(files: list[Path], tmp_path: Path, *extra: str, golden: Path = EXAMPLE) -> tuple[int, Path]:
    out = tmp_path / "merged.json"
    return main(["merge", str(golden), *map(str, files), "--json", str(out), *extra]), out


def _failing(data: dict[str, Any]) -> list[int]:
    return [i for i, c in enumerate(data["cases"]) if c["hard_failures"]]


def test_the_example_set_s_shards_merge_into_its_failing_verdict(tmp_path: Path) -> None:
    code, out = _merge(shards(EXAMPLE, tmp_path, 4), tmp_path)
    assert code == 1 and _read(out)["verdict"] == "fail"


def test_two_partials_edited_to_no_hard_failures_are_refused(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    files = shards(EXAMPLE, tmp_path, 2)
    edited = [f for f in files if _failing(_read(f))]
    assert len(edited) == 2
    first_failing = _failing(_read(edited[0]))[0]
    for f in edited:
        data = _read(f)
        for case in data["cases"]:
            case["hard_failures"] = []
        _write(f, data)
    code, out = _merge(files, tmp_path)
    assert code == 2 and not out.exists()
    err = capsys.readouterr().err
    assert f"{edited[0]} at $.cases[{first_failing}].hard_failures: case " in err
    assert "does not follow from its trace: hard_failures is [] in the partial report and [{" in err


def test_a_forgery_that_agrees_with_itself_is_still_refused(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    # Every trace of a failure removed: the check statuses, the summary and the verdict made to match.
    files = shards(EXAMPLE, tmp_path, 4)
    for f in files:
        data = _read(f)
        for case in data["cases"]:
            for check in {h["check"] for h in case["hard_failures"]}:
                if check in case["checks"]:
                    case["checks"][check] = {"status": "pass", "reason": None}
            case["hard_failures"] = []
        data["summary"].update(failed_cases=0, hard_failures=0, by_check={})
        data["verdict"], data["reasons"] = "pass", ["no hard failure"]
        _write(f, data)
    code, out = _merge(files, tmp_path)
    assert code == 2 and not out.exists()
    assert "does not follow from its trace" in capsys.readouterr().err


def test_failing_cases_left_out_of_every_shard_are_refused(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    # The shards agree with each other (one list of cases, its digest, every position) and not with the set.
    files = shards(EXAMPLE, tmp_path, 2)
    datas = [_read(f) for f in files]
    order: list[tuple[int, str, int, int]] = sorted(
        (pos, c["id"], n, i) for n, d in enumerate(datas) for i, (pos, c) in enumerate(
            zip(d["shard"]["positions"], d["cases"], strict=True)))
    kept = [(pos, cid, n, i) for pos, cid, n, i in order if not datas[n]["cases"][i]["hard_failures"]]
    ids = [cid for _, cid, _, _ in kept]
    for n, d in enumerate(datas):
        mine = [(new, i) for new, (_, _, m, i) in enumerate(kept) if m == n]
        d["cases"] = [d["cases"][i] for _, i in mine]
        d["shard"].update(positions=[new for new, _ in mine], total=len(kept), ids=ids_digest(ids))
        _write(files[n], d)
    code, out = _merge(files, tmp_path)
    assert code == 2 and not out.exists()
    assert "the partial reports are not of these traces (a case left out, added or moved)" in capsys.readouterr().err


def test_a_judgement_left_out_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = shards(EXAMPLE, tmp_path, 2)
    data = _read(files[0])
    judged = next(i for i, c in enumerate(data["cases"]) if "judgement" in c)
    del data["cases"][judged]["judgement"]
    _write(files[0], data)
    code, out = _merge(files, tmp_path)
    assert code == 2 and not out.exists()
    err = capsys.readouterr().err
    assert f"$.cases[{judged}]: case " in err and "has no judgement" in err


def _traces_apart(tmp_path: Path) -> tuple[Path, Path]:
    """The example set without its runs, and its traces in a folder of their own (as downloaded)."""
    golden = tmp_path / "set"
    shutil.copytree(EXAMPLE, golden, ignore=shutil.ignore_patterns("runs"))
    (golden / "runs").mkdir()
    traces = tmp_path / "downloaded-traces"
    shutil.copytree(EXAMPLE / "runs", traces)
    return golden, traces


def test_check_and_merge_read_the_traces_from_a_folder_outside_the_golden_set(tmp_path: Path) -> None:
    code, full, _ = checked(EXAMPLE, tmp_path)
    golden, traces = _traces_apart(tmp_path)
    apart = tmp_path / "apart.json"
    assert main(["check", str(golden), "--runs", str(traces), "--json", str(apart)]) == code
    keep = ("verdict", "reasons", "summary")
    assert {k: _read(apart)[k] for k in keep} == {k: _read(full)[k] for k in keep}
    files = []
    for i in (1, 2):
        files.append(tmp_path / f"shard-{i}.json")
        assert main(["check", str(golden), "--runs", str(traces), "--shard", f"{i}/2", "--json", str(files[-1])]) == 0
    merged_code, out = _merge(files, tmp_path, "--runs", str(traces), golden=golden)
    assert merged_code == code and _read(out)["summary"] == _read(full)["summary"]
    # The golden set's own runs/ (empty here) is not what the merge checks the shards against: without
    # --runs, every case of the shards is one the set has no trace for.
    assert _merge(files, tmp_path, golden=golden)[0] == 2


def test_a_trace_link_out_of_the_folder_of_traces_is_refused(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    golden, traces = _traces_apart(tmp_path)
    secret = tmp_path / "secret.json"
    secret.write_text('{"token": "ghp_x"}', encoding="utf-8")
    victim = traces / "nobel-chemistry-2026.json"
    victim.unlink()
    os.symlink(secret, victim)
    assert main(["check", str(golden), "--runs", str(traces)]) == 2
    err = capsys.readouterr().err
    assert "nobel-chemistry-2026.json" in err and "ghp_x" not in err


def test_runs_takes_one_golden_set_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = EXAMPLE / "runs" / "nobel-chemistry-2026.json"
    assert main(["check", str(trace), "--runs", str(tmp_path)]) == 2
    assert "--runs takes the traces of one golden set" in capsys.readouterr().err
    assert main(["check", str(EXAMPLE), "--runs", str(tmp_path / "nowhere")]) == 2
    assert "no such folder of traces" in capsys.readouterr().err
