"""What the gate keeps of an agent's output: the end of each stream, within a fixed bound, and how
much there was. Memory does not grow with what an agent prints.

The answer is read from the whole of stdout or from its last line (:func:`gate.runner.assemble.stdout_answer`),
so the end of stdout is what matters: up to :data:`gate.model.STDOUT_KEPT` bytes are kept, an answer printed
after megabytes of logs is still read, and the bytes before are counted and dropped. Of stderr only
the end reaches the report (:data:`gate.runner.assemble.STDERR_TAIL` characters): :data:`gate.model.STDERR_KEPT`
bytes are kept, and :func:`last_exception` finds the exception an agent died of in them.
"""

from __future__ import annotations

import re
from collections import deque

__all__ = ["Tail", "last_exception"]

class Tail:
    """The last ``limit`` bytes written to a stream, and how many were written in all."""

    def __init__(self, limit: int) -> None:
        """Nothing written yet."""
        self.limit = limit
        self.total = 0
        self._chunks: deque[bytes] = deque()
        self._held = 0

    def add(self, data: bytes) -> None:
        """Append ``data``; whole chunks that fall out of the last ``limit`` bytes are let go at once."""
        self.total += len(data)
        self._chunks.append(data)
        self._held += len(data)
        while self._held - len(self._chunks[0]) >= self.limit:
            self._held -= len(self._chunks.popleft())

    def kept(self) -> bytes:
        """The last ``limit`` bytes (all of them when fewer were written)."""
        data = b"".join(self._chunks)
        return data[len(data) - self.limit:] if len(data) > self.limit else data

    @property
    def dropped(self) -> int:
        """Bytes written before the kept ones, counted and not kept."""
        return max(0, self.total - self.limit)


_NODE_ERROR = re.compile(r"^(Uncaught )?([A-Za-z_$][\w$.]*)?(Error|Exception)\b[^\n]*")
_NODE_FRAME = re.compile(r"^\s+at ")


def last_exception(stderr: str) -> str | None:
    """The last exception an agent's stderr shows, whole (None: none is recognised).

    Python: what follows the frames of the last ``Traceback (most recent call last):``, every line
    of it (a message that spans lines, the notes). Node: the last ``...Error: message`` line before
    its ``    at ...`` frames, with the lines of its message."""
    lines = stderr.rstrip().splitlines()
    starts = [i for i, line in enumerate(lines) if line.startswith("Traceback (most recent call last):")]
    if starts:
        rest = lines[starts[-1] + 1:]
        frames = 0
        while frames < len(rest) and rest[frames][:1] in (" ", "\t"):
            frames += 1
        text = "\n".join(rest[frames:]).strip()
        if text:
            return text
    for i in range(len(lines) - 1, -1, -1):
        if _NODE_FRAME.match(lines[i]) or not _NODE_ERROR.match(lines[i]):
            continue
        end = i + 1
        while end < len(lines) and not _NODE_FRAME.match(lines[end]) and lines[end].strip():
            end += 1
        if end < len(lines) and _NODE_FRAME.match(lines[end]):
            return "\n".join(lines[i:end]).strip()
    return None
