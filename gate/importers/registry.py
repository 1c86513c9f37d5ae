"""The importers by format id, in the order the CLI lists them: one module per format, one line here.

:mod:`gate.importers` names the ids (:data:`gate.importers.FORMATS`) without importing this module,
so the command line's parser stays cheap; :func:`gate.importers.convert` imports it on first use.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from gate.importers.anthropic import AnthropicImporter
from gate.importers.base import Importer
from gate.importers.langfuse import LangfuseImporter
from gate.importers.langsmith import LangSmithImporter
from gate.importers.openai_responses import OpenAIResponsesImporter
from gate.importers.otlp import OtlpImporter
from gate.importers.perplexity import PerplexityImporter
from gate.importers.tavily_log import TavilyAgentLogImporter

__all__ = ["IMPORTERS"]

IMPORTERS: Mapping[str, Importer] = MappingProxyType({
    i.id: i
    for i in (
        AnthropicImporter(),
        OpenAIResponsesImporter(),
        PerplexityImporter(),
        LangfuseImporter(),
        TavilyAgentLogImporter(),
        OtlpImporter(),
        LangSmithImporter(),
    )
})
"""Format id -> its importer."""
