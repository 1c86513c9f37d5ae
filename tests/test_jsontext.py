"""Indented JSON text: the standard library's, byte for byte, for every file sourcegate writes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gate.files.jsonio import dump_json
from gate.files.jsontext import indented
from tests.conftest import EXAMPLE
from tests.support.checked_once import checked


def _stdlib(data: Any) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False)


@pytest.mark.parametrize("data", [
    {}, [], (), "", 0, -1, 10**40, 1.0, -0.0, 1e300, 1.5e-7, 0.1, True, False, None,
    "é\u2028\"\\\n\t\x00 ü 😀", {"a": []}, [[], {}, ()], [[[[]]]], (1, (2, {"x": ()})),
    {"a": 1, "b": {"a": 2, "c": [True, None, "x", 2.5]}, "": {"": ""}},
    {"é": {"k\"ey": [{"url": None, "n": 3}]}},
])
def test_the_text_is_the_standard_librarys(data: Any) -> None:
    assert indented(data) == _stdlib(data)


@pytest.mark.parametrize("data", [
    {1: "int key"}, {None: 1, True: 2, 2.5: 3}, [float("nan")], {"a": float("inf")}, -float("inf"),
    {"a": {1, 2}}, {"a": object()}, [b"bytes"],
])
def test_what_only_the_standard_library_writes_it_writes_or_refuses_as_ever(data: Any) -> None:
    try:
        expected: object = _stdlib(data)
    except (TypeError, ValueError) as e:
        expected = (type(e), str(e))
    try:
        got: object = indented(data)
    except (TypeError, ValueError) as e:
        got = (type(e), str(e))
    assert got == expected


def test_a_cycle_is_refused_as_the_standard_library_refuses_it() -> None:
    loop: list[Any] = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        indented(loop)


def test_every_json_file_of_the_example_set_and_its_report_reads_back_the_same(tmp_path: Path) -> None:
    _, report, _ = checked(EXAMPLE, tmp_path)
    files = [report, *sorted(EXAMPLE.rglob("*.json"))]
    assert len(files) > 50
    for file in files:
        data = json.loads(file.read_text(encoding="utf-8"))
        assert dump_json(data) == _stdlib(data) + "\n", file
