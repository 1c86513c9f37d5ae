"""The judge cache: one small JSON file per validated reply, in the golden set's ``judgements/``.

Content-addressed: the file name is the :attr:`ToolCall.key` (a hash of model, prompt version, tool
schema and rendered inputs), so a changed run or prompt simply misses. Only complete, validated
replies are written (never an error, a refusal or a reply that left a claim unscored), atomically,
and never through a symlink that leads out of the golden set.
Entries follow ``gate/schemas/judge-cache.json`` (format ``sourcegate-judgement/1``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from gate.errors import InputError
from gate.jsonio import dump_json, load_json, validate
from gate.judge.base import ToolCall
from gate.judge.model import Usage
from gate.outputs import write_file

FORMAT = "sourcegate-judgement/1"
JUDGEMENTS_DIR = "judgements"


class JudgeCache:
    """Read and write judge replies under one folder."""

    def __init__(self, folder: str, within: str | None = None) -> None:
        """Use ``folder`` (created on the first write). Entries are written only where their real path
        stays inside ``within`` (default: the folder above ``folder``, the golden set)."""
        self.folder = folder
        self.within = within if within is not None else os.path.dirname(os.path.abspath(folder))

    def path(self, call: ToolCall) -> str:
        """Where the reply to ``call`` is stored."""
        return os.path.join(self.folder, f"{call.key}.json")

    def get(self, call: ToolCall) -> Mapping[str, Any] | None:
        """The stored tool input for ``call``, or None. A damaged entry is an input error."""
        file = self.path(call)
        if not os.path.isfile(file):
            return None
        data = load_json(file)
        validate(data, "judge-cache", file)
        if data["key"] != call.key or data["model"] != call.model or data["prompt"] != call.tool.prompt:
            raise InputError("judge cache entry does not match its file name (edited by hand?)", file=file)
        tool_input: Mapping[str, Any] = data["input"]
        return tool_input

    def put(self, call: ToolCall, tool_input: Mapping[str, Any], usage: Usage) -> None:
        """Store a validated, complete reply."""
        entry = {
            "format": FORMAT,
            "key": call.key,
            "model": call.model,
            "prompt": call.tool.prompt,
            "tool": call.tool.name,
            "input": dict(tool_input),
            "usage": {
                "input_tokens": usage.input_tokens,
                "output_tokens": usage.output_tokens,
                "cache_read_tokens": usage.cache_read_tokens,
                "cache_write_tokens": usage.cache_write_tokens,
            },
        }
        write_file(self.path(call), dump_json(entry), within=self.within)
