"""Shapes: a schema compiled once into plain checks, never accepting what the schema refuses."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from gate.cli import main
from gate.files.jsonio import schema
from gate.files.shapes import Mismatch, compile_shape
from tests.conftest import EXAMPLE

SCHEMA = {
    "type": "object",
    "required": ["id"],
    "properties": {
        "id": {"type": "string"},
        "count": {"type": "integer", "minimum": 0},
        "share": {"type": ["number", "null"], "maximum": 1},
        "status": {"enum": ["pass", "fail", None]},
        "tags": {"$ref": "#/$defs/strings"},
        "by_name": {"type": "object", "additionalProperties": {"type": "number"}},
        "items": {"type": "array", "items": {"type": "object", "required": ["k"],
                                             "properties": {"k": {"const": 1}}}},
    },
    "$defs": {"strings": {"type": "array", "items": {"type": "string"}}},
}


def _why(shape: Callable[[Any], None], value: Any) -> tuple[list[object], str]:
    with pytest.raises(Mismatch) as e:
        shape(value)
    return e.value.path, e.value.why


def test_a_value_that_fits_passes_and_one_that_does_not_is_named_by_its_path() -> None:
    shape = compile_shape(SCHEMA)
    shape({"id": "a", "count": 3, "share": None, "status": None, "tags": ["x"], "by_name": {"a": 1.5},
           "items": [{"k": 1}], "unknown": {"any": ["thing"]}})
    assert _why(shape, {"id": 1}) == (["id"], "expected string, not an integer")
    assert _why(shape, {"id": "a", "count": True}) == (["count"], "expected integer, not a boolean")
    assert _why(shape, {"id": "a", "count": 1.0}) == (["count"], "expected integer, not a number with a fraction")
    assert _why(shape, {"id": "a", "count": -1}) == (["count"], "expected a number of at least 0")
    assert _why(shape, {"id": "a", "share": 2}) == (["share"], "expected a number of at most 1")
    assert _why(shape, {"id": "a", "status": "ok"})[0] == ["status"]
    assert _why(shape, {"id": "a", "status": 0})[0] == ["status"]  # 0 is not None nor a string
    assert _why(shape, {"id": "a", "tags": ["x", 2]}) == (["tags", 1], "expected string, not an integer")
    assert _why(shape, {"id": "a", "by_name": {"b": "1"}}) == (["by_name", "b"], "expected number, not a string")
    assert _why(shape, {"id": "a", "items": [{"k": 1}, {"k": True}]})[0] == ["items", 1, "k"]
    assert _why(shape, {"id": "a", "items": [{}]}) == (["items", 0], "missing the key 'k'")
    assert _why(shape, {}) == ([], "missing the key 'id'")
    assert _why(shape, []) == ([], "expected an object, not an array")


def test_a_closed_shape_wants_every_key_it_knows_and_no_other() -> None:
    shape = compile_shape(SCHEMA, closed=True, optional={"share", "status", "by_name", "items", "tags"})
    shape({"id": "a", "count": 0})
    assert _why(shape, {"id": "a"}) == ([], "missing the key 'count'")
    assert _why(shape, {"id": "a", "count": 0, "more": 1})[0] == ["more"]
    assert _why(shape, {"id": "a", "count": 0, "items": [{"k": 1, "j": 2}]})[0] == ["items", 0, "j"]


@pytest.mark.parametrize("keyword", [{"propertyNames": {"pattern": "^a"}}, {"anyOf": [{"type": "string"}]},
                                     {"not": {"const": "a"}}, {"format": "date-time"}, {"$ref": "other.json#/x"},
                                     {"if": {"minLength": 2}}, {"if": {"properties": {"a": {"const": 1}}}}])
def test_a_keyword_it_does_not_compile_is_refused_when_compiling(keyword: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="not compiled"):
        compile_shape({"type": "string", **keyword} if "$ref" not in keyword else keyword)


def test_a_recursive_ref_is_refused_when_compiling() -> None:
    with pytest.raises(ValueError, match="recursive"):
        compile_shape({"$ref": "#/$defs/tree", "$defs": {"tree": {"type": "array", "items": {"$ref": "#/$defs/tree"}}}})


def test_strings_arrays_bounds_and_conditions() -> None:
    shape = compile_shape({
        "type": "object",
        "properties": {
            "name": {"type": "string", "minLength": 2, "maxLength": 4, "pattern": "^[a-z]"},
            "tags": {"type": "array", "minItems": 1, "maxItems": 2, "uniqueItems": True},
            "share": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
            "kind": {"type": "string"}, "body": {},
        },
        "allOf": [{"if": {"properties": {"kind": {"const": "list"}}, "required": ["kind"]},
                   "then": {"properties": {"body": {"type": "array"}}},
                   "else": {"properties": {"body": {"type": "string"}}}}],
    })
    shape({"name": "ab", "tags": ["a", "b"], "share": 0.5, "kind": "list", "body": []})
    shape({"body": "text"})
    assert _why(shape, {"name": "a"}) == (["name"], "expected a string of at least 2 characters")
    assert _why(shape, {"name": "abcde"}) == (["name"], "expected a string of at most 4 characters")
    assert _why(shape, {"name": "Ab"}) == (["name"], "expected a string matching '^[a-z]'")
    assert _why(shape, {"tags": []}) == (["tags"], "expected at least 1 item")
    assert _why(shape, {"tags": ["a", "b", "c"]}) == (["tags"], "expected at most 2 items")
    assert _why(shape, {"tags": ["a", "a"]}) == (["tags"], "expected unique strings")
    assert _why(shape, {"tags": [1]}) == (["tags"], "expected unique strings")  # left to the full validator
    assert _why(shape, {"share": 0}) == (["share"], "expected a number above 0")
    assert _why(shape, {"share": 1}) == (["share"], "expected a number below 1")
    assert _why(shape, {"kind": "list", "body": "text"}) == (["body"], "expected array, not a string")
    assert _why(shape, {"kind": "other", "body": []}) == (["body"], "expected string, not an array")
    assert _why(compile_shape({"items": False}), [1]) == ([0], "no value is allowed here")


_MUTATIONS: list[Callable[[dict[str, Any]], object]] = [
    lambda c: c.update(id=None), lambda c: c.update(question=[]), lambda c: c.update(notes="x"),
    lambda c: c["figures"].update(citations="1"), lambda c: c["figures"].update(results=1.5),
    lambda c: c["figures"].update(retrieval_succeeded=0), lambda c: c["soft"].update(x="y"),
    lambda c: c["axes"].update(x=1), lambda c: c.update(hard_failures=[{"check": "x"}]),
    lambda c: c["checks"].update(x={"status": "maybe"}), lambda c: c.update(warnings=[{"kind": "x", "message": ""}]),
    lambda c: c.update(regime=3), lambda c: c.update(judgement={"claims": []}),
    lambda c: c.update(judgement={"claims": [], "verdicts": [], "usage": {"calls": -1}}),
]


def test_the_report_case_shape_never_accepts_a_case_the_report_schema_refuses(tmp_path: Path) -> None:
    """Checked against jsonschema itself on every case of a real report and mutations of each."""
    report = tmp_path / "report.json"
    main(["check", str(EXAMPLE), "--json", str(report)])
    cases = json.loads(report.read_text(encoding="utf-8"))["cases"]
    full = schema("report")
    case_schema = {**full["properties"]["cases"]["items"], "$defs": full["$defs"]}
    shape = compile_shape(case_schema)
    validator = Draft202012Validator(case_schema)
    assert any("judgement" in c for c in cases)
    for case in cases:
        shape(case)
        for mutate in _MUTATIONS:
            changed = copy.deepcopy(case)
            mutate(changed)
            try:
                shape(changed)
            except Mismatch:
                continue
            assert validator.is_valid(changed), changed
