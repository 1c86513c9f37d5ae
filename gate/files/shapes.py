"""Shapes: the part of JSON Schema that sourcegate's formats use, compiled once into plain checks.

``jsonschema`` walks its schema again for every value: about a millisecond for one case of a
report, so that checking the cases of tens of thousands of runs would take longer than running
them. A shape is a schema compiled once into nested functions (``type``, ``enum``, ``const``,
``properties``, ``required``, ``additionalProperties``, ``items``, ``minItems``, ``maxItems``,
``uniqueItems``, ``minLength``, ``maxLength``, ``pattern``, ``minimum``, ``maximum``,
``exclusiveMinimum``, ``exclusiveMaximum``, ``allOf``, ``if``/``then``/``else``, local ``$ref``,
and ``format`` through a checker handed in) that check a value in one pass and raise
:class:`Mismatch` with the JSON path of the first value that does not fit and why.

A shape may be *closed*: every object with ``properties`` must then have exactly those keys, all
of them, except the ones named optional. That is what sourcegate writes, where the schema only
says what a reader must accept. A schema keyword outside the list above is refused when compiling
(``ValueError``), so a shape never lets through what its schema would refuse. Where a shape is
unsure it refuses: numbers are read as JSON spells them (an ``integer`` is a whole number without
a fraction, ``1`` and not ``1.0``; ``true`` is never a number), an ``enum`` of objects or arrays
is not matched, ``uniqueItems`` is checked on strings alone, and an ``if`` is compiled only when
its answer is exact (``properties``, ``required``, and a string ``const`` or ``enum``). A value
a shape refuses can therefore still be valid: :func:`gate.files.jsonio.validate` then asks the full
validator, which also words the error.

Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping
from typing import Any, Protocol

__all__ = ["Formats", "Mismatch", "Shape", "compile_shape"]

Shape = Callable[[Any], None]
"""Checks one value; raises :class:`Mismatch` when it does not fit."""


class Formats(Protocol):
    """What checks a ``format`` (jsonschema's ``FormatChecker`` is one)."""

    def conforms(self, instance: object, format: str) -> bool:  # noqa: A002 (jsonschema's own name)
        """Whether ``instance`` is of the format ``format``."""

_IGNORED = frozenset({"description", "title", "$comment", "examples", "default", "$defs", "$schema", "$id"})
"""Keywords that say nothing of the value (``$defs`` is reached through ``$ref``)."""
_TYPES: Mapping[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,),
    "null": (type(None),), "object": (dict,), "array": (list,),
}


class Mismatch(Exception):
    """A value that does not fit its shape: where (a JSON path as keys and indexes) and why."""

    def __init__(self, why: str, path: list[object] | None = None) -> None:
        super().__init__(why)
        self.why = why
        self.path: list[object] = path if path is not None else []


def compile_shape(schema: Mapping[str, Any], root: Mapping[str, Any] | None = None, *, closed: bool = False,
                  optional: Collection[str] = (), formats: Formats | None = None) -> Shape:
    """The check for ``schema`` (its ``$ref`` resolved in ``root``, by default the schema itself).

    ``closed``: objects with ``properties`` have exactly those keys, all present but ``optional``.
    ``formats``: what checks a ``format``; without it, a schema with a ``format`` is not compiled.
    """
    return _Compiler(root if root is not None else schema, closed, frozenset(optional), formats).shape(schema)


class _OneOf(frozenset[tuple[type, Any]]):
    """The values of an ``enum`` alone, as (type, value) pairs: checked inline by a container."""


_Node = Callable[[Any], None] | frozenset[type] | _OneOf
"""A shape, or what a container checks inline: the Python types of a ``type`` alone, or an ``enum``."""

_OBJECT = ("properties", "required", "additionalProperties")
_STRING = ("minLength", "maxLength", "pattern")
_ARRAY = ("items", "minItems", "maxItems", "uniqueItems")
_NUMBER = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
_COMPILED = frozenset({"type", "enum", "const", "allOf", "if", "then", "else", *_OBJECT, *_STRING, *_ARRAY,
                       *_NUMBER})


class _Compiler:
    def __init__(self, root: Mapping[str, Any], closed: bool, optional: frozenset[str],
                 formats: Formats | None) -> None:
        self.root, self.closed, self.optional, self.formats = root, closed, optional, formats
        self.resolving: set[str] = set()

    def shape(self, schema: Mapping[str, Any]) -> Shape:
        node = self.node(schema)
        return node if callable(node) else _inline(node)

    def node(self, schema: Mapping[str, Any] | bool) -> _Node:
        if isinstance(schema, bool):
            return _all(()) if schema else _never
        keys = set(schema) - _IGNORED
        if "$ref" in schema:
            if keys != {"$ref"}:
                raise ValueError(f"a $ref beside other keywords is not compiled: {sorted(keys)}")
            return self._ref(schema["$ref"])
        unknown = keys - _COMPILED - ({"format"} if self.formats is not None else set())
        if unknown:
            raise ValueError(f"schema keyword(s) not compiled: {', '.join(sorted(unknown))}")
        if keys == {"type"}:
            return _types(schema["type"])
        if keys in ({"enum"}, {"const"}):
            return _OneOf((type(v), v) for v in (schema["enum"] if "enum" in schema else [schema["const"]]))
        checks = [*self._scalar_checks(schema, keys), *self._container_checks(schema, keys)]
        return checks[0] if len(checks) == 1 else _all(tuple(checks))

    def _scalar_checks(self, schema: Mapping[str, Any], keys: set[str]) -> list[Shape]:
        """The checks of a value's type (other than object and array), enum, format, bounds and string."""
        checks: list[Shape] = []
        typed = schema.get("type")
        if typed is not None and typed not in ("object", "array"):
            checks.append(_inline(_types(typed)))
        if "enum" in schema or "const" in schema:
            checks.append(_inline(_OneOf((type(v), v) for v in (schema["enum"] if "enum" in schema
                                                                  else [schema["const"]]))))
        if "format" in schema and self.formats is not None:
            checks.append(_format(self.formats, schema["format"]))
        if keys & set(_NUMBER):
            checks.append(_bounds(schema.get("minimum"), schema.get("maximum"),
                                  schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")))
        if keys & set(_STRING):
            checks.append(_string(schema.get("minLength", 0), schema.get("maxLength"), schema.get("pattern")))
        return checks

    def _container_checks(self, schema: Mapping[str, Any], keys: set[str]) -> list[Shape]:
        """The checks of an object's properties, an array's items, ``allOf`` and ``if``/``then``/``else``."""
        checks: list[Shape] = []
        typed = schema.get("type")
        if typed == "object" or keys & set(_OBJECT):
            checks.append(self._object(schema, must=typed == "object"))
        if typed == "array" or keys & set(_ARRAY):
            checks.append(_items(self.node(schema.get("items", {})), must=typed == "array",
                                 low=schema.get("minItems", 0), high=schema.get("maxItems"),
                                 unique=schema.get("uniqueItems", False)))
        checks += [self.shape(s) for s in schema.get("allOf", ())]
        if "if" in schema:
            checks.append(_when(_condition(schema["if"]), self.shape(schema.get("then", {})),
                                self.shape(schema.get("else", {}))))
        return checks

    def _ref(self, ref: str) -> _Node:
        if ref in self.resolving:
            raise ValueError(f"a recursive $ref is not compiled: {ref}")
        self.resolving.add(ref)
        try:
            return self.node(self._resolve(ref))
        finally:
            self.resolving.discard(ref)

    def _resolve(self, ref: str) -> Mapping[str, Any]:
        if not ref.startswith("#/"):
            raise ValueError(f"{ref!r} is not compiled: only local $ref are")
        node: Any = self.root
        for part in ref[2:].split("/"):
            node = node[part]
        return node  # type: ignore[no-any-return]

    def _object(self, schema: Mapping[str, Any], must: bool) -> Shape:
        props = {k: self.node(v) for k, v in schema.get("properties", {}).items()}
        required = frozenset(schema.get("required", ()))
        extra_schema = schema.get("additionalProperties", True)
        extra: _Node | bool = extra_schema if isinstance(extra_schema, bool) else self.node(extra_schema)
        if self.closed and props:
            required, extra = required | (frozenset(props) - self.optional), False
        return _mapping(props, required, extra, must)


def _types(names: str | list[str]) -> frozenset[type]:
    return frozenset(t for n in ([names] if isinstance(names, str) else names) for t in _TYPES[n])


def _check(node: _Node, v: Any) -> None:
    """``v`` checked against ``node``: the one place inline nodes are read."""
    if isinstance(node, _OneOf):
        if type(v) in (dict, list) or (type(v), v) not in node:
            raise Mismatch("expected one of " + ", ".join(repr(x) for _, x in sorted(node, key=repr)))
    elif isinstance(node, frozenset):
        if type(v) not in node:
            raise Mismatch(f"expected {_names(node)}, not {_kind(v)}")  # type: ignore[arg-type]
    else:
        node(v)


def _fits(node: _Node, v: Any) -> bool:
    """Whether ``v`` fits ``node``; a shape that does not raises its :class:`Mismatch` (the fast path of
    :func:`_check`, which says why)."""
    kind = type(node)
    if kind is frozenset:
        return type(v) in node  # type: ignore[operator]
    if kind is _OneOf:
        return type(v) not in (dict, list) and (type(v), v) in node  # type: ignore[operator]
    node(v)  # type: ignore[operator]
    return True


def _inline(node: frozenset[type] | _OneOf) -> Shape:
    return lambda v: _check(node, v)


def _format(formats: Formats, name: str) -> Shape:
    def check(v: Any) -> None:
        if not formats.conforms(v, name):
            raise Mismatch(f"expected a {name}")
    return check


def _bounds(low: float | None, high: float | None, above: float | None = None,
            below: float | None = None) -> Shape:
    def check(v: Any) -> None:
        if type(v) not in (int, float):
            return
        if (low is not None and v < low) or (high is not None and v > high):
            raise Mismatch(f"expected a number from {low} to {high}" if low is not None and high is not None else
                           f"expected a number of at least {low}" if low is not None else
                           f"expected a number of at most {high}")
        if above is not None and v <= above:
            raise Mismatch(f"expected a number above {above}")
        if below is not None and v >= below:
            raise Mismatch(f"expected a number below {below}")
    return check


def _string(low: int, high: int | None, pattern: str | None) -> Shape:
    search = re.compile(pattern).search if pattern is not None else None  # JSON Schema's pattern is not anchored

    def check(v: Any) -> None:
        if type(v) is not str:
            return
        if len(v) < low:
            raise Mismatch(f"expected a string of at least {low} character{'s' if low != 1 else ''}")
        if high is not None and len(v) > high:
            raise Mismatch(f"expected a string of at most {high} characters")
        if search is not None and search(v) is None:
            raise Mismatch(f"expected a string matching {pattern!r}")
    return check


def _never(v: Any) -> None:
    raise Mismatch("no value is allowed here")


def _condition(schema: Mapping[str, Any] | bool) -> Callable[[Any], bool]:
    """An ``if`` as a predicate, compiled only when its answer is exact: a shape that refuses more
    than its schema would take the wrong branch."""
    if isinstance(schema, bool):
        return lambda v: schema
    keys = set(schema) - _IGNORED
    if keys - {"properties", "required"}:
        raise ValueError(f"an if with {', '.join(sorted(keys))} is not compiled")
    props = {k: _exact_strings(s) for k, s in schema.get("properties", {}).items()}
    required = frozenset(schema.get("required", ()))

    def holds(v: Any) -> bool:
        if type(v) is not dict:
            return True
        return v.keys() >= required and all(k not in v or (type(v[k]) is str and v[k] in ok)
                                            for k, ok in props.items())
    return holds


def _exact_strings(schema: Mapping[str, Any]) -> frozenset[str]:
    keys = set(schema) - _IGNORED
    values = [schema["const"]] if keys == {"const"} else schema["enum"] if keys == {"enum"} else None
    if values is None or not all(isinstance(x, str) for x in values):
        raise ValueError("an if's property is not compiled unless it is a string const or enum")
    return frozenset(values)


def _when(condition: Callable[[Any], bool], then: Shape, otherwise: Shape) -> Shape:
    return lambda v: then(v) if condition(v) else otherwise(v)


def _mapping(props: Mapping[str, _Node], required: frozenset[str], extra: _Node | bool, must: bool) -> Shape:
    def check(v: Any) -> None:
        if type(v) is not dict:
            if must:
                raise Mismatch(f"expected an object, not {_kind(v)}")
            return
        for key, value in v.items():
            inner = props.get(key, extra)
            if inner is True:
                continue
            if inner is False:
                raise Mismatch(f"unknown key {key!r} (known: {', '.join(props)})", [key])
            if type(inner) is frozenset and type(value) in inner:
                continue  # most values: a type alone, checked inline
            _check_at(inner, value, key)
        if not v.keys() >= required:
            raise Mismatch(f"missing the key {sorted(required - v.keys())[0]!r}")
    return check


def _items(inner: _Node, must: bool, low: int = 0, high: int | None = None, unique: bool = False) -> Shape:
    def check(v: Any) -> None:
        if type(v) is not list:
            if must:
                raise Mismatch(f"expected an array, not {_kind(v)}")
            return
        if len(v) < low:
            raise Mismatch(f"expected at least {low} item{'s' if low != 1 else ''}")
        if high is not None and len(v) > high:
            raise Mismatch(f"expected at most {high} items")
        if unique and len(set(x for x in v if type(x) is str)) != len(v):
            raise Mismatch("expected unique strings")  # other items are left to the full validator
        for i, item in enumerate(v):
            if type(inner) is frozenset and type(item) in inner:
                continue
            _check_at(inner, item, i)
    return check


def _check_at(inner: _Node, value: Any, step: object) -> None:
    """Check a member of an object or an array; a mismatch's path starts with ``step``, its key or index."""
    try:
        if not _fits(inner, value):
            _check(inner, value)
    except Mismatch as m:
        m.path.insert(0, step)
        raise


def _all(checks: tuple[Shape, ...]) -> Shape:
    def check(v: Any) -> None:
        for c in checks:
            c(v)
    return check


def _names(allowed: frozenset[type]) -> str:
    names = [n for n, ts in _TYPES.items() if set(ts) <= allowed]
    if "number" in names:
        names.remove("integer")
    return " or ".join(names)


def _kind(v: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null",
            int: "an integer", float: "a number with a fraction"}.get(type(v), type(v).__name__)
