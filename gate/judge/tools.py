"""The judge's three tools: a versioned prompt, a JSON Schema for the input, and validation.

Prompts are text files in ``gate/judge/prompts/`` named ``<tool>.v<N>.txt``; the version is part of
every cache key, so editing a prompt means adding ``v<N+1>`` and pointing the tool at it. Tool inputs
are checked against ``gate/schemas/judge-*.json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

from gate.files.jsonio import fits, json_path, schema, validator


@cache
def prompt_text(prompt_id: str) -> str:
    """The text of a bundled prompt, e.g. ``prompt_text("grade_claims.v1")``."""
    return resources.files("gate.judge").joinpath(f"prompts/{prompt_id}.txt").read_text(encoding="utf-8")


@dataclass(frozen=True)
class Tool:
    """One forced-tool-use call kind: its name, prompt version, description and input schema."""

    name: str
    prompt: str
    description: str
    schema_name: str

    @property
    def system(self) -> str:
        """The system prompt for this tool."""
        return prompt_text(self.prompt)

    @property
    def input_schema(self) -> dict[str, Any]:
        """The JSON Schema of the tool's input (without its ``$`` and title keys)."""
        full = schema(self.schema_name)
        return {k: v for k, v in full.items() if not k.startswith("$") and k not in ("title",)}

    def definition(self) -> dict[str, Any]:
        """Name, description and input schema (the Messages API's shape; also what cache keys hash)."""
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema}

    def errors(self, tool_input: Any) -> list[tuple[str, tuple[str | int, ...]]]:
        """Every schema violation as (message, path into the input); empty when the input is valid."""
        if fits(tool_input, self.schema_name):
            return []
        found = []
        for err in validator(self.schema_name).iter_errors(tool_input):
            where = json_path(err.absolute_path)
            found.append((f"{where}: {err.message}", tuple(err.absolute_path)))
        found.sort(key=lambda e: e[0])
        return found


EXTRACT_CLAIMS = Tool(
    name="extract_claims",
    prompt="extract_claims.v1",
    description="Record the atomic factual claims of the answer, each with the URLs it cites for it.",
    schema_name="judge-extract-claims",
)
GRADE_CLAIMS = Tool(
    name="grade_claims",
    prompt="grade_claims.v2",
    description="Record one verdict per claim, with a verbatim quote from the sources as evidence.",
    schema_name="judge-grade-claims",
)
ASSESS_RUN = Tool(
    name="assess_run",
    prompt="assess_run.v2",
    description="Record query scores, the relevance of the search results, the question's freshness regime "
                "and the type of each listed source.",
    schema_name="judge-assess-run",
)
TOOLS: Mapping[str, Tool] = {t.name: t for t in (EXTRACT_CLAIMS, GRADE_CLAIMS, ASSESS_RUN)}
