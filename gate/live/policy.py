"""Where record mode may connect: a pure policy on one resolved address, and the allow-list.

The live web is the public internet. A URL an agent asks for, or a redirect it is sent on, must
not reach this machine, its network or its cloud's metadata service, so every address a request
would connect to is checked, after resolution, at every hop:

    refused                          examples
    cloud metadata (never allowed)   169.254.169.254, 169.254.170.2, fd00:ec2::254, 100.100.100.200
    loopback                         127.0.0.0/8, ::1
    unspecified                      0.0.0.0, ::
    link-local                       169.254.0.0/16, fe80::/10
    multicast                        224.0.0.0/4, ff00::/8
    reserved                         240.0.0.0/4
    private                          10/8, 172.16/12, 192.168/16, fc00::/7
    anything else not global         100.64.0.0/10 (shared), 192.0.2.0/24 (documentation), ...

IPv4 addresses written inside IPv6 (``::ffff:127.0.0.1``, NAT64 ``64:ff9b::7f00:1``) are judged
as the IPv4 address they reach. The allow-list (``record.allow``) lets intranet sources and tests
on loopback through: each entry is a host name (``wiki.corp.example``), an address
(``127.0.0.1``, ``::1``), either with a port (``127.0.0.1:8080``, ``[::1]:8080``,
``localhost:8080``), or a network (``10.20.0.0/16``). A metadata address is refused even when
listed. Everything here is pure.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence
from dataclasses import dataclass

from gate.errors import InputError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

METADATA_ADDRESSES = frozenset(ipaddress.ip_address(a) for a in (
    "169.254.169.254",  # AWS, GCP, Azure, DigitalOcean, OpenStack, ...
    "169.254.170.2",    # AWS ECS task metadata
    "fd00:ec2::254",    # AWS over IPv6
    "100.100.100.200",  # Alibaba Cloud
    "192.0.0.192",      # Oracle Cloud
))
METADATA_HOSTS = frozenset({"metadata.google.internal", "metadata.goog", "metadata"})

_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_KINDS = (
    ("is_loopback", "a loopback address"),
    ("is_unspecified", "an unspecified address"),
    ("is_link_local", "a link-local address"),
    ("is_multicast", "a multicast address"),
    ("is_reserved", "a reserved address"),  # before private: Python counts 240.0.0.0/4 as both
    ("is_private", "a private address"),
)
_HOST = re.compile(r"^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?)*$")


@dataclass(frozen=True)
class AllowRule:
    """One allow-list entry: a network or a host name, on any port or on one."""

    network: IPNetwork | None = None
    host: str | None = None
    port: int | None = None

    def matches(self, ip: IPAddress | None, host: str, port: int | None) -> bool:
        """Whether a connection to ``ip`` (for the name ``host``) on ``port`` is this entry."""
        if self.port is not None and port != self.port:
            return False
        if self.network is not None:
            return ip is not None and ip.version == self.network.version and ip in self.network
        return normalise_host(host) == self.host


@dataclass(frozen=True)
class AllowList:
    """The hosts and networks that may be private, in the order they were written."""

    rules: tuple[AllowRule, ...] = ()

    def allows(self, ip: IPAddress | None, host: str = "", port: int | None = None) -> bool:
        """Whether any entry lets a connection to ``ip`` (named ``host``) on ``port`` through."""
        return any(rule.matches(ip, host, port) for rule in self.rules)

    def names(self, host: str, port: int | None) -> bool:
        """Whether the URL host itself (a name or an address literal) is listed, before resolution."""
        return self.allows(_literal(host), host, port)


def normalise_host(host: str) -> str:
    """A host name as it is compared: lower case, no trailing dot, no IPv6 brackets."""
    return host.strip("[]").rstrip(".").lower()


def _literal(host: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(normalise_host(host))
    except ValueError:
        return None


def _effective(ip: IPAddress) -> IPAddress:
    """The address a connection actually reaches: IPv4 written inside IPv6 is judged as IPv4."""
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return ip.ipv4_mapped
        if ip in _NAT64:
            return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip


def address_allowed(ip: str, allow: AllowList = AllowList(), *, host: str = "",
                    port: int | None = None) -> str | None:
    """Why a connection to ``ip`` is refused (e.g. ``"127.0.0.1 is a loopback address"``), or None.

    ``host`` is the name that resolved to ``ip`` and ``port`` the port, for allow-list entries
    that name a host or a port.
    """
    kind = address_kind(ip, allow, host=host, port=port)
    return None if kind is None else f"{ip} is {kind}"


def address_kind(ip: str, allow: AllowList = AllowList(), *, host: str = "", port: int | None = None) -> str | None:
    """What makes ``ip`` refused (e.g. ``"a loopback address"``), or None when it may be reached."""
    try:
        parsed = ipaddress.ip_address(ip.split("%", 1)[0])
    except ValueError:
        return "not an IP address"
    target = _effective(parsed)
    if target in METADATA_ADDRESSES:
        return "a cloud metadata address (never allowed)"
    if allow.allows(target, host, port) or (target != parsed and allow.allows(parsed, host, port)):
        return None
    for attribute, kind in _KINDS:
        if getattr(target, attribute):
            return kind
    if not target.is_global:
        return "not a public address"
    return None


def host_refused(host: str) -> str | None:
    """Why a URL host is refused before it is even resolved (a cloud metadata name), or None."""
    if normalise_host(host) in METADATA_HOSTS:
        return f"{normalise_host(host)} is a cloud metadata name (never allowed)"
    return None


def parse_allow(entries: Sequence[str], *, file: str | None = None,
                path: str = "$.record.allow") -> AllowList:
    """The allow-list from its written entries; a malformed entry is an InputError naming it."""
    return AllowList(tuple(_rule(entry, file, f"{path}[{i}]") for i, entry in enumerate(entries)))


def _rule(entry: str, file: str | None, path: str) -> AllowRule:
    text = entry.strip().lower()
    expected = ("expected a host name, an address or a network, with an optional port "
                "(wiki.corp.example, 127.0.0.1:8080, [::1]:8080, 10.0.0.0/8)")
    if "/" in text:
        try:
            return AllowRule(network=ipaddress.ip_network(text))
        except ValueError as e:
            raise InputError(f"{entry!r} is not a network ({e})", file=file, path=path) from None
    host, port_text = text, ""
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        if rest and not rest.startswith(":"):
            raise InputError(f"{entry!r}: {expected}", file=file, path=path)
        port_text = rest[1:]
    elif text.count(":") == 1:
        host, port_text = text.split(":")
    port = None
    if port_text:
        if not port_text.isdigit() or not 0 < int(port_text) < 65536:
            raise InputError(f"{entry!r}: the port must be 1-65535", file=file, path=path)
        port = int(port_text)
    ip = _literal(host)
    if ip is not None:
        return AllowRule(network=ipaddress.ip_network(ip), port=port)
    if not _HOST.match(host.rstrip(".")):
        raise InputError(f"{entry!r}: {expected}", file=file, path=path)
    return AllowRule(host=normalise_host(host), port=port)
