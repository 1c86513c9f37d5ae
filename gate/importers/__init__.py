"""Importers: agent runs recorded in other shapes, converted to ``sourcegate-trace/1``.

    convert("anthropic", text_or_json, case="q7", question="...")  -> a trace dict (validated)

One module per format, each a class with ``id``, ``description`` and a pure ``convert(data,
ctx)``: data in (the file's text, or the JSON already parsed), trace out; nothing is fetched, read
or written. ``sourcegate import`` (:mod:`gate.commands.import_`) is the I/O around it. Modules
load on first use, so the CLI's parser stays cheap. What each format yields, and what its record
cannot show: docs/importers.md.
"""

from __future__ import annotations

import importlib
import typing

# id -> (module, class): the registry, in the order the CLI lists them
_FORMATS: dict[str, tuple[str, str]] = {
    "anthropic": ("gate.importers.anthropic", "AnthropicImporter"),
    "openai-responses": ("gate.importers.openai_responses", "OpenAIResponsesImporter"),
    "perplexity": ("gate.importers.perplexity", "PerplexityImporter"),
    "langfuse": ("gate.importers.langfuse", "LangfuseImporter"),
    "tavily-agent-log": ("gate.importers.tavily_log", "TavilyAgentLogImporter"),
    "otlp": ("gate.importers.otlp", "OtlpImporter"),
    "langsmith": ("gate.importers.langsmith", "LangSmithImporter"),
}

FORMATS: tuple[str, ...] = tuple(_FORMATS)
"""The format ids ``convert`` and ``sourcegate import`` accept."""


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

    if format not in _FORMATS:
        raise InputError(f"unknown import format {format!r} (expected one of {', '.join(FORMATS)})")
    module, name = _FORMATS[format]
    importer = getattr(importlib.import_module(module), name)()
    context = Context(source=source, case=case, question=question)
    trace: dict[str, typing.Any] = importer.convert(data, context)
    validate(trace, "trace", f"{source} (converted to {trace['format']})")
    return trace


__all__ = ["FORMATS", "convert"]
