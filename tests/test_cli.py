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


@pytest.mark.parametrize("case", ["a", "zzz"], ids=["a listed case", "an unknown case"])
def test_two_runs_for_one_case_are_an_input_error(case: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads(GOOD.read_text())
    data["case"] = case
    root = golden_set(tmp_path, "  - {id: a, question: q}\n", {})
    for name in ("first", "second"):
        (root / "runs" / f"{name}.json").write_text(json.dumps(data))
    assert main(["check", str(root)]) == 2
    err = capsys.readouterr().err
    assert f"second.json at $.case: a second run for case {case!r}" in err


def test_a_golden_set_without_a_runs_folder_is_an_input_error(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    # A misplaced or uncommitted runs/ folder is a broken golden set, not 17 agent failures.
    root = golden_set(tmp_path, "  - {id: a, question: q}\n", {})
    (root / "runs").rmdir()
    out = tmp_path / "r.json"
    assert main(["check", str(root), "--json", str(out)]) == 2
    err = capsys.readouterr().err
    assert str(root) in err and "no runs/ folder" in err
    assert not out.exists()


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
    "the-first-of-several-errors": (
        json.dumps({"format": "sourcegate-trace/1", "question": "q", "queries": [], "pages": [], "answer": "a",
                    "results": [{"url": f"https://a.example/{i}", "position": "x" if i in (2, 10) else i}
                                for i in range(12)]}),
        "at $.results[2].position",
    ),
    "wrong-format-version": (
        json.dumps({"format": "sourcegate-trace/9", "question": "q", "queries": [], "results": [], "pages": [],
                    "answer": "a"}),
        "$.format",
    ),
    "not-an-object": ("[1, 2]", "expected a JSON object"),
    "nested-too-deeply": ("[" * 100_000 + "]" * 100_000, "malformed JSON: nested too deeply"),
    # Times are RFC 3339 with a zone: ages are measured from them, so a guess would move every age.
    "started-at-not-a-time": (
        json.dumps({"format": "sourcegate-trace/1", "question": "q", "queries": [], "results": [], "pages": [],
                    "answer": "a", "started_at": "yesterday"}),
        "at $.started_at: 'yesterday' is not a 'date-time'",
    ),
    "started-at-without-a-zone": (
        json.dumps({"format": "sourcegate-trace/1", "question": "q", "queries": [], "results": [], "pages": [],
                    "answer": "a", "started_at": "2026-10-01T12:00:00"}),
        "at $.started_at: '2026-10-01T12:00:00' is not a 'date-time'",
    ),
    "fetched-at-a-date": (
        json.dumps({"format": "sourcegate-trace/1", "question": "q", "queries": [], "results": [], "answer": "a",
                    "pages": [{"url": "https://a.example/", "text": "t", "fetched_at": "2026-10-01"}]}),
        "at $.pages[0].fetched_at: '2026-10-01' is not a 'date-time'",
    ),
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


def test_an_unreadable_file_is_an_input_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    import gate.files.jsonio

    def denied(file: str, *_: object, **__: object) -> None:
        raise PermissionError(13, "Permission denied", file)

    monkeypatch.setattr(gate.files.jsonio, "open", denied, raising=False)
    assert main(["check", str(GOOD)]) == 2
    err = capsys.readouterr().err
    assert f"{GOOD}: cannot read it (Permission denied)" in err


def test_rfc3339_times_may_use_lower_case_t_and_z(tmp_path: Path) -> None:
    data = json.loads(GOOD.read_text())
    data["started_at"] = "2026-10-01t12:00:00z"
    data["pages"][0]["fetched_at"] = "2026-10-01t12:00:02.5+02:00"
    trace = tmp_path / "lower.json"
    trace.write_text(json.dumps(data))
    assert main(["check", str(trace)]) == 0


BAD_GOLDEN = {
    "duplicate-case-ids": ("version: 1\nname: t\ncases:\n  - {id: a, question: q}\n  - {id: a, question: r}\n",
                           "$.cases[1].id"),
    "duplicate-yaml-key": ("version: 1\nversion: 2\nname: t\ncases: []\n", "duplicate key 'version'"),
    "unknown-key": ("version: 1\nname: t\ncolour: red\ncases:\n  - {id: a, question: q}\n", "colour"),
    "bad-freshness": ("version: 1\nname: t\ncases:\n  - {id: a, question: q, freshness: weekly}\n",
                      "$.cases[0].freshness"),
    "malformed-yaml": ("version: 1\nname: [t\n", "malformed YAML"),
    "nan-version": ("version: .nan\nname: t\ncases: []\n", "finite number"),
    "snapshot-at-not-a-time": ("version: 1\nname: t\nsnapshot_at: last week\ncases:\n  - {id: a, question: q}\n",
                               "at $.snapshot_at: 'last week' is not a 'date-time'"),
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


def test_yaml_merge_keys_may_be_overridden(tmp_path: Path) -> None:
    # An anchor shared with "<<:" and then overridden is ordinary YAML, not a duplicate key.
    from gate.config import SoftBound, load_config

    cfg = tmp_path / "sourcegate.yaml"
    cfg.write_text("soft:\n  grounding_rate: &blocking {floor: 0.8, block: true}\n"
                   "  citation_validity:\n    <<: *blocking\n    floor: 0.95\n")
    config = load_config(str(cfg))
    assert config.soft["grounding_rate"] == SoftBound(floor=0.8, block=True)
    assert config.soft["citation_validity"] == SoftBound(floor=0.95, block=True)


BAD_CONFIGS = {
    "a key written twice beside a merge": (
        "soft:\n  grounding_rate: &b {floor: 0.8}\n  diversity:\n    <<: *b\n    block: true\n    block: false\n",
        "duplicate key 'block' (line 6)",
    ),
    "a key that is not a plain value": ("? [checks]\n: {}\n",
                                        "a mapping key must be a plain value, not a list (line 1)"),
    "a list": ("- checks\n- soft\n", "at $: ['checks', 'soft'] is not of type 'object'"),
}


@pytest.mark.parametrize("name", BAD_CONFIGS)
def test_bad_config_exits_2(name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text, expected = BAD_CONFIGS[name]
    cfg = tmp_path / "sourcegate.yaml"
    cfg.write_text(text)
    assert main(["check", str(GOOD), "--config", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert str(cfg) in err and expected in err


def test_an_empty_config_is_the_defaults(tmp_path: Path) -> None:
    from gate.config import Config, load_config

    cfg = tmp_path / "sourcegate.yaml"
    cfg.write_text("# nothing set yet\n")
    assert load_config(str(cfg)) == Config(source=str(cfg))


def test_an_unknown_check_id_in_disabled_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A typo must not leave the check running while the file says it is off.
    cfg = tmp_path / "sourcegate.yaml"
    cfg.write_text("checks:\n  disabled: [no_citations, fabricated_urls]\n")
    assert main(["check", str(BAD), "--config", str(cfg)]) == 2
    err = capsys.readouterr().err
    assert "sourcegate.yaml at $.checks.disabled[1]: 'fabricated_urls' is not one of" in err


def test_the_config_schema_knows_every_check_id() -> None:
    from gate.checks import CHECKS
    from gate.files.jsonio import schema

    assert schema("config")["properties"]["checks"]["properties"]["disabled"]["items"]["enum"] == list(CHECKS)


def test_a_disabled_check_is_not_run(tmp_path: Path) -> None:
    cfg = tmp_path / "sourcegate.yaml"
    cfg.write_text("checks:\n  disabled: [fabricated_url]\n")
    out = tmp_path / "r.json"
    assert main(["check", str(BAD), "--config", str(cfg), "--json", str(out)]) == 0
    assert json.loads(out.read_text())["cases"][0]["checks"]["fabricated_url"]["status"] == "disabled"


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
    assert main(["check", "--json"]) == 2  # `check` alone runs cached-snapshots/ (test_cli_usability.py)
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
    from gate.files.jsonio import load_json, validate

    out = tmp_path / "r.json"
    main(["check", str(BAD), "--json", str(out)])
    validate(load_json(str(out)), "report", str(out))


def test_internal_errors_exit_4(monkeypatch: pytest.MonkeyPatch) -> None:
    import gate.commands.check

    def boom(*_: object, **__: object) -> None:
        raise RuntimeError("bug")

    monkeypatch.setattr(gate.commands.check, "run_set", boom)
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
