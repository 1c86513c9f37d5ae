"""Hostile inputs stay bounded and inside the golden set.

A pull request controls every file of a golden set. Whatever it commits, reading ends as a clear
input error (exit 2) in bounded time and memory: alias bombs, millions of schema errors, huge
values, huge integers and deep nesting are refused before the expensive work, and a file whose
real path leaves the set is refused by name, its content never shown.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

import gate.files.jsonio
from gate.cli import main
from gate.errors import InputError

RUNS = Path(__file__).parent / "fixtures" / "runs"
GOOD = RUNS / "no_citations" / "passes" / "cites-sources.json"
EXAMPLE = Path(__file__).parent.parent / "cached-snapshots" / "example"
SECRET = "ghp_" + "S3cr3t" * 6
GOLDEN = "version: 1\nname: t\ncases:\n  - {id: a, question: q}\n"


def golden_set(tmp_path: Path, golden: str = GOLDEN) -> Path:
    root = tmp_path / "set"
    (root / "runs").mkdir(parents=True)
    (root / "golden.yaml").write_text(golden)
    trace = json.loads(GOOD.read_text())
    trace["case"] = "a"
    (root / "runs" / "a.json").write_text(json.dumps(trace))
    return root


def secret_file(tmp_path: Path, text: str = SECRET) -> Path:
    outside = tmp_path / "outside" / "token.txt"
    outside.parent.mkdir()
    outside.write_text(text)
    return outside


def check(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out + out.err


def alias_bomb(key: str) -> str:
    """Nine levels of anchors, each a list of nine aliases of the one before: 9**9 nodes in 500 bytes."""
    lines = ["x0: &a0 [x,x,x,x,x,x,x,x,x]"]
    lines += [f"x{i}: &a{i} [{','.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    return "\n".join([*lines, f"{key}: *a9", ""])


# -- YAML ------------------------------------------------------------------------------------------


def test_an_alias_bomb_as_golden_yaml_cases_is_an_input_error(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    root = golden_set(tmp_path, "version: 1\nname: t\n" + alias_bomb("cases"))
    assert len((root / "golden.yaml").read_text()) < 600
    code, said = check(["check", str(root), "--judge", "off"], capsys)
    assert code == 2
    assert "golden.yaml: expands to more than 2,000,000 nodes through its aliases" in said
    assert "SOURCEGATE_MAX_YAML_NODES" in said


def test_an_alias_bomb_in_a_case_s_constraints_is_an_input_error(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    bomb = alias_bomb("defs").replace("\n", "\n  ").rstrip() + "\n"
    golden = f"version: 1\nname: t\nx:\n  {bomb}cases:\n  - {{id: a, question: q, constraints: *a9}}\n"
    code, said = check(["check", str(golden_set(tmp_path, golden)), "--judge", "off"], capsys)
    assert code == 2 and "through its aliases" in said


@pytest.mark.parametrize("where", ["checks", "constraints"])
def test_an_alias_bomb_in_sourcegate_yaml_is_an_input_error(where: str, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    root = golden_set(tmp_path)
    target = "checks: {disabled: *a9}" if where == "checks" else "soft: *a9"
    (root / "sourcegate.yaml").write_text(alias_bomb("anchors").replace("anchors: *a9", target))
    code, said = check(["check", str(root), "--judge", "off"], capsys)
    assert code == 2
    assert "sourcegate.yaml: expands to more than" in said


def test_a_few_aliases_are_still_fine(tmp_path: Path) -> None:
    golden = "version: 1\nname: t\ndescription: &q question\ncases:\n  - {id: a, question: *q}\n"
    assert main(["check", str(golden_set(tmp_path, golden)), "--judge", "off", "--json", "-"]) == 0


def test_yaml_nested_900_deep_is_an_input_error_not_a_traceback(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    golden = GOLDEN + "deep: " + "[" * 900 + "]" * 900 + "\n"
    code, said = check(["check", str(golden_set(tmp_path, golden)), "--judge", "off"], capsys)
    assert code == 2
    assert "golden.yaml: nested more than 100 levels deep (line 5)" in said
    assert "Traceback" not in said


@pytest.mark.parametrize(("tagged", "said"), [
    ('!!int "seven"', "'seven' is not an integer (tagged !!int) (line 1)"),
    ('!!float "x\\n::error::f"', "'x\\n::error::f' is not a number (tagged !!float) (line 1)"),
    ('!!float "nan\\n"', "'nan\\n' is not allowed (expected a finite number, line 1)"),
    ('!!bool "maybe"', "'maybe' is not a boolean (tagged !!bool) (line 1)"),
])
def test_a_yaml_scalar_tagged_as_what_it_is_not_is_an_input_error(
        tagged: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    golden = GOLDEN.replace("version: 1", f"version: {tagged}")
    code, out = check(["check", str(golden_set(tmp_path, golden)), "--judge", "off"], capsys)
    assert code == 2 and f"golden.yaml: {said}" in out and "Traceback" not in out, out


def test_a_yaml_integer_of_5000_digits_is_an_input_error(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    golden = GOLDEN.replace("version: 1", "version: " + "7" * 5000)
    code, said = check(["check", str(golden_set(tmp_path, golden)), "--judge", "off"], capsys)
    assert code == 2
    assert "an integer has 5,000 digits, more than 4,300 (line 1)" in said


# -- JSON ------------------------------------------------------------------------------------------


def test_a_trace_of_3_000_000_bad_results_is_refused_before_it_is_parsed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = golden_set(tmp_path)
    head = '{"format": "sourcegate-trace/1", "case": "a", "question": "q", "queries": ["q"], "pages": [], '
    with (root / "runs" / "a.json").open("w") as f:  # in parts: the file is 36 MB
        f.write(head + '"answer": "a", "results": [')
        f.write('{"url": 5}, ' * (3_000_000 - 1))
        f.write('{"url": 5}]}')
    code, said = check(["check", str(root), "--judge", "off"], capsys)
    assert code == 2
    assert "a.json: holds more than 1,000,000 objects and arrays (the limit)" in said
    assert len(said) < 400


def trace_with_bad_results(n: int) -> str:
    trace = json.loads(GOOD.read_text())
    trace["results"] = []
    return json.dumps(trace).replace('"results": []', '"results": [' + ('{"url": 5}, ' * n)[:-2] + "]", 1)


def test_schema_errors_stop_after_the_first_hundred(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "t.json"
    trace.write_text(trace_with_bad_results(200_000))
    code, said = check(["check", str(trace), "--judge", "off"], capsys)
    assert code == 2
    assert "t.json (case 'demo') at $.results[0].url: 5 is not of type 'string'" in said
    assert "(and more errors not shown: validation stopped after 100)" in said
    assert len(said) < 400


def test_a_few_schema_errors_are_counted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "t.json"
    trace.write_text(trace_with_bad_results(3))
    code, said = check(["check", str(trace), "--judge", "off"], capsys)
    assert code == 2
    assert "at $.results[0].url: 5 is not of type 'string' (expected type 'string') " \
           "(and 2 more errors not shown)" in said


def test_a_huge_value_is_quoted_as_a_short_excerpt(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = json.loads(GOOD.read_text())
    trace["answer"] = ["A" * 3_000_000 + "the end"]
    file = tmp_path / "t.json"
    file.write_text(json.dumps(trace))
    code, said = check(["check", str(file), "--judge", "off"], capsys)
    assert code == 2
    assert "t.json (case 'demo') at $.answer: ['AAAA" in said
    assert "characters left out]...AAA" in said and "AAAthe end'] is not of type 'string'" in said
    assert len(said) < 500


def test_a_huge_unknown_key_is_shortened_in_the_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = json.loads(GOOD.read_text())
    trace["agent"] = {"name": "x", "k" * 1_000_000: {"a": 1}}
    file = tmp_path / "t.json"
    file.write_text(json.dumps(trace))
    code, said = check(["check", str(file), "--judge", "off"], capsys)
    assert code == 2 and len(said) < 600


def test_a_json_integer_of_5000_digits_is_an_input_error(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    text = GOOD.read_text().replace('"position": 1', '"position": ' + "9" * 5000, 1)
    assert "9" * 5000 in text
    file = tmp_path / "t.json"
    file.write_text(text)
    code, said = check(["check", str(file), "--judge", "off"], capsys)
    assert code == 2
    assert "t.json: an integer has more than 4,300 digits (a number of 5,000 digits at line" in said
    assert "PYTHONINTMAXSTRDIGITS" in said


@pytest.mark.parametrize("depth", [5_000, 200_000])
def test_json_nested_past_the_interpreter_s_guard_is_an_input_error(depth: int, tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    file = tmp_path / "t.json"
    file.write_text('{"question": ' + "[" * depth + "]" * depth + "}")
    code, said = check(["check", str(file), "--judge", "off"], capsys)
    assert code == 2 and "nested too deeply" in said


def test_json_nested_past_the_interpreter_s_guard_says_where_it_passes_the_limit(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    file = tmp_path / "t.json"
    file.write_text('{\n  "question": "[[[ in a string do not count",\n  "answer": ' + "[" * 5_000 + "]" * 5_000 + "}")
    code, said = check(["check", str(file), "--judge", "off"], capsys)
    # the object is level 1, so the 100th bracket opens level 101: line 3, column 13 + 99
    assert code == 2 and "nested too deeply (arrays and objects inside one another; at most 100 levels) " \
        "at line 3, column 112" in said


def test_json_nested_past_the_limit_where_the_schema_allows_anything_is_an_input_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "example"
    shutil.copytree(EXAMPLE, root)
    [entry, *_] = sorted((root / "snapshot" / "search").iterdir())
    data = json.loads(entry.read_text())
    data["provider"] = "serpapi"
    deep: object = {}
    for _ in range(150):
        deep = {"a": deep}
    data["response"] = {"organic_results": [deep]}
    entry.write_text(json.dumps(data))
    code, said = check(["snapshot", "verify", str(root)], capsys)
    assert code == 2
    assert f"{entry.name} at $.response.organic_results[0]{'.a' * 97}: nested more than 100 levels deep" in said


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(gate.files.jsonio, "MAX_JSON_BYTES", 1000)
    file = tmp_path / "t.json"
    file.write_text(json.dumps({"question": "q" * 2000}))
    code, said = check(["check", str(file), "--judge", "off"], capsys)
    assert code == 2
    assert "t.json: is 2,016 bytes" in said and "over the limit of 1,000 bytes for a JSON file" in said
    assert "SOURCEGATE_MAX_JSON_BYTES" in said


def test_golden_yaml_has_its_own_size_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(gate.files.jsonio, "MAX_YAML_BYTES", 40)
    code, said = check(["check", str(golden_set(tmp_path)), "--judge", "off"], capsys)
    assert code == 2 and "over the limit of 40 bytes for a YAML file; raise it with SOURCEGATE_MAX_YAML_BYTES" in said


HUGE = 50_000_000_000
"""A limit far beyond the memory of any machine the tests run on: reading must not reserve it."""


@pytest.mark.parametrize("kind", ["JSON", "YAML"])
def test_a_small_file_under_a_huge_limit_costs_its_own_size(kind: str, tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gate.files.jsonio, f"MAX_{kind}_BYTES", HUGE)
    file = tmp_path / "t.json"
    text = json.dumps({"question": "q" * 200_000})
    file.write_text(text)
    tracemalloc.start()
    try:
        assert gate.files.jsonio.read_text(str(file), kind=kind) == text
        with gate.files.jsonio.open_json_text(str(file)) as f:
            assert f.read() == text
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * len(text)  # the bytes and the text of the file, not the limit


def test_a_check_under_a_huge_size_limit_runs(monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(gate.files.jsonio, "MAX_JSON_BYTES", HUGE)
    monkeypatch.setattr(gate.files.jsonio, "MAX_YAML_BYTES", HUGE)
    code, said = check(["check", str(GOOD), "--judge", "off"], capsys)
    assert code == 0, said


def test_a_pipe_is_read_up_to_the_limit_and_refused_past_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gate.files.jsonio, "MAX_JSON_BYTES", 100_000)
    for length, fits in ((100_000, True), (100_001, False), (300_000, False)):
        read, write = os.pipe()
        feeding = threading.Thread(target=_feed, args=(write, b"x" * length))
        feeding.start()
        try:
            if fits:
                assert len(gate.files.jsonio.read_text(f"/dev/fd/{read}")) == length
            else:
                with pytest.raises(InputError, match="over the limit of 100,000 bytes for a JSON file"):
                    gate.files.jsonio.read_text(f"/dev/fd/{read}")
        finally:
            os.close(read)
            feeding.join()


def _feed(fd: int, data: bytes) -> None:
    try:
        with open(fd, "wb") as f:
            f.write(data)
    except BrokenPipeError:  # the reader stopped at the limit
        pass


def test_a_file_that_grows_past_the_limit_after_its_size_was_taken_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gate.files.jsonio, "MAX_JSON_BYTES", 1000)
    file = tmp_path / "t.json"
    file.write_text("[" + "1," * 200 + "1]")
    with open(file, "rb") as f:  # fstat said 403 bytes; by the read it holds 2,403
        with open(file, "ab") as grow:
            grow.write(b" " * 2000)
        data, over = gate.files.jsonio._read_within(f, 403, 1000)
    assert over and len(data) == 1001
    file.write_text("[" + "1," * 200 + "1]")
    with (pytest.raises(InputError, match="over the limit of 1,000 bytes"),
          gate.files.jsonio.open_json_text(str(file)) as f):
        with open(file, "ab") as grow:
            grow.write(b" " * 2000)
        f.read()


@pytest.mark.parametrize(("value", "read"), [("123", 123), ("64_000", 64_000), ("", 7), ("-1", 7), ("lots", 7)])
def test_limits_are_raised_through_the_environment(value: str, read: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCEGATE_MAX_DEPTH", value)
    assert gate.files.jsonio._limit("SOURCEGATE_MAX_DEPTH", 7) == read


# -- a root for every read -------------------------------------------------------------------------


def refused(code: int, said: str, name: str) -> None:
    assert code == 2
    assert name in said and "is a link that leaves the golden set" in said
    assert SECRET not in said and "S3cr3t" not in said


def test_golden_yaml_linked_out_of_the_set_is_refused_unread(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    root = golden_set(tmp_path)
    (root / "golden.yaml").unlink()
    (root / "golden.yaml").symlink_to(secret_file(tmp_path))
    refused(*check(["check", str(root), "--judge", "off"], capsys), "golden.yaml")


def test_sourcegate_yaml_linked_out_of_the_set_is_refused_unread(tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    root = golden_set(tmp_path)
    (root / "sourcegate.yaml").symlink_to(secret_file(tmp_path))
    refused(*check(["check", str(root), "--judge", "off"], capsys), "sourcegate.yaml")


def test_a_config_given_on_the_command_line_is_the_user_s_choice(tmp_path: Path) -> None:
    config = secret_file(tmp_path, "checks: {domain_cap: 3}\n")
    assert main(["check", str(golden_set(tmp_path)), "--judge", "off", "--config", str(config)]) == 0


def test_a_run_linked_out_of_the_set_is_refused_unread(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = golden_set(tmp_path)
    (root / "runs" / "b.json").symlink_to(secret_file(tmp_path))
    refused(*check(["check", str(root), "--judge", "off"], capsys), "b.json")


def test_a_runs_folder_linked_out_of_the_set_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = golden_set(tmp_path)
    outside = secret_file(tmp_path).parent
    (outside / "a.json").write_text((root / "runs" / "a.json").read_text())
    shutil.rmtree(root / "runs")
    (root / "runs").symlink_to(outside)
    refused(*check(["check", str(root), "--judge", "off"], capsys), "runs")


def test_a_baseline_linked_out_of_the_set_is_refused_unread(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    root = golden_set(tmp_path)
    (root / "baseline.json").symlink_to(secret_file(tmp_path))
    refused(*check(["check", str(root), "--judge", "off"], capsys), "baseline.json")


def test_a_judgement_linked_out_of_the_set_is_refused_unread(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "example"
    shutil.copytree(EXAMPLE, root, ignore=shutil.ignore_patterns("baseline.json"))
    outside = secret_file(tmp_path)
    for entry in (root / "judgements").iterdir():
        entry.unlink()
        entry.symlink_to(outside)
    refused(*check(["check", str(root), "--judge", "replay"], capsys), "judgements")


def test_a_snapshot_entry_linked_out_of_the_set_is_refused_unread(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "example"
    shutil.copytree(EXAMPLE, root)
    [entry, *_] = sorted((root / "snapshot" / "pages").iterdir())
    entry.unlink()
    entry.symlink_to(secret_file(tmp_path))
    refused(*check(["snapshot", "verify", str(root)], capsys), entry.name)


def test_links_that_stay_inside_the_set_are_followed(tmp_path: Path) -> None:
    root = golden_set(tmp_path)
    (root / "sets").mkdir()
    (root / "golden.yaml").rename(root / "sets" / "golden-v2.yaml")
    (root / "golden.yaml").symlink_to(Path("sets") / "golden-v2.yaml")
    (root / "runs").rename(root / "traces")
    (root / "runs").symlink_to("traces")
    (root / "traces" / "a.json").rename(root / "sets" / "a.json")
    (root / "traces" / "a.json").symlink_to(root / "sets" / "a.json")
    (root / "sets" / "config.yaml").write_text("checks: {domain_cap: 3}\n")
    (root / "sourcegate.yaml").symlink_to(Path("sets") / "config.yaml")
    out = tmp_path / "r.json"
    assert main(["check", str(root), "--judge", "off", "--json", str(out)]) == 0
    assert json.loads(out.read_text())["cases"][0]["id"] == "a"


def test_a_golden_set_reached_through_a_link_is_read(tmp_path: Path) -> None:
    root = golden_set(tmp_path)
    (tmp_path / "alias").symlink_to(root)
    assert main(["check", str(tmp_path / "alias"), "--judge", "off", "--json", "-"]) == 0


def _with_lone_surrogates(trace: dict[str, Any]) -> dict[str, Any]:
    """The trace with a lone surrogate in every kind of text an agent records, cited URLs aside."""
    s = "\ud800"
    trace["question"] += s
    trace["queries"] = [q + s for q in trace["queries"]]
    for r in trace["results"]:
        r["title"] = r.get("title", "") + s
        r["snippet"] = r.get("snippet", "") + s
    for p in trace["pages"]:
        p["text"] += s
    for c in trace.get("citations", []):
        c["quote"] = "a sentence the page does not hold " + s  # quoted back in the failure's message
    trace["answer"] = s + trace["answer"]
    return trace


@pytest.mark.parametrize("shape", ["native", "minimal"])
def test_lone_surrogates_in_a_trace_read_as_u_fffd_in_every_report(shape: str, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """JSON may escape a lone surrogate ("\\ud800"); no UTF-8 report can hold one, so it reads as U+FFFD."""
    quoted = RUNS / "passage_missing" / "passes" / "quote-on-the-second-read-of-a-page.json"
    trace = _with_lone_surrogates(json.loads(quoted.read_text(encoding="utf-8")))
    if shape == "minimal":
        trace = {"question": trace["question"], "queries": trace["queries"], "answer": trace["answer"],
                 "results": [{"position": 1, "title": "t\ud800", "link": "https://a.example/", "description": "d"}],
                 "pages": {"https://a.example/\udfff": "text \udfff"}}
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(trace), encoding="utf-8")  # the escapes, as a hostile trace holds them
    assert "\\ud800" in path.read_text(encoding="utf-8")
    out = {kind: tmp_path / f"report.{kind}" for kind in ("json", "markdown", "junit")}
    code = main(["check", str(path), *(a for kind, file in out.items() for a in (f"--{kind}", str(file)))])
    printed = capsys.readouterr()
    assert code in (0, 1) and "internal error" not in printed.err
    texts = {kind: file.read_text(encoding="utf-8") for kind, file in out.items()}
    if shape == "native":
        assert all("does not hold \ufffd" in t for t in texts.values())
    assert not any("\ud800" in t or "\udfff" in t for t in [*texts.values(), printed.out, printed.err])
