"""The DNS look-ups a confined agent makes: the name read, the query refused (gate/runner/dns.py)."""

from __future__ import annotations

import struct

import pytest

from gate.runner.dns import question, refused


def _query(name: str, kind: int = 1, flags: int = 0x0100, ident: int = 0x1234) -> bytes:
    labels = b"".join(bytes([len(p)]) + p.encode("latin-1") for p in name.split(".") if p)
    return struct.pack("!HHHHHH", ident, flags, 1, 0, 0, 1) + labels + b"\0" + struct.pack("!HH", kind, 1) + \
        b"\0\0\x29\x10\0\0\0\0\0\0\0"  # an EDNS record, as glibc adds one


@pytest.mark.parametrize(("kind", "named"), [(1, "A"), (28, "AAAA"), (65, "HTTPS"), (99, "SPF"), (1234, "TYPE1234")])
def test_a_query_names_the_host_and_the_record_type(kind: int, named: str) -> None:
    asked = question(_query("API.Tavily.com.", kind))
    assert asked is not None and (asked.name, asked.kind) == ("api.tavily.com", named)


@pytest.mark.parametrize("packet", [
    b"", b"\0" * 11,
    _query("a.example", flags=0x8180),  # a reply, not a query
    _query("a.example", flags=0x2800),  # an update, not a standard query
    struct.pack("!HHHHHH", 1, 0x0100, 0, 0, 0, 0),  # no question
    _query("a.example")[:16],  # cut inside the name
    struct.pack("!HHHHHH", 1, 0x0100, 1, 0, 0, 0) + b"\xc0\x0c",  # a pointer where a name should be
])
def test_what_is_not_a_readable_query_is_none(packet: bytes) -> None:
    assert question(packet) is None


def test_a_name_s_unprintable_bytes_are_shown_as_question_marks() -> None:
    asked = question(_query("a\x1b[31m.example"))
    assert asked is not None and asked.name == "a?[31m.example"


def test_the_reply_refuses_with_the_query_s_id_and_question() -> None:
    packet = _query("api.tavily.com", 28, ident=0xBEEF)
    reply = refused(packet)
    ident, flags, qd, an, ns, ar = struct.unpack_from("!HHHHHH", reply)
    assert (ident, flags & 0x8000, flags & 0xF, flags & 0x0100, qd, an, ns, ar) == (0xBEEF, 0x8000, 5, 0x0100,
                                                                                   1, 0, 0, 0)
    assert reply[12:] == packet[12:12 + len("api.tavily.com") + 2 + 4]  # the question, without the EDNS record
