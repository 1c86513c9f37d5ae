"""Validation through compiled shapes: what a shape accepts, jsonschema accepts too.

``gate.files.jsonio.validate`` trusts a schema's compiled shape when it accepts a value and asks
jsonschema otherwise. These tests take real documents of every format, break them in many ways,
and check that no broken document gets past a shape that jsonschema would refuse.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from gate.errors import InputError
from gate.files.jsonio import fits, shape_of, validate, validator
from tests.conftest import EXAMPLE

GOLDEN = Path(__file__).parent / "golden"
_SNAPSHOT = EXAMPLE / "snapshot"


def _first(folder: Path) -> Any:
    return json.loads(sorted(folder.glob("*.json"))[0].read_text(encoding="utf-8"))


def _tool_input(tool: str) -> Any:
    """The input of the first cached judge call of ``tool``: what a model answered."""
    for file in sorted((EXAMPLE / "judgements").glob("*.json")):
        entry = json.loads(file.read_text(encoding="utf-8"))
        if entry["tool"] == tool:
            return entry["input"]
    raise AssertionError(f"no cached {tool} call in the example set")


def _report() -> Any:
    report = json.loads((GOLDEN / "report_regression.json").read_text(encoding="utf-8"))
    return {**report, "cases": report["cases"][:1]}  # one case (with every block): a fraction of the copying


DOCUMENTS: dict[str, Any] = {
    "trace": json.loads((EXAMPLE / "runs" / "ecb-deposit-rate-now.json").read_text(encoding="utf-8")),
    "golden": yaml.safe_load((EXAMPLE / "golden.yaml").read_text(encoding="utf-8")),
    "report": _report(),
    "judge-cache": _first(EXAMPLE / "judgements"),
    "snapshot-search": _first(_SNAPSHOT / "search"),
    "snapshot-page": _first(_SNAPSHOT / "pages"),
    "snapshot-extraction": _first(_SNAPSHOT / "extractions"),
    "judge-extract-claims": _tool_input("extract_claims"),
    "judge-grade-claims": _tool_input("grade_claims"),
    "judge-assess-run": _tool_input("assess_run"),
}
#: Values put in place of a value: every JSON type, and the edges the schemas draw.
_STAND_INS: list[Any] = [None, True, False, 0, -1, 1.0, 1.5, 10**6, "", "x", "not a date", "2026-02-30",
                         "2026-10-15T09:00:00Z", "2026-10-15", "trace", [], [1], ["a", "a"], {}, {"x": 1}]
_VARIANTS = 200
"""Broken copies tried per document (chosen with a fixed seed, so a failure reproduces)."""


def _places(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from _places(inner, (*path, key))
    elif isinstance(value, list):
        for i, inner in enumerate(value[:3]):
            yield from _places(inner, (*path, i))


def _broken(document: Any, places: list[tuple[Any, ...]], rng: random.Random) -> Any:
    """A copy of ``document`` with one value replaced, one key removed or one key added."""
    changed = json.loads(json.dumps(document))  # a deep copy, in C
    path = rng.choice(places)
    parent = changed
    for step in path[:-1]:
        parent = parent[step]
    how = rng.randrange(4)
    if how == 0 and isinstance(parent, dict):
        del parent[path[-1]]
    elif how == 1 and isinstance(parent[path[-1]], dict):
        parent[path[-1]]["unknown_key"] = 1
    else:
        parent[path[-1]] = copy.deepcopy(rng.choice(_STAND_INS))
    return changed


@pytest.mark.parametrize("name", sorted(DOCUMENTS))
def test_a_shape_never_accepts_what_jsonschema_refuses(name: str) -> None:
    document = DOCUMENTS[name]
    assert shape_of(name) is not None, f"the {name} schema no longer compiles into a shape"
    assert fits(document, name), "a real document fits its shape"
    rng = random.Random(name)
    places = list(_places(document))[1:]
    refused = 0
    asked: set[str] = set()
    for _ in range(_VARIANTS):
        broken = _broken(document, places, rng)
        if fits(broken, name):
            text = json.dumps(broken)
            if text not in asked:  # the same copy drawn again gets the same answer from jsonschema
                asked.add(text)
                assert validator(name).is_valid(broken), broken
        else:
            refused += 1
    assert refused > _VARIANTS // 4, "the broken copies exercise the shape's refusals"


def test_a_schema_with_a_keyword_shapes_do_not_compile_is_validated_by_jsonschema_alone() -> None:
    assert shape_of("config") is None  # propertyNames
    with pytest.raises(InputError, match="expected enum"):
        validate({"judge": {"mode": 1}}, "config", "sourcegate.yaml")


def test_what_a_shape_refuses_is_still_valid_when_jsonschema_accepts_it() -> None:
    """1.0 is an integer to JSON Schema, not to a shape: the document is valid all the same."""
    trace = copy.deepcopy(DOCUMENTS["report"])
    trace["cases"][0]["figures"]["citations"] = float(trace["cases"][0]["figures"]["citations"])
    assert not fits(trace, "report")
    validate(trace, "report", "report.json")


def test_an_error_is_worded_by_jsonschema_with_its_path() -> None:
    trace = copy.deepcopy(DOCUMENTS["trace"])
    trace["started_at"] = "yesterday"
    with pytest.raises(InputError) as e:
        validate(trace, "trace", "run.json")
    assert e.value.path == "$.started_at"
    assert "RFC 3339" in str(e.value)
