"""The judge cache: one small JSON file per validated reply, in the golden set's ``judgements/``.

Content-addressed: the file name is the :attr:`ToolCall.key` (a hash of provider, model, prompt version, tool
schema and rendered inputs), so a changed run or prompt simply misses. Only complete, validated
replies are written (never an error, a refusal or a reply that left a claim unscored), atomically,
and never through a symlink that leads out of the golden set.
Entries follow ``gate/schemas/judge-cache.json`` (format ``sourcegate-judgement/1``).

Entries are committed with the golden set, so a pull request writes them: each is read as any JSON
file of a golden set is (:mod:`gate.files.jsonio`), within the size limit, parsed strictly (duplicate keys,
nesting, number of objects) and validated, and a damaged entry is an input error naming the file and
the JSON path. An entry is read once: the bytes hashed for the trust check are the bytes parsed.

**Trusted entries.** Checked against a pull request's base revision, an entry is used only when the
base has it with the same content (:class:`TrustedEntries`): anyone can write a file that says
"supported". An entry the pull request added or changed is *unverified*: replay leaves its claims
unscored without parsing it, a live judge asks afresh and compares (see :mod:`gate.judge.llm`). Only
an entry whose name the base has is read to be hashed, and that read is bounded like any other.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from gate.errors import InputError
from gate.files.jsonio import decode_text, dump_json, inside, parse_json, read_bytes, validate
from gate.files.outputs import write_file
from gate.git.revision import blob_id
from gate.judge.base import ToolCall
from gate.judgement import Usage

CACHE_FORMAT = "sourcegate-judgement/1"
JUDGEMENTS_DIR = "judgements"
NOT_VERIFIED = "judgement added by this pull request, not verified"
"""Why a claim whose only judgement is one the pull request brought along stays unscored."""


@dataclass(frozen=True)
class TrustedEntries:
    """The judge-cache entries a git revision has: file name -> blob id."""

    blobs: Mapping[str, str]

    def trusts(self, file: str, data: bytes) -> bool:
        """True when ``file``, whose content is ``data``, is in the revision with exactly this content."""
        blob = self.blobs.get(os.path.basename(file))
        return blob is not None and blob_id(data, blob) == blob

    def has_name(self, file: str) -> bool:
        """True when the revision has a file of this name (with whatever content)."""
        return os.path.basename(file) in self.blobs


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
        """The stored tool input for ``call``, or None. A damaged entry is an input error.

        With ``trusted``, an entry the revision lacks is not used (and not read); one whose name it
        has is read (bounded) and used only when its content is the revision's."""
        file = self.path(call)
        if not os.path.isfile(file):
            return None
        if self.trusted is None:
            return self._parse(call, file, self._bytes(file))
        data = None
        if self.trusted.has_name(file):
            data = self._bytes(file)
        else:
            inside(self.root, file)  # a link out of the set is refused by name, even when it is not read
        if data is None or not self.trusted.trusts(file, data):
            with self._lock:
                self._unverified.add(call.key)
            return None
        return self._parse(call, file, data)

    def unverified(self, call: ToolCall) -> Mapping[str, Any] | None:
        """The stored tool input for ``call`` when it is there but not trusted, else None. Read and
        parsed as a trusted entry is: a damaged one is an input error."""
        file = self.path(call)
        if self.trusted is None or not os.path.isfile(file):
            return None
        data = self._bytes(file)
        if self.trusted.trusts(file, data):
            return None
        return self._parse(call, file, data)

    def add_unverified(self, keys: Iterable[str]) -> None:
        """Count ``keys`` among :attr:`unverified_keys`: entries another reader of this cache did not trust."""
        with self._lock:
            self._unverified.update(keys)

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

    def _bytes(self, file: str) -> bytes:
        """The entry's bytes: only inside the root, and within the size limit for a JSON file."""
        return read_bytes(file, root=self.root)

    def _parse(self, call: ToolCall, file: str, raw: bytes) -> Mapping[str, Any]:
        data = parse_json(decode_text(raw, file), file)
        validate(data, "judge-cache", file)
        if data["key"] != call.key or data["model"] != call.model or data["prompt"] != call.tool.prompt:
            raise InputError("judge cache entry does not match its file name (edited by hand?)", file=file)
        tool_input: Mapping[str, Any] = data["input"]
        return tool_input

    def put(self, call: ToolCall, tool_input: Mapping[str, Any], usage: Usage) -> None:
        """Store a validated, complete reply."""
        entry = {
            "format": CACHE_FORMAT,
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
