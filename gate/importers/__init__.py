"""Importers: agent runs recorded in other shapes, converted to ``sourcegate-trace/1``.

    convert("anthropic", text_or_json, case="q7", question="...")  -> a trace dict (validated)

One module per format, each a class with ``id``, ``description`` and a pure ``convert(data,
ctx)``: data in (the file's text, or the JSON already parsed), trace out; nothing is fetched, read
or written. The registry is :data:`gate.importers.registry.IMPORTERS` (one module and one line per
format), imported on first use so the CLI's parser stays cheap; :data:`FORMATS` names its ids.
``sourcegate import`` (:mod:`gate.commands.import_`) is the I/O around it. What each format yields,
and what its record cannot show: docs/importers.md.
"""

from __future__ import annotations

import typing

FORMATS: tuple[str, ...] = ("anthropic", "openai-responses", "perplexity", "langfuse", "tavily-agent-log", "otlp",
                            "langsmith")
"""The format ids ``convert`` and ``sourcegate import`` accept: the keys of
:data:`gate.importers.registry.IMPORTERS`, in its order (a test holds them equal)."""


def convert(format: str, data: typing.Any, *, case: str | None = None, question: str | None = None,
            source: str = "<input>") -> dict[str, typing.Any]:
    """Convert one recorded run to a ``sourcegate-trace/1`` dict, validated against its schema.

    ``data`` is the file's text or its parsed JSON; ``case`` and ``question`` override what the
    record holds (most API responses do not keep the question); ``source`` names the input in
    error messages. Raises :class:`gate.errors.InputError` (file and JSON path) on a wrong shape.
    """
    from gate.errors import InputError
    from gate.files.jsonio import validate
    from gate.importers.base import Context
    from gate.importers.registry import IMPORTERS

    if format not in IMPORTERS:
        raise InputError(f"unknown import format {format!r} (expected one of {', '.join(FORMATS)})")
    importer = IMPORTERS[format]
    context = Context(source=source, case=case, question=question)
    trace: dict[str, typing.Any] = importer.convert(data, context)
    validate(trace, "trace", f"{source} (converted to {trace['format']})")
    return trace


__all__ = ["FORMATS", "convert"]
