"""The judge cache: one small JSON file per validated reply, in the golden set's ``judgements/``.

Content-addressed: the file name is the :attr:`ToolCall.key` (a hash of provider, model, prompt version, tool
schema and rendered inputs), so a changed run or prompt simply misses. Only complete, validated
replies are written (never an error, a refusal or a reply that left a claim unscored), atomically,
and never through a symlink that leads out of the golden set.
Entries follow ``gate/schemas/judge-cache.json`` (format ``sourcegate-judgement/1``).

**Trusted entries.** Checked against a pull request's base revision, an entry is used only when the
base has it with the same content (:class:`TrustedEntries`): anyone can write a file that says
"supported". An entry the pull request added or changed is *unverified*: replay leaves its claims
unscored, a live judge asks afresh and compares (see :mod:`gate.judge.llm`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gate.errors import InputError
from gate.gitrev import blob_id
from gate.jsonio import dump_json, inside, load_json, validate
from gate.judge.base import ToolCall
from gate.judgement import Usage
from gate.outputs import write_file

FORMAT = "sourcegate-judgement/1"
JUDGEMENTS_DIR = "judgements"
NOT_VERIFIED = "judgement added by this pull request, not verified"
"""Why a claim whose only judgement is one the pull request brought along stays unscored."""


@dataclass(frozen=True)
class TrustedEntries:
    """The judge-cache entries a git revision has: file name -> blob id."""

    blobs: Mapping[str, str]

    def trusts(self, file: str) -> bool:
        """True when ``file`` is in the revision with exactly this content."""
        blob = self.blobs.get(os.path.basename(file))
        if blob is None:
            return False
        with open(file, "rb") as f:
            return blob_id(f.read(), blob) == blob


class JudgeCache:
    """Read and write judge replies under one folder.

    With ``trusted``, entries outside it are not served by :meth:`get`; :meth:`unverified` reads them
    for comparison, and :attr:`unverified_keys` counts them. Entries are read only inside ``root``
    (by default the folder that holds ``folder``: the golden set of ``judgements/``), and written
    only there.
    """

    def __init__(self, folder: str, trusted: TrustedEntries | None = None, root: str | None = None) -> None:
        """Use ``folder`` (created on the first write). Entries are read and written only where their
        real path stays inside ``root`` (default: the folder above ``folder``, the golden set)."""
        self.folder = folder
        self.trusted = trusted
        self.root = os.path.dirname(os.path.abspath(folder)) if root is None else root
        self._lock = threading.Lock()
        self._unverified: set[str] = set()
        self._disagreements: list[str] = []

    def path(self, call: ToolCall) -> str:
        """Where the reply to ``call`` is stored."""
        return os.path.join(self.folder, f"{call.key}.json")

    def get(self, call: ToolCall) -> Mapping[str, Any] | None:
        """The stored tool input for ``call``, or None. A damaged entry is an input error."""
        file = self.path(call)
        if not os.path.isfile(file):
            return None
        if self.trusted is not None:
            inside(self.root, file)  # before the trust check, which reads the file to hash it
            if not self.trusted.trusts(file):
                with self._lock:
                    self._unverified.add(call.key)
                return None
        return self._read(call, file)  # which reads the file only inside the root too

    def unverified(self, call: ToolCall) -> Mapping[str, Any] | None:
        """The stored tool input for ``call`` when it is there but not trusted, else None."""
        file = self.path(call)
        if self.trusted is None or not os.path.isfile(file) or self.trusted.trusts(file):
            return None
        return self._read(call, file)

    def disagrees(self, call: ToolCall) -> None:
        """Note that the untrusted entry for ``call`` says something other than a fresh judgement."""
        with self._lock:
            self._disagreements.append(f"{call.key[:12]} ({call.tool.name})")

    @property
    def unverified_keys(self) -> frozenset[str]:
        """The entries that were asked for but not used because the base revision lacks them."""
        with self._lock:
            return frozenset(self._unverified)

    @property
    def disagreements(self) -> tuple[str, ...]:
        """The untrusted entries a fresh judgement contradicted, as ``key (tool)``."""
        with self._lock:
            return tuple(sorted(self._disagreements))

    def _read(self, call: ToolCall, file: str) -> Mapping[str, Any]:
        data = load_json(file, root=self.root)
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
        write_file(self.path(call), dump_json(entry), within=self.root)
