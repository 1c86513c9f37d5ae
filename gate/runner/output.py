"""What the gate keeps of an agent's output: the end of each stream, within a fixed bound, and how
much there was. Memory does not grow with what an agent prints.

The answer is read from the whole of stdout or from its last line (:func:`gate.runner.assemble.stdout_answer`),
so the end of stdout is what matters: up to :data:`gate.model.STDOUT_KEPT` bytes are kept, an answer printed
after megabytes of logs is still read, and the bytes before are counted and dropped. Of stderr only
the end reaches the report (:data:`gate.runner.assemble.STDERR_TAIL` characters): :data:`gate.model.STDERR_KEPT`
bytes are kept.
"""

from __future__ import annotations

from collections import deque

__all__ = ["Tail"]

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
