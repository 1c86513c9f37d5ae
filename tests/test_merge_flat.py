"""The merge in flat memory: each partial report read a case at a time, each case's text kept as read
when it is the text sourcegate writes, the merged cases kept in a spill file in the run's order."""

from __future__ import annotations

import json
import os
import re
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import gate.store.casestore
from gate.cli import main
from gate.pipeline import MergeRequest, merged_report
from gate.results import CHECK_ERROR
from gate.store.casestore import CaseStore, Spill
from gate.store.merge import _as_written
from gate.store.reportstream import read_report_items
from gate.store.serialise import case_record
from gate.verdict.tally import tally
from tests.conftest import EXAMPLE
from tests.support.checked_once import checked, merged_shards, shards
from tests.support.report_factory import regression_report
from tests.test_shards import _read, _without_clock


@pytest.fixture
def temp_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The OS temp folder, for this test: where a spill file would be seen."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    return folder


@pytest.mark.parametrize("in_memory", [0, 100])
def test_a_spill_places_records_written_in_any_order(in_memory: int, temp_dir: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gate.store.casestore, "IN_MEMORY", in_memory)
    cases = tuple(regression_report().cases)
    spill = Spill()
    places = {c.id: spill.write(case_record(c)) for c in reversed(cases)}
    store = spill.store((places[c.id] for c in cases), tally(cases))
    assert store.spilled is (len(cases) > in_memory)
    assert tuple(store) == cases and store.tally == tally(cases)
    assert list(store.records()) == [case_record(c) for c in cases]
    assert os.listdir(temp_dir) == []  # the file has no name


def test_a_spill_writes_in_batches_and_reads_back_past_one(temp_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gate.store.casestore, "_BATCH", 10)
    cases = tuple(regression_report().cases)
    spill = Spill()
    places = [spill.write(case_record(c)) for c in cases]
    assert list(spill.store(places, tally(cases)).records()) == [case_record(c) for c in cases]


def test_a_large_merge_keeps_its_cases_in_a_spill_file_and_is_the_unsharded_report(
        tmp_path: Path, temp_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gate.store.casestore, "IN_MEMORY", 1)
    code, full, full_md = checked(EXAMPLE, tmp_path)
    files = shards(EXAMPLE, tmp_path, 4)
    merged, merged_md = tmp_path / "merged.json", tmp_path / "merged.md"
    assert main(["merge", str(EXAMPLE), *map(str, files), "--json", str(merged), "--markdown", str(merged_md)]) == code
    assert _without_clock(_read(merged)) == _without_clock(_read(full))
    assert merged_md.read_text(encoding="utf-8") == full_md.read_text(encoding="utf-8")
    assert os.listdir(temp_dir) == []


def _items(file: Path) -> list[tuple[Any, str]]:
    items: list[tuple[Any, str]] = []
    read_report_items(str(file), lambda d, text, i: items.append((d, text)))
    return items


def test_every_case_sourcegate_writes_is_kept_as_read(tmp_path: Path) -> None:
    items = [item for file in shards(EXAMPLE, tmp_path, 2) for item in _items(file)]
    assert items and all(_as_written(d, text) for d, text in items)
    assert any("judgement" in d for d, _ in items)


@pytest.mark.parametrize("change", [
    lambda t: t.replace('"id": ', '"id": "x",\n      "id": ', 1),  # a repeated key
    lambda t: t.replace('"question"', '"\\u0071uestion"', 1),  # another escape
    lambda t: t.replace("\n      ", "\n        "),  # another indentation
    lambda t: t.replace("\n    }", "}"),  # another last line
])
def test_a_case_in_another_text_is_not_kept_as_read(tmp_path: Path, change: Any) -> None:
    d, text = _items(shards(EXAMPLE, tmp_path, 2)[0])[0]
    other = change(text)
    assert other != text and _as_written(d, text)
    assert not _as_written(json.loads(other), other)


def test_numbers_spelt_otherwise_are_not_kept_as_read(tmp_path: Path) -> None:
    d, text = next((d, t) for file in shards(EXAMPLE, tmp_path, 2) for d, t in _items(file)
                   if any(isinstance(v, float) for v in d["soft"].values()))
    name, value = next((k, v) for k, v in d["soft"].items() if isinstance(v, float))
    spelt = f'"{name}": {value!r}'
    assert spelt in text
    other = text.replace(spelt, f'"{name}": {value!r}0', 1)
    assert not _as_written(json.loads(other), other)


@pytest.mark.parametrize(("change", "why"), [
    (lambda t: t.replace('"id": ', '"id": "x",\n      "id": ', 1), "duplicate key"),
    (lambda t: t.replace('"citations": ', '"citations": NaN, "x": ', 1), "NaN is not valid JSON"),
])
def test_a_case_text_a_strict_read_refuses_is_refused_with_its_path(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Any, why: str) -> None:
    files = shards(EXAMPLE, tmp_path, 2)
    text = files[1].read_text(encoding="utf-8")
    files[1].write_text(change(text), encoding="utf-8")
    out = tmp_path / "merged.json"
    assert main(["merge", str(EXAMPLE), *map(str, files), "--json", str(out)]) == 2
    assert not out.exists()
    err = capsys.readouterr().err
    assert why in err and "$.cases[0]" in err and files[1].name in err


@pytest.mark.parametrize("indent", [None, 4])
def test_a_partial_report_written_by_another_tool_merges_into_the_same_report(tmp_path: Path,
                                                                              indent: int | None) -> None:
    files = shards(EXAMPLE, tmp_path, 2)
    out = tmp_path / "merged.json"
    code, text = merged_shards(EXAMPLE, 2)
    expected = _AGE.sub("", text)
    files[0].write_text(json.dumps(_read(files[0]), indent=indent, ensure_ascii=True), encoding="utf-8")
    assert main(["merge", str(EXAMPLE), *map(str, files), "--json", str(out)]) == code
    assert _AGE.sub("", out.read_text(encoding="utf-8")) == expected


_AGE = re.compile(r'"age_days": [^,\n]*')
"""The baseline's age, read off the clock."""


def test_a_merged_report_counts_from_its_tally(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gate.store.casestore, "IN_MEMORY", 1)
    files = shards(EXAMPLE, tmp_path, 2)
    report = merged_report(MergeRequest(str(EXAMPLE), tuple(map(str, files))), now=datetime.now(UTC))
    assert isinstance(report.cases, CaseStore) and report.cases.spilled
    assert report.hard_failure_count == sum(len(c.hard_failures) for c in report.cases)
    assert report.check_errors == tuple(f for c in report.cases for f in c.hard_failures if f.check == CHECK_ERROR)
