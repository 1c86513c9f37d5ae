"""The DNS look-ups a confined agent makes, read and refused. Pure.

Inside a case's network namespace (:mod:`gate.runner.netns`) the loopback resolvers of
``/etc/resolv.conf`` (systemd-resolved's 127.0.0.53 on GitHub's Ubuntu runners, Docker's 127.0.0.11)
are answered by the gate (:mod:`gate.runner.doors`). A client that honours the proxy variables never
looks up a host (the proxy does), so a look-up is a client about to go round the proxy: the gate reads
the name asked for (:func:`question`), and answers ``REFUSED`` (:func:`refused`), on which a resolver
stops (no retry, no search domain tried), so the client fails at once, having learnt nothing.
"""

from __future__ import annotations

import struct

__all__ = ["Question", "question", "refused", "resolvers"]

_HEADER = struct.Struct("!HHHHHH")  # id, flags, question, answer, authority and additional counts
_QR = 0x8000
_OPCODE = 0x7800
_RD = 0x0100
_REFUSED = 5
_MAX_NAME = 255
TYPES = {1: "A", 2: "NS", 5: "CNAME", 12: "PTR", 15: "MX", 16: "TXT", 28: "AAAA", 33: "SRV", 64: "SVCB", 65: "HTTPS"}
"""The record types a report names; any other is ``TYPE<n>``."""


class Question(tuple[str, str]):
    """The name a query asks for (lower case, without the final dot) and its record type (``A``, ``AAAA``...)."""

    __slots__ = ()

    @property
    def name(self) -> str:
        """The name asked for."""
        return self[0]

    @property
    def kind(self) -> str:
        """The record type asked for."""
        return self[1]


def question(packet: bytes) -> Question | None:
    """The question of a standard DNS query (None: not one, or not readable)."""
    if len(packet) < _HEADER.size:
        return None
    flags, count = _HEADER.unpack_from(packet)[1:3]
    if flags & (_QR | _OPCODE) or count < 1:  # a reply, or not a standard query
        return None
    labels: list[str] = []
    at = _HEADER.size
    while at < len(packet):
        size = packet[at]
        if size == 0:
            if at + 5 > len(packet):
                return None
            kind = struct.unpack_from("!H", packet, at + 1)[0]
            name = ".".join(labels).lower()
            return Question((name, TYPES.get(kind, f"TYPE{kind}"))) if 0 < len(name) <= _MAX_NAME else None
        if size > 63 or at + 1 + size > len(packet):  # a pointer (none in a question) or a cut label
            return None
        labels.append("".join(c if c.isprintable() and c not in " ./" else "?"
                              for c in packet[at + 1:at + 1 + size].decode("latin-1")))
        at += 1 + size
    return None


def refused(packet: bytes) -> bytes:
    """The ``REFUSED`` reply to a query: its id and question, no answer."""
    ident, flags, count = _HEADER.unpack_from(packet)[:3]
    end = _HEADER.size
    for _ in range(min(count, 1)):  # the first question, echoed as a reply carries it
        while end < len(packet) and packet[end] != 0:
            end += 1 + packet[end]
        end = min(end + 5, len(packet))
    return _HEADER.pack(ident, _QR | (flags & (_OPCODE | _RD)) | _REFUSED, min(count, 1), 0, 0, 0) + \
        packet[_HEADER.size:end]


def resolvers(resolv_conf: str) -> tuple[str, ...]:
    """The loopback resolvers a ``resolv.conf`` names (``nameserver 127.0.0.53``, ``::1``): the ones a
    namespace can answer. With no ``nameserver`` line at all, the C library asks 127.0.0.1."""
    named = []
    for line in resolv_conf.splitlines():
        words = line.split("#", 1)[0].split(";", 1)[0].split()
        if len(words) >= 2 and words[0] == "nameserver":
            named.append(words[1].split("%", 1)[0])
    if not named:
        return ("127.0.0.1",)
    return tuple(dict.fromkeys(a for a in named if a == "::1" or _loopback_v4(a)))


def _loopback_v4(address: str) -> bool:
    parts = address.split(".")
    return len(parts) == 4 and parts[0] == "127" and all(p.isdigit() and int(p) < 256 for p in parts)
