"""The DNS look-ups a confined agent makes, read and refused. Pure.

Inside a case's network namespace (:mod:`gate.runner.netns`) the loopback resolvers of
``/etc/resolv.conf`` (systemd-resolved's 127.0.0.53 on GitHub's Ubuntu runners, Docker's 127.0.0.11)
are answered by the gate (:mod:`gate.runner.doors`). A client that honours the proxy variables never
looks up a host (the proxy does), so a look-up is a client about to go round the proxy: the gate reads
the name asked for (:func:`question`), and answers ``REFUSED`` (:func:`refused`), on which a resolver
stops (no retry, no search domain tried), so the client fails at once, having learnt nothing.
"""

from __future__ import annotations

import dns.exception
import dns.flags
import dns.message
import dns.opcode
import dns.rcode
import dns.rdatatype

__all__ = ["Question", "question", "refused"]

_MAX_NAME = 255


class Question(tuple[str, str]):
    """The name a query asks for (lower case, without the final dot) and its record type (``A``, ``AAAA``...)."""

    __slots__ = ()

    @property
    def name(self) -> str:
        """The name asked for."""
        return self[0]

    @property
    def kind(self) -> str:
        """The record type asked for (``TYPE<n>`` for one without a name)."""
        return self[1]


def _query(packet: bytes) -> dns.message.Message | None:
    """The header and question of a standard DNS query, as dnspython reads them (None: not one)."""
    try:
        query = dns.message.from_wire(packet, question_only=True)
    except (dns.exception.DNSException, ValueError):
        return None
    if query.flags & dns.flags.QR or query.opcode() != dns.opcode.QUERY or not query.question:
        return None
    return query


def question(packet: bytes) -> Question | None:
    """The question of a standard DNS query (None: not one, or not readable). A label's unprintable
    characters are shown as ``?`` (the name is untrusted text, said in a report)."""
    query = _query(packet)
    if query is None:
        return None
    asked = query.question[0]
    name = ".".join("".join(c if c.isprintable() and c not in " ./" else "?" for c in label.decode("latin-1"))
                    for label in asked.name.labels if label).lower()
    return Question((name, dns.rdatatype.to_text(asked.rdtype))) if 0 < len(name) <= _MAX_NAME else None


def refused(packet: bytes) -> bytes:
    """The ``REFUSED`` reply to a query (:func:`question` read it): its id and question, no answer."""
    query = _query(packet)
    if query is None:
        raise ValueError("not a standard DNS query")
    reply = dns.message.make_response(query)
    reply.set_rcode(dns.rcode.REFUSED)
    return reply.to_wire()
