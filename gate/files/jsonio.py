"""Strict reading of every file the gate touches, and the JSON text it writes.

Reading refuses what ``json`` and PyYAML let through silently: duplicate keys, NaN and
Infinity. Every error names the file, the JSON path and what was expected. Files are
written by :func:`gate.files.outputs.write_file`.

Every file a pull request can change is hostile until read, so reading is bounded before any
expensive work: a size limit per kind of file, a nesting limit, a limit on the nodes a YAML file
expands to through its aliases, Python's limit on integer digits, and a schema validation that
stops after the first few errors and quotes no value longer than a short excerpt. Files of a
golden set are read through a root (:func:`inside`): a file whose real path leaves the set is
refused by name, never read. The limits are below; each can be raised through the environment
variable its docstring names (read once, when this module is imported). ``docs/trust.md`` lists
them.
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import stat
import sys
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from datetime import date, datetime
from functools import cache
from importlib import resources
from itertools import islice
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

import yaml

from gate.errors import InputError
from gate.files.digests import record_read
from gate.files.jsontext import indented
from gate.files.outputs import write_file
from gate.files.paths import real_is_below
from gate.files.shapes import Mismatch, Shape, compile_shape
from gate.text.suggest import did_you_mean

if TYPE_CHECKING:  # jsonschema is imported when a schema is first validated (see validator())
    from jsonschema import Draft202012Validator, FormatChecker
    from jsonschema.exceptions import ValidationError


def _limit(env: str, default: int) -> int:
    """A positive whole number from the environment variable ``env`` (``_`` allowed), else ``default``."""
    raw = os.environ.get(env, "").strip().replace("_", "")
    return int(raw) if raw.isdigit() and 0 < int(raw) < 10**18 else default


MAX_JSON_BYTES = _limit("SOURCEGATE_MAX_JSON_BYTES", 64 * 2**20)
"""Largest JSON file read (traces, reports and baselines, judge-cache and snapshot entries), in bytes:
64 MiB. Raise it with ``SOURCEGATE_MAX_JSON_BYTES``."""

MAX_YAML_BYTES = _limit("SOURCEGATE_MAX_YAML_BYTES", 16 * 2**20)
"""Largest YAML file read (``golden.yaml``, ``sourcegate.yaml``), in bytes: 16 MiB.
Raise it with ``SOURCEGATE_MAX_YAML_BYTES``."""

MAX_DEPTH = _limit("SOURCEGATE_MAX_DEPTH", 100)
"""Deepest nesting of arrays and objects (JSON) or sequences and mappings (YAML): 100 levels; no
sourcegate format needs more than about ten. Raise it with ``SOURCEGATE_MAX_DEPTH`` (JSON deeper
than the interpreter's recursion guard, about 1,000 levels, is refused whatever this says)."""

MAX_YAML_NODES = _limit("SOURCEGATE_MAX_YAML_NODES", 2_000_000)
"""Most nodes a YAML file may expand to, each alias counted as the whole node it repeats: two
million (a golden set of 100,000 cases has about a million). Raise it with
``SOURCEGATE_MAX_YAML_NODES``."""

MAX_JSON_CONTAINERS = _limit("SOURCEGATE_MAX_JSON_CONTAINERS", 1_000_000)
"""Most objects and arrays a JSON file may hold: a million (a report of 20,000 cases holds about
650,000). Each costs a few hundred bytes once parsed, so this bounds the memory a file can take;
it is counted on the text before parsing. Raise it with ``SOURCEGATE_MAX_JSON_CONTAINERS``."""

MAX_SCHEMA_ERRORS = _limit("SOURCEGATE_MAX_SCHEMA_ERRORS", 100)
"""Schema errors looked at before validation stops: the first (in document order among those) is
reported, the rest counted up to this number. Raise it with ``SOURCEGATE_MAX_SCHEMA_ERRORS``."""

EXCERPT_CHARS = 100
"""How much of a value an error message quotes, at most (the start and the end of it)."""


_PLAIN_KEY = re.compile(r"[A-Za-z0-9_-]+", re.ASCII)


def json_path(parts: Iterable[object]) -> str:
    """``['results', 3, 'url']`` -> ``$.results[3].url``; a key longer than an excerpt is shortened.

    A key of letters, digits, ``_`` and ``-`` follows a dot; any other is quoted in brackets as
    Python quotes it (``$.judge.prices['m\\n::error::p']``): a line break, a control character or
    a ``::`` in a key never shows raw, so no key can start a line of its own (a workflow command
    in CI) or change the terminal. Every path in an error message goes through this.
    """
    out = "$"
    for p in parts:
        if isinstance(p, int) and not isinstance(p, bool):
            out += f"[{p}]"
            continue
        key = excerpt(str(p))
        out += f".{key}" if _PLAIN_KEY.fullmatch(key) else f"[{key!r}]"
    return out


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    """``text``, or its start and end around a note of how much was left out when it is longer than ``limit``."""
    if len(text) <= limit:
        return text
    head = limit * 3 // 5
    tail = limit - head
    return f"{text[:head]}...[{len(text) - limit:,} characters left out]...{text[-tail:]}"


def inside(root: str, file: str) -> None:
    """Refuse ``file`` unless its real path stays inside ``root`` (symlinks within ``root`` are fine).

    Every read of a golden set's own files goes through this: a file (or a folder on its way) that
    is a link out of the set is an input error that names the file and never shows its content.
    """
    if not real_is_below(file, root):
        raise InputError(f"is a link that leaves the golden set {root} (its real path is outside it); "
                         "refusing to read it", file=file)


class _Duplicate(Exception):
    def __init__(self, key: str) -> None:
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)  # in C; a repeated key makes the dict shorter than the pairs
    if len(obj) != len(pairs):
        seen: set[str] = set()
        raise _Duplicate(next(k for k, _ in pairs if k in seen or seen.add(k)))  # type: ignore[func-returns-value]
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
    """Parse JSON text strictly (no duplicate keys, no NaN/Infinity, no integer over Python's digit limit).

    The nesting limit (:data:`MAX_DEPTH`) is checked by :func:`validate`, after the schema, so
    that a huge flat file that the schema refuses costs no walk of its own.
    """
    check_containers(text, file)
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant(file))
    except _Duplicate as d:
        # Rare, so the path is found by a second parse that keeps every pair, not on the hot path.
        try:
            where = _duplicate_at(json.loads(text, object_pairs_hook=_Pairs), [])
        except RecursionError:
            where = None
        raise InputError(f"duplicate key {excerpt(repr(d.key))}", file=file, path=where) from None
    except json.JSONDecodeError as e:
        raise InputError(f"malformed JSON: {e.msg} (line {e.lineno}, column {e.colno})", file=file) from e
    except RecursionError as e:
        # json recurses once per nesting level; no sourcegate format comes near the interpreter's limit.
        # Chained, so that a reader of a text inside a record can name the JSON path instead.
        raise InputError(f"{too_deeply_nested()}{_too_deep_at(text)}", file=file) from e
    except ValueError as e:  # int() refused a number of more digits than the interpreter converts
        raise InputError(_big_integer(text), file=file) from e


def parse_json_bounded(text: str, file: str) -> Any:
    """:func:`parse_json`, then the nesting limit: for JSON that no schema of ours checks.

    An importer's input, a search provider's answer or a model's tool arguments have no schema to
    validate first, so their depth is checked at once (naming the JSON path where it passes
    :data:`MAX_DEPTH`); beyond the interpreter's recursion guard the error names the line and column.
    """
    data = parse_json(text, file)
    check_depth(data, file)
    return data


# A string (its escapes included) or one bracket: the strings are skipped whole, in C.
_STRUCTURE = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]')


def too_deeply_nested() -> str:
    """What an error says of JSON nested past the interpreter's recursion guard (where, apart)."""
    return f"malformed JSON: nested too deeply (arrays and objects inside one another; at most {MAX_DEPTH} levels)"


def too_deep_offset(text: str) -> int | None:
    """The offset of the first ``[`` or ``{`` of ``text`` that opens level :data:`MAX_DEPTH` + 1, outside
    strings; None when the text is nested no deeper than that. For errors only: it walks the text."""
    depth = 0
    for found in _STRUCTURE.finditer(text):
        mark = text[found.start()]
        if mark in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return found.start()
        elif mark in "]}":
            depth -= 1
    return None


def _too_deep_at(text: str) -> str:
    """`` at line L, column C``: where the text passes the nesting limit (empty when it cannot tell)."""
    offset = too_deep_offset(text)
    if offset is None:
        return ""
    line = text.count("\n", 0, offset) + 1
    column = offset - text.rfind("\n", 0, offset)
    return f" at line {line}, column {column}"


_ESCAPES = re.compile(r'\\[\\"]')


def check_containers(text: str, file: str) -> None:
    """Refuse JSON of more than :data:`MAX_JSON_CONTAINERS` objects and arrays, before it is parsed.

    Counting brackets is a fast upper bound; only when it passes the limit are the strings (whose
    brackets do not count) taken out for the exact count.
    """
    if text.count("{") + text.count("[") <= MAX_JSON_CONTAINERS:
        return
    if _containers(text, MAX_JSON_CONTAINERS) > MAX_JSON_CONTAINERS:
        raise InputError(f"holds more than {MAX_JSON_CONTAINERS:,} objects and arrays (the limit); "
                         "raise it with SOURCEGATE_MAX_JSON_CONTAINERS if the file is meant to be this large",
                         file=file)


_CHUNK = 2**20
# Every byte but the quote and the two opening brackets: in UTF-8 no other character's bytes hold one.
_NOT_MARKS = bytes(b for b in range(256) if b not in b'"{[')


def _containers(text: str, enough: int) -> int:
    """The ``{`` and ``[`` of ``text`` outside its strings, a chunk at a time (memory stays small),
    counted until there are more than ``enough``.

    With escaped backslashes and quotes taken out, a quote always opens or closes a string, so
    the quotes counted so far say whether a chunk starts inside one. Of a chunk only its quotes and
    brackets are kept (as bytes, in C), with a quote in front when the last chunk left a string
    open. Two quotes in a row then go (without a pair of quotes before it, no bracket changes side):
    the few quotes left stand around the strings that hold brackets.
    """
    found, inside, carry = 0, False, ""
    for start in range(0, len(text), _CHUNK):
        piece = _ESCAPES.sub("", carry + text[start:start + _CHUNK])
        carry = ""
        if piece.endswith("\\"):  # an escape cut in two by the chunk: finish it with the next chunk
            piece, carry = piece[:-1], "\\"
        marks = (b'"' if inside else b"") + piece.encode("utf-8", "surrogatepass").translate(None, _NOT_MARKS)
        parts = marks.replace(b'""', b"").split(b'"')
        structure = b"".join(parts[0::2])  # the marks between strings
        found += structure.count(b"{") + structure.count(b"[")
        inside = len(parts) % 2 == 0  # an odd number of quotes left: a string is still open
        if found > enough:
            break
    return found


_LONG_NUMBER = re.compile(r"-?\d{200,}")


def _big_integer(text: str) -> str:
    limit = sys.get_int_max_str_digits()
    found = _LONG_NUMBER.search(text)
    where = ""
    if found:
        line = text.count("\n", 0, found.start()) + 1
        column = found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1
        where = f" (a number of {len(found.group().lstrip('-')):,} digits at line {line}, column {column})"
    return (f"an integer has more than {limit:,} digits{where}; raise the limit with "
            "PYTHONINTMAXSTRDIGITS if it is meant")


def _children(value: Any) -> Iterable[tuple[object, Any]]:
    if isinstance(value, dict):
        return value.items()
    return enumerate(value) if isinstance(value, list) else ()


_CONTAINERS = (dict, list)


def check_depth(data: Any, file: str, limit: int | None = None) -> None:
    """Refuse data nested more than ``limit`` (default :data:`MAX_DEPTH`) levels deep, naming where.

    Walks one level at a time and stops at the limit, so its work is bounded by the data's size.
    """
    limit = MAX_DEPTH if limit is None else limit
    level = [data] if isinstance(data, _CONTAINERS) else []
    for _ in range(limit):
        # A level holds containers only: a dict's values or a list's items (a tuple of types is
        # quicker to test than a union, and values() than items(): about twice as fast).
        level = [v for c in level for v in (c.values() if isinstance(c, dict) else c) if isinstance(v, _CONTAINERS)]
        if not level:
            return
    raise InputError(f"nested more than {limit} levels deep (arrays and objects inside one another); "
                     "raise the limit with SOURCEGATE_MAX_DEPTH", file=file, path=json_path(_deep_path(data, limit)))


def _deep_path(data: Any, limit: int) -> list[object]:
    """The path to the first container nested more than ``limit`` levels deep (only once one is known to be)."""
    stack: list[tuple[Any, list[object]]] = [(data, [])]
    while stack:
        value, parts = stack.pop()
        if len(parts) >= limit:
            return parts
        stack.extend((v, [*parts, k]) for k, v in reversed(list(_children(value))) if isinstance(v, dict | list))
    return []


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
                raise InputError(f"duplicate key {excerpt(repr(key))} (line {line})",
                                 file=getattr(loader, "_file", None))
            own.add(key)
        out[key] = loader.construct_object(value_node, deep=True)
    return out


def _yaml_kind(value: object) -> str:
    if isinstance(value, list):
        return "list"
    return "mapping" if isinstance(value, dict) else type(value).__name__


def _not_a(loader: _StrictLoader, node: yaml.ScalarNode, what: str) -> InputError:
    """A scalar that an explicit tag (``!!int "x"``) says is what it is not."""
    return InputError(f"{excerpt(repr(node.value))} is not {what} (line {node.start_mark.line + 1})",
                      file=getattr(loader, "_file", None))


def _construct_float(loader: _StrictLoader, node: yaml.ScalarNode) -> float:
    try:
        value = yaml.SafeLoader.construct_yaml_float(loader, node)
    except ValueError:
        raise _not_a(loader, node, "a number (tagged !!float)") from None
    if not math.isfinite(value):
        line = node.start_mark.line + 1
        shown = node.value if node.value.strip(".+-").isalpha() else excerpt(repr(node.value))
        raise InputError(f"{shown} is not allowed (expected a finite number, line {line})",
                         file=getattr(loader, "_file", None))
    return value


def _construct_bool(loader: _StrictLoader, node: yaml.ScalarNode) -> bool:
    try:
        value: bool = yaml.SafeLoader.construct_yaml_bool(loader, node)
    except KeyError:
        raise _not_a(loader, node, "a boolean (tagged !!bool)") from None
    return value


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_StrictLoader.add_constructor("tag:yaml.org,2002:float", _construct_float)
_StrictLoader.add_constructor("tag:yaml.org,2002:bool", _construct_bool)
# Dates and times stay the strings they were written as: the schemas check them with "format",
# and an unquoted `snapshot_at: 2026-10-15T09:00:00Z` must read the same as a quoted one.
def _construct_timestamp(loader: _StrictLoader, node: yaml.ScalarNode) -> str:
    return str(loader.construct_scalar(node))


_StrictLoader.add_constructor("tag:yaml.org,2002:timestamp", _construct_timestamp)


def _construct_int(loader: _StrictLoader, node: yaml.ScalarNode) -> int:
    limit = sys.get_int_max_str_digits()
    digits = sum(ch.isdigit() for ch in str(node.value)) if 0 < limit < len(node.value) else 0
    if digits > limit:
        raise InputError(f"an integer has {digits:,} digits, more than {sys.get_int_max_str_digits():,} "
                         f"(line {node.start_mark.line + 1}); raise the limit with PYTHONINTMAXSTRDIGITS if "
                         "it is meant", file=getattr(loader, "_file", None))
    try:
        value: int = yaml.SafeLoader.construct_yaml_int(loader, node)
    except ValueError:
        raise _not_a(loader, node, "an integer (tagged !!int)") from None
    return value


_StrictLoader.add_constructor("tag:yaml.org,2002:int", _construct_int)

_OPENS = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_CLOSES = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


def _line(event: yaml.Event) -> str:
    mark = event.start_mark
    return f" (line {mark.line + 1})" if mark is not None else ""


def _check_yaml_shape(text: str, file: str) -> None:
    """Refuse YAML nested deeper than :data:`MAX_DEPTH` or expanding to more than :data:`MAX_YAML_NODES`.

    One pass over the parser's events, before anything is built: every node counts one, every
    alias counts the nodes of what it repeats. An alias bomb (anchors of lists of aliases of
    lists ...) is a few hundred bytes that expand to billions of nodes; it stops here in
    milliseconds, at the line where the count passes the limit.
    """
    loader = _SafeLoader(text)
    sizes: dict[str, int] = {}
    counts = [0]  # nodes under each open collection, the document at the bottom
    anchors: list[str | None] = []
    total = 0
    try:
        while loader.check_event():
            event = loader.get_event()  # type: ignore[no-untyped-call]
            if isinstance(event, _OPENS):
                counts.append(1)
                total += 1
                anchors.append(event.anchor)
                if len(anchors) > MAX_DEPTH:
                    raise InputError(f"nested more than {MAX_DEPTH} levels deep{_line(event)}; "
                                     "raise the limit with SOURCEGATE_MAX_DEPTH", file=file)
                continue
            if isinstance(event, _CLOSES):
                n, anchor = counts.pop(), anchors.pop()
            elif isinstance(event, yaml.ScalarEvent):
                n, anchor = 1, event.anchor
                total += 1
            elif isinstance(event, yaml.AliasEvent):
                n, anchor = sizes.get(event.anchor or "", 1), None
                total += n
            else:
                continue
            if anchor is not None:
                sizes[anchor] = n
            counts[-1] += n
            if total > MAX_YAML_NODES:
                raise InputError(
                    f"expands to more than {MAX_YAML_NODES:,} nodes through its aliases (*name){_line(event)}; "
                    "raise the limit with SOURCEGATE_MAX_YAML_NODES", file=file)
    except yaml.YAMLError:
        return  # malformed: the strict loader below says where
    finally:
        loader.dispose()


def parse_yaml(text: str, file: str) -> Any:
    """Parse YAML strictly (safe types only, no duplicate keys, no .nan/.inf), within the limits above."""
    _check_yaml_shape(text, file)
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


def _over_limit(size: int, limit: int, kind: str, file: str) -> InputError:
    return InputError(f"is {size:,} bytes, over the limit of {limit:,} bytes for a {kind} file; raise it "
                      f"with SOURCEGATE_MAX_{kind}_BYTES if the file is meant to be this large", file=file)


@contextmanager
def reading(file: str) -> Iterator[None]:
    """Around reading ``file``: a missing file, a folder, text that is not UTF-8 or any other
    reason it cannot be read is an input error naming it (the file's problem, not a bug of ours)."""
    try:
        yield
    except FileNotFoundError as e:
        raise InputError("no such file", file=file) from e
    except IsADirectoryError as e:
        raise InputError("is a directory, expected a file", file=file) from e
    except UnicodeDecodeError as e:
        raise InputError(f"not UTF-8 text ({e.reason} at byte {e.start})", file=file) from e
    except OSError as e:  # permissions, a dangling mount, ...
        raise InputError(f"cannot read it ({e.strerror or e})", file=file) from e


_READ_CHUNK = 2**20
"""What a read of a pipe or device asks for at a time, and of a file that grew after its size was taken."""


def _read_within(f: BinaryIO, size: int, limit: int) -> tuple[bytes, bool]:
    """Everything ``f`` holds, reading no more than ``limit + 1`` bytes, and whether that was more than
    ``limit``. ``size`` is what fstat said (0 for a pipe or device).

    Memory follows what is read, never the limit: a regular file is read in one piece of its size
    plus one byte (a file that grew since fstat shows it), then on in chunks while it keeps growing;
    a pipe or device is read in chunks. Reading stops one byte past the limit either way."""
    first = f.read(min(size, limit) + 1) if size else b""
    if size and len(first) <= size:
        return first, False  # the common case: the whole file, in its own size
    parts = [first] if first else []
    got = len(first)
    while got <= limit:
        chunk = f.read(min(_READ_CHUNK, limit + 1 - got))
        if not chunk:
            break
        parts.append(chunk)
        got += len(chunk)
    return b"".join(parts), got > limit


class _Bounded(io.RawIOBase):
    """A binary file read through, refused (an :class:`InputError`) once more than ``limit`` bytes
    were read: a file that grows past the limit after its size was checked is still refused."""

    def __init__(self, f: io.BufferedReader, limit: int, kind: str, file: str) -> None:
        super().__init__()
        self._f, self._limit, self._kind, self._file = f, limit, kind, file
        self._got = 0

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        with memoryview(b) as view:
            n = self._f.readinto(view[:max(0, min(len(view), self._limit + 1 - self._got))]) or 0
        self._got += n
        if self._got > self._limit:
            raise _over_limit(self._got, self._limit, self._kind, self._file)
        return n


@contextmanager
def open_json_text(file: str) -> Iterator[TextIO]:
    """``file`` open as text (universal newlines) once its size is within :data:`MAX_JSON_BYTES`,
    every failure to read it an input error naming it (:func:`reading`). The size is taken from the
    open file, and reading past the limit is refused however the file changes meanwhile."""
    with reading(file), open(file, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size > MAX_JSON_BYTES:
            raise _over_limit(size, MAX_JSON_BYTES, "JSON", file)
        # a buffer of the file's size up to a chunk: a small file costs little, a large one few reads
        buffer = max(io.DEFAULT_BUFFER_SIZE, min(size + 1, _READ_CHUNK))
        bounded = io.BufferedReader(_Bounded(f, MAX_JSON_BYTES, "JSON", file), buffer)
        with io.TextIOWrapper(bounded, encoding="utf-8", newline=None) as text:
            yield text


def read_bytes(file: str, *, root: str | None = None, kind: str = "JSON") -> bytes:
    """The bytes of a file of at most :data:`MAX_JSON_BYTES` (``kind="YAML"``: :data:`MAX_YAML_BYTES`),
    as they are on disk (for a content hash: a git blob id).

    With ``root``, the file must stay inside it (:func:`inside`). A missing file, or one over the
    limit, is an input error; the size is checked before anything is read, and reading stops one
    byte past the limit (a pipe, or a file that grew meanwhile). Memory follows the file's size, not
    the limit (:func:`_read_within`).
    """
    limit = MAX_YAML_BYTES if kind == "YAML" else MAX_JSON_BYTES
    if root is not None:
        inside(root, file)
    with reading(file), open(file, "rb") as f:
        st = os.fstat(f.fileno())
        size = st.st_size if stat.S_ISREG(st.st_mode) else 0  # a pipe or device: read in chunks
        if size > limit:
            raise _over_limit(size, limit, kind, file)
        data, over = _read_within(f, size, limit)
    if over:
        raise _over_limit(len(data), limit, kind, file)
    if stat.S_ISREG(st.st_mode) and len(data) == size:
        record_read(st, data)
    return data


def decode_text(data: bytes, file: str) -> str:
    """``data`` read from ``file`` as UTF-8 text with universal newlines, as :func:`read_text` reads it
    (text that is not UTF-8 is an input error naming the file)."""
    with reading(file):
        text = data.decode("utf-8")
    return _universal_newlines(text)


def _universal_newlines(text: str) -> str:
    """Line ends as text mode reads them."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def read_text(file: str, *, root: str | None = None, kind: str = "JSON") -> str:
    """Read a UTF-8 file of at most :data:`MAX_JSON_BYTES` (``kind="YAML"``: :data:`MAX_YAML_BYTES`).

    Bounded as :func:`read_bytes` reads; text that is not UTF-8 is an input error too.
    """
    data = read_bytes(file, root=root, kind=kind)
    with reading(file):
        text = data.decode("utf-8")
    del data  # the bytes go before the newlines are translated: memory follows one copy of the text
    return _universal_newlines(text)


def load_json(file: str, *, root: str | None = None) -> Any:
    """Read and strictly parse a JSON file (inside ``root``, when given)."""
    return parse_json(read_text(file, root=root), file)


def load_yaml(file: str, *, root: str | None = None) -> Any:
    """Read and strictly parse a YAML file (inside ``root``, when given)."""
    return parse_yaml(read_text(file, root=root, kind="YAML"), file)


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
def _is_date_time(value: object) -> bool:
    return not isinstance(value, str) or bool(parse_time(value))


@cache
def _format_checker() -> FormatChecker:
    """jsonschema's format checks, with "date-time" checked by :func:`parse_time` (built once a process)."""
    from jsonschema import Draft202012Validator, FormatChecker

    checker = FormatChecker(Draft202012Validator.FORMAT_CHECKER.checkers)
    checker.checks("date-time", raises=ValueError)(_is_date_time)
    return checker


@cache
def validator(name: str) -> Draft202012Validator:
    """A compiled validator for a bundled schema (built once a process).

    jsonschema is imported here, not with this module: it is a tenth of the CLI's start-up, and
    commands that validate nothing (``--help``, ``--version``, reading a report) never need it.
    """
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema(name), format_checker=_format_checker())


def _describe(err: ValidationError) -> str:
    # jsonschema's message starts with the value's repr, which may be megabytes: quote an excerpt.
    message = excerpt(err.message, 2 * EXCERPT_CHARS)
    if err.validator == "format" and err.validator_value == "date-time":
        return f"{message} (expected an RFC 3339 date-time with a time zone, e.g. 2026-10-15T09:00:00Z)"
    if err.validator == "additionalProperties":
        return f"{message} (unknown keys are not allowed)"
    if err.validator in ("type", "enum", "const", "required", "pattern", "format", "minimum", "maximum",
                         "minLength", "minItems"):
        return f"{message} (expected {err.validator} {excerpt(repr(err.validator_value))})"
    return message


def _document_order(path: Iterable[object]) -> list[tuple[int, int, str]]:
    """A sort key that puts ``$.results[2]`` before ``$.results[10]`` (indexes compare as numbers)."""
    return [(0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in path]


class _Formats:
    """The formats sourcegate's schemas use, checked as :func:`_format_checker` checks them, without
    importing jsonschema. Another format is "not sure" (False), which sends the value to jsonschema."""

    _DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)

    def conforms(self, instance: object, format: str) -> bool:  # noqa: A002 (the protocol's name)
        if not isinstance(instance, str):
            return True
        try:
            if format == "date-time":
                return bool(parse_time(instance))
            if format == "date":  # jsonschema's own check for "date"
                return bool(self._DATE.fullmatch(instance) and date.fromisoformat(instance))
        except ValueError:
            return False
        return False


@cache
def shape_of(name: str) -> Shape | None:
    """A bundled schema compiled into a shape (:mod:`gate.files.shapes`), or None when it uses a keyword
    shapes do not compile (built once a process)."""
    try:
        return compile_shape(schema(name), formats=_Formats())
    except ValueError:
        return None


def fits(data: Any, schema_name: str) -> bool:
    """Whether ``data`` fits the schema's compiled shape, much faster than jsonschema can tell. A shape
    never accepts what its schema refuses; what it refuses goes to jsonschema, which says why."""
    shape = shape_of(schema_name)
    if shape is None:
        return False
    try:
        shape(data)
    except Mismatch:
        return False
    except RecursionError:  # nesting deeper than the interpreter's stack: check_depth words it
        return False
    return True


def validate(data: Any, schema_name: str, file: str) -> None:
    """Validate against a bundled schema, then the nesting limit; the first error becomes an InputError.

    A value that fits the schema's compiled shape is valid; anything else is validated by
    jsonschema. Its errors are produced lazily and validation stops after
    :data:`MAX_SCHEMA_ERRORS`, so a file of millions of errors costs no more than one of a hundred.
    The first error by document order among those is reported, with how many more were found (or
    that counting stopped).
    """
    if fits(data, schema_name):
        check_depth(data, file)
        return
    # At one place, a misspelt key first: "unknown key 'questoin' (did you mean 'question'?)" explains
    # the "'question' is a required property" beside it.
    errors = sorted(islice(validator(schema_name).iter_errors(data), MAX_SCHEMA_ERRORS + 1),
                    key=lambda e: (_document_order(e.absolute_path), e.validator != "additionalProperties"))
    if errors:
        # The deepest error of the first failing branch says the most about what was expected.
        err = errors[0]
        if err.context:
            err = max(err.context, key=lambda e: len(e.absolute_path))
        path, message = (_unknown_keys(err) or [(json_path(err.absolute_path), _describe(err))])[0]
        if len(errors) > MAX_SCHEMA_ERRORS:
            message += f" (and more errors not shown: validation stopped after {MAX_SCHEMA_ERRORS})"
        elif len(errors) > 1:
            message += f" (and {len(errors) - 1} more {'error' if len(errors) == 2 else 'errors'} not shown)"
        raise InputError(message, file=file, path=path)
    check_depth(data, file)


def schema_errors(data: Any, schema_name: str, limit: int) -> tuple[list[tuple[str, str]], bool]:
    """Up to ``limit`` schema errors as (JSON path, what is wrong), in document order, and whether there
    were more. Lazy like :func:`validate`: a hostile file costs no more than ``limit + 1`` errors."""
    found = sorted(islice(validator(schema_name).iter_errors(data), limit + 1),
                   key=lambda e: _document_order(e.absolute_path))
    out: list[tuple[str, str]] = []
    for err in found[:limit]:
        if err.context:  # the deepest error of a failing branch says the most about what was expected
            err = max(err.context, key=lambda e: len(e.absolute_path))
        out += _unknown_keys(err) or [(json_path(err.absolute_path), _describe(err))]
    return out[:limit], len(found) > limit or len(out) > limit


def _unknown_keys(err: ValidationError) -> list[tuple[str, str]]:
    """One error per unknown key, at the key's own path, with the closest known key when one is close."""
    known = err.schema.get("properties") if isinstance(err.schema, Mapping) else None
    if err.validator != "additionalProperties" or not isinstance(err.instance, Mapping) or not known:
        return []
    if isinstance(err.schema, Mapping) and "patternProperties" in err.schema:
        return []
    return [(json_path([*err.absolute_path, str(key)]),
             f"unknown key {excerpt(repr(key))}{_known(str(key), known)}")
            for key in err.instance if key not in known]


def _known(key: str, known: Iterable[str]) -> str:
    """`` (did you mean 'floor'?)``, else the list of known keys (the schema's own names, never the input's)."""
    return did_you_mean(key[:2 * EXCERPT_CHARS], known) or f" (known: {', '.join(known)})"


def write_atomic(file: str, text: str) -> None:
    """Write ``text`` to ``file`` the one safe way (:func:`gate.files.outputs.write_file`): atomic for a
    regular file, direct for a device or FIFO, through a symlink to its target."""
    write_file(file, text)


def dump_json(data: Any) -> str:
    """Stable, readable JSON text (sorted keys are not used: the schema order reads better): the
    standard library's ``indent=2`` text, written three times as fast (:mod:`gate.files.jsontext`)."""
    return indented(data) + "\n"
