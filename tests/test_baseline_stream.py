"""A baseline is read a case at a time (:mod:`gate.store.reportstream`), with the checks of a whole read.

Each case is cut to what the comparison reads as soon as it is parsed; a malformed or invalid case
is an input error naming the case by its place in the file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import gate.store.reportstream
from gate.errors import InputError
from gate.files.jsonio import load_json
from gate.store.baseline import for_comparison, parse_report, read_baseline
from gate.store.serialise import dump_report
from gate.verdict.report import Report
from tests.support.report_factory import regression_pair

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE_BASELINE = ROOT / "cached-snapshots" / "example" / "baseline.json"


@pytest.fixture(scope="module")
def whole_cut() -> Report:
    """The example baseline read whole, then cut for comparison."""
    return for_comparison(parse_report(load_json(str(EXAMPLE_BASELINE)), str(EXAMPLE_BASELINE)))


@pytest.mark.parametrize("chunk", [1 << 20, 7, 1])
def test_the_streamed_baseline_is_the_whole_read_cut_for_comparison(chunk: int, whole_cut: Report,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gate.store.reportstream, "TEXT_CHUNK", chunk)
    assert read_baseline(str(EXAMPLE_BASELINE)) == whole_cut


def test_whole_numbers_spelt_with_a_fraction_are_read_as_a_whole_read_reads_them(tmp_path: Path) -> None:
    """The schema takes ``1.0`` for an integer where the compiled check does not: its refusal is
    the schema's to confirm, and here the schema accepts, as a whole read does."""
    text = EXAMPLE_BASELINE.read_text(encoding="utf-8")
    spelt = text.replace('"version": 1\n', '"version": 1.0\n', 1).replace('"citations": 2,', '"citations": 2.0,', 1)
    assert spelt.count(".0\n") > text.count(".0\n") and spelt.count('"citations": 2.0,') == 1
    file = _baseline(tmp_path, spelt)
    assert read_baseline(file) == for_comparison(parse_report(load_json(file), file))


def test_what_the_comparison_reads_is_kept() -> None:
    base, _ = regression_pair()
    cut = for_comparison(base)
    for full, kept in zip(base.cases, cut.cases, strict=True):
        assert (kept.id, kept.hard_failures, kept.soft, kept.judgement) == (
            full.id, full.hard_failures, full.soft, full.judgement)
        assert kept.counts.retrieval_succeeded == full.counts.retrieval_succeeded


def _baseline(tmp_path: Path, text: str) -> str:
    file = tmp_path / "baseline.json"
    file.write_text(text, encoding="utf-8")
    return str(file)


def test_an_invalid_case_is_named_by_its_place(tmp_path: Path) -> None:
    base, _ = regression_pair()
    data = json.loads(dump_report(base))
    data["cases"][2]["id"] = 7
    with pytest.raises(InputError) as e:
        read_baseline(_baseline(tmp_path, json.dumps(data)))
    assert e.value.path == "$.cases[2].id"


def test_a_duplicate_key_in_a_case_is_refused(tmp_path: Path) -> None:
    text = dump_report(regression_pair()[0]).replace('"question": "', '"id": "x", "question": "', 1)
    with pytest.raises(InputError, match="duplicate key") as e:
        read_baseline(_baseline(tmp_path, text))
    assert (e.value.path or "").startswith("$.cases[0]")


@pytest.mark.parametrize("cut", [10, 200, -40, -2])
def test_a_truncated_baseline_is_an_input_error(cut: int, tmp_path: Path) -> None:
    text = dump_report(regression_pair()[0])
    with pytest.raises(InputError, match="malformed JSON|expected"):
        read_baseline(_baseline(tmp_path, text[:cut]))


def test_an_invalid_field_outside_the_cases_is_refused(tmp_path: Path) -> None:
    data = json.loads(dump_report(regression_pair()[0]))
    data["verdict"] = "maybe"
    with pytest.raises(InputError) as e:
        read_baseline(_baseline(tmp_path, json.dumps(data)))
    assert e.value.path == "$.verdict"


def test_nan_and_text_after_the_report_are_refused(tmp_path: Path) -> None:
    text = dump_report(regression_pair()[0])
    with pytest.raises(InputError, match="finite number"):
        read_baseline(_baseline(tmp_path, text.replace('"query_quality": 4.0', '"query_quality": NaN', 1)))
    with pytest.raises(InputError, match="text after the report"):
        read_baseline(_baseline(tmp_path, text + "{}"))


def test_a_top_level_key_that_is_not_plain_is_quoted_in_the_path(tmp_path: Path) -> None:
    text = dump_report(regression_pair()[0]).replace("{", '{"x\\n::error::r": NaN, ', 1)
    with pytest.raises(InputError, match="finite number") as e:
        read_baseline(_baseline(tmp_path, text))
    assert e.value.path == "$['x\\n::error::r']"
