"""The CLI, in-process through ``main(argv)``: exit codes, outputs, and clear errors on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gate.cli import main

RUNS = Path(__file__).parent / "fixtures" / "runs"
GOOD = RUNS / "no_citations" / "passes" / "cites-sources.json"
BAD = RUNS / "fabricated_url" / "fails" / "cites-url-no-result-showed.json"


def golden_set(tmp_path: Path, cases: str, runs: dict[str, Path | str]) -> Path:
    root = tmp_path / "set"
    (root / "runs").mkdir(parents=True)
    (root / "golden.yaml").write_text(f"version: 1\nname: t\ncases:\n{cases}")
    for case_id, src in runs.items():
        text = src.read_text() if isinstance(src, Path) else src
        data = json.loads(text)
        if isinstance(data, dict) and "format" in data:
            data["case"] = case_id
        (root / "runs" / f"{case_id}.json").write_text(json.dumps(data))
    return root


def test_a_clean_run_passes(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(GOOD)]) == 0
    assert "sourcegate: **pass**" in capsys.readouterr().out


def test_a_hard_failure_exits_1_and_names_the_url(tmp_path: Path) -> None:
    out = tmp_path / "r.json"
    assert main(["check", str(BAD), "--json", str(out)]) == 1
    report = json.loads(out.read_text())
    assert report["verdict"] == "fail"
    [failure] = report["cases"][0]["hard_failures"]
    assert failure["check"] == "fabricated_url"
    assert failure["url"] == "https://nasa.example.gov/jupiter-moons-2026"


def test_golden_set_folder(tmp_path: Path) -> None:
    root = golden_set(tmp_path, "  - {id: a, question: q}\n  - {id: b, question: q}\n", {"a": GOOD, "b": GOOD})
    assert main(["check", str(root), "--json", str(tmp_path / "r.json")]) == 0
    assert [c["id"] for c in json.loads((tmp_path / "r.json").read_text())["cases"]] == ["a", "b"]


def test_a_case_without_a_run_fails_the_gate(tmp_path: Path) -> None:
    root = golden_set(tmp_path, "  - {id: a, question: q}\n  - {id: b, question: q}\n", {"a": GOOD})
    assert main(["check", str(root), "--json", str(tmp_path / "r.json")]) == 1
    cases = {c["id"]: c for c in json.loads((tmp_path / "r.json").read_text())["cases"]}
    assert cases["b"]["hard_failures"][0]["check"] == "input_error"
    assert "no run recorded" in cases["b"]["hard_failures"][0]["message"]


def test_a_run_for_an_unknown_case_fails_the_gate(tmp_path: Path) -> None:
    root = golden_set(tmp_path, "  - {id: a, question: q}\n", {"a": GOOD, "zzz": GOOD})
    assert main(["check", str(root), "--json", str(tmp_path / "r.json")]) == 1
    cases = {c["id"]: c for c in json.loads((tmp_path / "r.json").read_text())["cases"]}
    assert "does not list" in cases["zzz"]["hard_failures"][0]["message"]


BAD_INPUTS = {
    "malformed-json": ('{"format": "sourcegate-trace/1",', "malformed JSON"),
    "duplicate-key": ('{"format": "sourcegate-trace/1", "question": "a", "question": "b"}', "duplicate key 'question'"),
    "nested-duplicate-key": (
        '{"format": "sourcegate-trace/1", "question": "q", "results": [{"url": "a", "url": "b"}]}',
        "at $.results[0].url: duplicate key 'url'",
    ),
    "nan": ('{"question": "q", "answer": "a", "results": [{"link": "x", "position": NaN}]}', "NaN"),
    "infinity": ('{"question": "q", "answer": "a", "x": Infinity}', "Infinity"),
    "schema-violation": (
        json.dumps({"format": "sourcegate-trace/1", "question": "q", "queries": [], "pages": [], "answer": "a",
                    "results": [{"url": "https://a.example", "position": "first"}]}),
        "$.results[0].position",
    ),
    "wrong-format-version": (
        json.dumps({"format": "sourcegate-trace/9", "question": "q", "queries": [], "results": [], "pages": [],
                    "answer": "a"}),
        "$.format",
    ),
    "not-an-object": ("[1, 2]", "expected a JSON object"),
}


@pytest.mark.parametrize("name", BAD_INPUTS)
def test_bad_trace_exits_2_with_file_and_path(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text, expected = BAD_INPUTS[name]
    trace = tmp_path / f"{name}.json"
    trace.write_text(text)
    out = tmp_path / "out" / "r.json"
    assert main(["check", str(trace), "--json", str(out)]) == 2
    err = capsys.readouterr().err
    assert str(trace) in err and expected in err
    assert not out.exists()


BAD_GOLDEN = {
    "duplicate-case-ids": ("version: 1\nname: t\ncases:\n  - {id: a, question: q}\n  - {id: a, question: r}\n",
                           "$.cases[1].id"),
    "duplicate-yaml-key": ("version: 1\nversion: 2\nname: t\ncases: []\n", "duplicate key 'version'"),
    "unknown-key": ("version: 1\nname: t\ncolour: red\ncases:\n  - {id: a, question: q}\n", "colour"),
    "bad-freshness": ("version: 1\nname: t\ncases:\n  - {id: a, question: q, freshness: weekly}\n",
                      "$.cases[0].freshness"),
    "malformed-yaml": ("version: 1\nname: [t\n", "malformed YAML"),
    "nan-version": ("version: .nan\nname: t\ncases: []\n", "finite number"),
}


@pytest.mark.parametrize("name", BAD_GOLDEN)
def test_bad_golden_yaml_exits_2(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text, expected = BAD_GOLDEN[name]
    root = tmp_path / "set"
    (root / "runs").mkdir(parents=True)
    (root / "golden.yaml").write_text(text)
    assert main(["check", str(root)]) == 2
    err = capsys.readouterr().err
    assert "golden.yaml" in err and expected in err


def test_unknown_config_key_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cfg = tmp_path / "sourcegate.yaml"
    cfg.write_text("checks:\n  domain_cap: 3\n  domian_floor: {}\n")
    assert main(["check", str(GOOD), "--config", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert "sourcegate.yaml at $.checks" in err and "domian_floor" in err


def test_config_beside_the_golden_set_is_used(tmp_path: Path) -> None:
    root = golden_set(tmp_path, "  - {id: a, question: q, class: synthesis}\n", {"a": GOOD})
    assert main(["check", str(root)]) == 1  # synthesis needs 4 domains by default
    (root / "sourcegate.yaml").write_text("checks:\n  domain_floor: {synthesis: 2}\n")
    assert main(["check", str(root)]) == 0


def test_a_failed_write_leaves_no_file(tmp_path: Path) -> None:
    target = tmp_path / "r.json"
    target.mkdir()  # os.replace onto a directory fails
    assert main(["check", str(GOOD), "--json", str(target)]) != 0
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check"]) == 2
    assert main(["frobnicate"]) == 2
    assert main(["check", "no/such/path.json"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_minimal_shape_is_read_and_says_not_checked(tmp_path: Path) -> None:
    trace = tmp_path / "minimal.json"
    trace.write_text(json.dumps({
        "question": "q", "queries": ["q"],
        "results": [{"position": 1, "title": "t", "link": "https://a.example/x", "description": "d"}],
        "pages": {"https://a.example/x": "Some text."},
        "answer": "See https://a.example/x.",
    }))
    out = tmp_path / "r.json"
    assert main(["check", str(trace), "--json", str(out)]) == 0
    checks = json.loads(out.read_text())["cases"][0]["checks"]
    assert checks["url_unresolved"]["status"] == "not_checked"
    assert checks["stale_sources"]["status"] == "not_checked"


def test_report_validates_against_its_schema(tmp_path: Path) -> None:
    from gate.jsonio import load_json, validate

    out = tmp_path / "r.json"
    main(["check", str(BAD), "--json", str(out)])
    validate(load_json(str(out)), "report", str(out))


def test_internal_errors_exit_4(monkeypatch: pytest.MonkeyPatch) -> None:
    import gate.gaterun

    def boom(*_: object, **__: object) -> None:
        raise RuntimeError("bug")

    monkeypatch.setattr(gate.gaterun, "run_paths", boom)
    assert main(["check", str(GOOD)]) == 4


def test_unquoted_yaml_timestamps_read_as_strings(tmp_path: Path) -> None:
    root = golden_set(tmp_path, "  - {id: a, question: q}\n", {"a": GOOD})
    text = (root / "golden.yaml").read_text().replace("name: t\n", "name: t\nsnapshot_at: 2026-10-15T09:00:00Z\n")
    (root / "golden.yaml").write_text(text)
    assert main(["check", str(root)]) == 0


def test_written_reports_get_the_usual_file_mode(tmp_path: Path) -> None:
    import os
    import stat

    out = tmp_path / "r.json"
    main(["check", str(GOOD), "--json", str(out)])
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask
