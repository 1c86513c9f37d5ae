"""Strict reading of every file the gate touches, and the JSON text it writes.

Reading refuses what ``json`` and PyYAML let through silently: duplicate keys, NaN and
Infinity. Every error names the file, the JSON path and what was expected. Files are
written by :func:`gate.outputs.write_file`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from functools import cache
from importlib import resources
from typing import Any

import yaml
from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import ValidationError

from gate.errors import InputError


def json_path(parts: Iterable[object]) -> str:
    """``['results', 3, 'url']`` -> ``$.results[3].url``."""
    out = "$"
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


class _Duplicate(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for k, v in pairs:
        if k in obj:
            raise _Duplicate(k)
        obj[k] = v
    return obj


class _Pairs(list[tuple[str, Any]]):
    """A JSON object as the key-value pairs it was written with (duplicates kept)."""


def _duplicate_at(node: Any, parts: list[object]) -> str | None:
    """The JSON path of the first repeated key under ``node``, or None."""
    if isinstance(node, _Pairs):
        seen: set[str] = set()
        for key, value in node:
            if key in seen:
                return json_path([*parts, key])
            seen.add(key)
            found = _duplicate_at(value, [*parts, key])
            if found:
                return found
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found = _duplicate_at(value, [*parts, i])
            if found:
                return found
    return None


def _no_constant(file: str) -> Any:
    def hook(name: str) -> Any:
        raise InputError(f"{name} is not valid JSON (expected a finite number)", file=file)

    return hook


def parse_json(text: str, file: str) -> Any:
    """Parse JSON text strictly (no duplicate keys, no NaN/Infinity)."""
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant(file))
    except _Duplicate as d:
        # Rare, so the path is found by a second parse that keeps every pair, not on the hot path.
        where = _duplicate_at(json.loads(text, object_pairs_hook=_Pairs), [])
        raise InputError(f"duplicate key {d.key!r}", file=file, path=where) from None
    except json.JSONDecodeError as e:
        raise InputError(f"malformed JSON: {e.msg} (line {e.lineno}, column {e.colno})", file=file) from e
    except RecursionError:
        # json recurses once per nesting level; no sourcegate format comes near the interpreter's limit.
        raise InputError("malformed JSON: nested too deeply (arrays and objects inside one another)",
                         file=file) from None


# libyaml's parser when PyYAML was built with it: several times faster, and lighter on a large
# golden.yaml; the constructors below are the same either way.
_SafeLoader: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _StrictLoader(_SafeLoader):  # type: ignore[valid-type,misc]
    """SafeLoader that rejects duplicate keys and non-finite floats."""


_MERGE_TAG = "tag:yaml.org,2002:merge"


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    # flatten_mapping puts the pairs of "<<: *anchor" merges first; a key written in the mapping
    # itself overrides a merged one (YAML's merge rule). Only a key written twice is a duplicate.
    written = sum(1 for key_node, _ in node.value if key_node.tag != _MERGE_TAG)
    loader.flatten_mapping(node)
    merged = len(node.value) - written
    out: dict[Any, Any] = {}
    own: set[Any] = set()
    for i, (key_node, value_node) in enumerate(node.value):
        key = loader.construct_object(key_node, deep=True)
        line = key_node.start_mark.line + 1
        if not isinstance(key, str | int | float | bool | None):
            raise InputError(f"a mapping key must be a plain value, not a {_yaml_kind(key)} (line {line})",
                             file=getattr(loader, "_file", None))
        if i >= merged:
            if key in own:
                raise InputError(f"duplicate key {key!r} (line {line})", file=getattr(loader, "_file", None))
            own.add(key)
        out[key] = loader.construct_object(value_node, deep=True)
    return out


def _yaml_kind(value: object) -> str:
    if isinstance(value, list):
        return "list"
    return "mapping" if isinstance(value, dict) else type(value).__name__


def _construct_float(loader: _StrictLoader, node: yaml.ScalarNode) -> float:
    value = yaml.SafeLoader.construct_yaml_float(loader, node)
    if not math.isfinite(value):
        line = node.start_mark.line + 1
        raise InputError(f"{node.value} is not allowed (expected a finite number, line {line})",
                         file=getattr(loader, "_file", None))
    return value


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_StrictLoader.add_constructor("tag:yaml.org,2002:float", _construct_float)
# Dates and times stay the strings they were written as: the schemas check them with "format",
# and an unquoted `snapshot_at: 2026-10-15T09:00:00Z` must read the same as a quoted one.
def _construct_timestamp(loader: _StrictLoader, node: yaml.ScalarNode) -> str:
    return str(loader.construct_scalar(node))


_StrictLoader.add_constructor("tag:yaml.org,2002:timestamp", _construct_timestamp)


def parse_yaml(text: str, file: str) -> Any:
    """Parse YAML strictly (safe types only, no duplicate keys, no .nan/.inf)."""
    loader = _StrictLoader(text)
    loader._file = file
    try:
        return loader.get_single_data()
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark
        where = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
        raise InputError(f"malformed YAML: {e.problem}{where}", file=file) from e
    except yaml.YAMLError as e:
        raise InputError(f"malformed YAML: {e}", file=file) from e
    finally:
        loader.dispose()


def read_text(file: str) -> str:
    """Read a UTF-8 file, as an input error when it is missing or not text."""
    try:
        with open(file, encoding="utf-8") as f:
            return f.read()
    except FileNotFoundError as e:
        raise InputError("no such file", file=file) from e
    except IsADirectoryError as e:
        raise InputError("is a directory, expected a file", file=file) from e
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 text ({e.reason} at byte {e.start})", file=file) from e
    except OSError as e:  # permissions, a dangling mount, ...: the file's problem, not a bug of ours
        raise InputError(f"cannot read it ({e.strerror or e})", file=file) from e


def load_json(file: str) -> Any:
    """Read and strictly parse a JSON file."""
    return parse_json(read_text(file), file)


def load_yaml(file: str) -> Any:
    """Read and strictly parse a YAML file."""
    return parse_yaml(read_text(file), file)


@cache
def schema(name: str) -> Mapping[str, Any]:
    """A bundled JSON Schema by file stem, e.g. ``schema("trace")``."""
    text = resources.files("gate.schemas").joinpath(f"{name}.json").read_text(encoding="utf-8")
    loaded: Mapping[str, Any] = json.loads(text)
    return loaded


# RFC 3339 section 5.6: a full date, "T", a time and a zone ("Z" or an offset); "t" and "z" may be
# lower case. Python's fromisoformat accepts much more (no zone, a bare date, week dates), so the
# shape is checked first and fromisoformat only checks the ranges.
_RFC3339 = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})", re.ASCII | re.IGNORECASE)


def parse_time(value: str) -> datetime:
    """An RFC 3339 date-time (always with a zone) as an aware datetime; ValueError for anything else."""
    if not _RFC3339.fullmatch(value):
        raise ValueError(f"{value!r} is not an RFC 3339 date-time with a time zone")
    return datetime.fromisoformat(value.upper())


# jsonschema checks "date-time" only when the optional rfc3339-validator package is installed; without
# it every string passed, and a trace's "started_at": "yesterday" reached the code as a crash. The
# format is checked here, by the same function the loaders parse with.
_FORMAT_CHECKER = FormatChecker(Draft202012Validator.FORMAT_CHECKER.checkers)


@_FORMAT_CHECKER.checks("date-time", raises=ValueError)
def _is_date_time(value: object) -> bool:
    return not isinstance(value, str) or bool(parse_time(value))


@cache
def validator(name: str) -> Draft202012Validator:
    """A compiled validator for a bundled schema (built once a process)."""
    return Draft202012Validator(schema(name), format_checker=_FORMAT_CHECKER)


def _describe(err: ValidationError) -> str:
    if err.validator == "format" and err.validator_value == "date-time":
        return f"{err.message} (expected an RFC 3339 date-time with a time zone, e.g. 2026-10-15T09:00:00Z)"
    if err.validator == "additionalProperties":
        return f"{err.message} (unknown keys are not allowed)"
    if err.validator in ("type", "enum", "const", "required", "pattern", "format", "minimum", "maximum",
                         "minLength", "minItems"):
        return f"{err.message} (expected {err.validator} {err.validator_value!r})"
    return err.message


def _document_order(path: Iterable[object]) -> list[tuple[int, int, str]]:
    """A sort key that puts ``$.results[2]`` before ``$.results[10]`` (indexes compare as numbers)."""
    return [(0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in path]


def validate(data: Any, schema_name: str, file: str) -> None:
    """Validate against a bundled schema; the first error (by path) becomes an InputError."""
    errors = sorted(validator(schema_name).iter_errors(data), key=lambda e: _document_order(e.absolute_path))
    if errors:
        # The deepest error of the first failing branch says the most about what was expected.
        err = errors[0]
        if err.context:
            err = max(err.context, key=lambda e: len(e.absolute_path))
        raise InputError(_describe(err), file=file, path=json_path(err.absolute_path))


def write_atomic(file: str, text: str) -> None:
    """Write ``text`` to ``file`` the one safe way (:func:`gate.outputs.write_file`): atomic for a
    regular file, direct for a device or FIFO, through a symlink to its target."""
    from gate.outputs import write_file  # the writing side lives there; this name stays for its callers

    write_file(file, text)


def dump_json(data: Any) -> str:
    """Stable, readable JSON text (sorted keys are not used: the schema order reads better)."""
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
