"""TLS at the real hostnames: a certificate authority made for one case, and what the agent is told of it.

``sourcegate run`` makes a :class:`CertificateAuthority` for each case. When the case's agent asks
the replay server, as its proxy, for ``CONNECT api.tavily.com:443`` (or any host past the frozen
web), the server answers the tunnel itself with a certificate for that host signed by the case's
authority (:meth:`CertificateAuthority.context`), reads the request inside and answers it from the
snapshot. The agent trusts the authority through the variables the common clients read
(:data:`BUNDLE_VARIABLES`, :func:`ca_env`): a bundle of the roots it trusted already and the case's
authority, so a host the agent may still reach (its model's API, tunnelled untouched) verifies as before.

The authority's key exists in this process's memory only: it is never written, not into the golden set
and not into a temporary file (a host's key reaches :mod:`ssl` through a file encrypted with a random
password that lives in memory, removed once loaded). Each case gets its own authority, valid for a
day, so a certificate made for one case is trusted by no other case and no other run.
"""

from __future__ import annotations

import contextlib
import datetime
import ipaddress
import os
import secrets
import ssl
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import dataclass

import certifi
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

__all__ = ["BUNDLE_VARIABLES", "EXTRA_CA_VARIABLES", "CertificateAuthority", "Roots", "ca_env", "trusted_roots",
           "write_bundle"]

BUNDLE_VARIABLES = ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "DENO_CERT")
"""Variables that name the whole set of roots a client trusts: OpenSSL's default (Python's ``ssl``,
``urllib``, ``http.client``, aiohttp, httpx, Ruby, PHP), requests, curl, Deno. Each gets the bundle."""
EXTRA_CA_VARIABLES = ("NODE_EXTRA_CA_CERTS",)
"""Variables that name roots trusted *beside* the built-in ones (Node: ``fetch``, ``https``): the
authority's certificate, after the roots the environment named there already."""
LIFETIME = datetime.timedelta(days=1)
"""How long an authority and its certificates are valid: one run, with room for a slow one."""
_SKEW = datetime.timedelta(hours=1)
"""Certificates are valid from this long before they were made (a client's clock may lag)."""
MAX_CONTEXTS = 128
"""Hosts' server contexts an authority keeps, the most recently asked (one made again costs milliseconds):
an agent that asks for host after host does not make the server's memory grow with each."""


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "sourcegate"),
                      x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _subject_name(host: str) -> x509.GeneralName:
    try:
        return x509.IPAddress(ipaddress.ip_address(host))
    except ValueError:
        return x509.DNSName(host)


class CertificateAuthority:
    """A certificate authority for one case: certificates for any host, its key in memory only."""

    def __init__(self, label: str = "a case", *, now: datetime.datetime | None = None) -> None:
        """Make the authority; ``label`` goes into its name (which case it serves, for a reader of the
        certificate); ``now`` is when its validity starts (default: the wall clock)."""
        self._now = now or datetime.datetime.now(datetime.UTC)
        self._key = ec.generate_private_key(ec.SECP256R1())
        self._host_key = ec.generate_private_key(ec.SECP256R1())  # one key for every host's certificate
        name = _name(f"sourcegate replay CA {secrets.token_hex(4)} for {label}"[:64])  # X.509 allows 64
        self._name = name
        self._cert = (
            x509.CertificateBuilder()
            .subject_name(name).issuer_name(name)
            .public_key(self._key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(self._now - _SKEW).not_valid_after(self._now + LIFETIME)
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                         content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False, encipher_only=False,
                                         decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(self._key.public_key()), critical=False)
            .sign(self._key, hashes.SHA256())
        )
        self._contexts: dict[str, ssl.SSLContext] = {}
        self._lock = threading.Lock()

    @property
    def pem(self) -> bytes:
        """The authority's certificate (PEM): what the agent is told to trust."""
        return self._cert.public_bytes(serialization.Encoding.PEM)

    def certificate(self, host: str) -> x509.Certificate:
        """A server certificate for ``host`` (a name or an IP address), signed by this authority."""
        return (
            x509.CertificateBuilder()
            .subject_name(_name(host[:64])).issuer_name(self._name)
            .public_key(self._host_key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(self._now - _SKEW).not_valid_after(self._now + LIFETIME)
            .add_extension(x509.SubjectAlternativeName([_subject_name(host)]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(self._key.public_key()),
                           critical=False)
            .sign(self._key, hashes.SHA256())
        )

    def context(self, host: str) -> ssl.SSLContext:
        """A server-side TLS context that presents a certificate for ``host`` (made once per host, and kept
        for the last :data:`MAX_CONTEXTS` hosts asked)."""
        host = host.lower()
        with self._lock:
            found = self._contexts.pop(host, None) or self._make_context(host)
            if len(self._contexts) >= MAX_CONTEXTS:
                del self._contexts[next(iter(self._contexts))]  # the one asked for longest ago
            self._contexts[host] = found  # the last asked, last
            return found

    def _make_context(self, host: str) -> ssl.SSLContext:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.set_alpn_protocols(["http/1.1"])  # the server reads HTTP/1.1 inside the tunnel
        password = secrets.token_bytes(32)
        key = self._host_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.BestAvailableEncryption(password))
        chain = self.certificate(host).public_bytes(serialization.Encoding.PEM) + self.pem
        # ssl reads a certificate and key from files only: one, private, encrypted, removed once read
        fd, path = tempfile.mkstemp(prefix="sourcegate-host-", suffix=".pem")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(chain + key)
            context.load_cert_chain(path, password=password)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(path)
        return context


@dataclass(frozen=True)
class Roots:
    """The roots an agent trusted already, read once per run (:func:`trusted_roots`): the whole set its
    :data:`BUNDLE_VARIABLES` name (else certifi's), and the extra ones its :data:`EXTRA_CA_VARIABLES` name."""

    bundle: bytes
    extra: bytes


def trusted_roots(environ: Mapping[str, str]) -> Roots:
    """What the files (or folders) ``environ`` names for the agent's roots hold, each root once."""
    named = [environ[v] for v in BUNDLE_VARIABLES if environ.get(v)]
    roots = dict.fromkeys(root for path in dict.fromkeys(named or [certifi.where()]) for root in _roots(path))
    extra = dict.fromkeys(root for v in EXTRA_CA_VARIABLES if environ.get(v) for root in _roots(environ[v]))
    return Roots(b"".join(roots), b"".join(extra))


def write_bundle(folder: str, authority: CertificateAuthority, environ: Mapping[str, str],
                 roots: Roots | None = None) -> tuple[str, str]:
    """Write the authority's certificate and the agent's bundle into ``folder``; their paths.

    The bundle holds the roots the agent trusted already (``roots``, read from ``environ`` when not given:
    the files its environment names in :data:`BUNDLE_VARIABLES`, else certifi's) and then the authority's
    certificate; the certificate's file, the extra roots the environment names in
    :data:`EXTRA_CA_VARIABLES` before it (Node reads one such file, so the roots an agent was given
    there stay trusted)."""
    roots = trusted_roots(environ) if roots is None else roots
    ca_file = os.path.join(folder, "sourcegate-ca.pem")
    bundle_file = os.path.join(folder, "sourcegate-bundle.pem")
    with open(ca_file, "wb") as f:
        f.write(roots.extra + authority.pem)
    with open(bundle_file, "wb") as f:
        f.write(roots.bundle + authority.pem)
    return ca_file, bundle_file


def _roots(path: str) -> list[bytes]:
    """What ``path`` holds: a file's roots, or a folder's (requests takes one in ``REQUESTS_CA_BUNDLE``, as
    OpenSSL's ``capath``), the certificates of the files in it; nothing that cannot be read."""
    files = [path]
    if os.path.isdir(path):
        with contextlib.suppress(OSError):
            files = sorted(os.path.join(path, name) for name in os.listdir(path))
    found = []
    for file in files:
        with contextlib.suppress(OSError), open(file, "rb") as f:
            data = f.read()
            if file == path or b"-----BEGIN CERTIFICATE-----" in data:
                found.append(data.rstrip(b"\n") + b"\n")
    return found


def ca_env(environ: Mapping[str, str], ca_file: str, bundle_file: str) -> dict[str, str]:
    """``environ`` with every variable of :data:`BUNDLE_VARIABLES` at the bundle and of
    :data:`EXTRA_CA_VARIABLES` at the authority's certificate."""
    env = dict(environ)
    env.update(dict.fromkeys(BUNDLE_VARIABLES, bundle_file))
    env.update(dict.fromkeys(EXTRA_CA_VARIABLES, ca_file))
    return env
