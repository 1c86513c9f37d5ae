"""The HTTP client under each SDK provider, built on one TLS context per process.

An SDK client left to itself builds its own HTTP client, and with it a fresh ``ssl.SSLContext`` that
loads the system's CA certificates: some 90 ms of CPU for every provider and every Message Batches
client, so for every golden set a run judges. :func:`http_client` hands the SDK an HTTP client of
its own kind (its ``DefaultHttpxClient``: the SDK's timeouts, connection limits and socket options)
built on :func:`tls_context`, the one context every client of the process shares.

That context is the one the SDK would have built (``httpx2.create_ssl_context()``: the system's CA
certificates, or those ``SSL_CERT_FILE`` or ``SSL_CERT_DIR`` name; certificates and host names
verified), and it is built again when either variable changes. A context is made to be shared by
connections and threads, and nothing here changes it once built.

Whoever builds a provider closes it when done (:class:`gate.judge.base.Closing`; the judge session
closes the one it builds). Like the client the SDK builds for itself, this one also closes its
connections when it is garbage collected, for a provider left open, and warns of it (a
``ResourceWarning``, as an unclosed file does: shown only where warnings are, as in the tests).

An API's error message goes into the report and onto stderr: :func:`without_key` takes the key out
of it first, should the server (or a proxy at ``base_url``) repeat the key it was sent.
"""

from __future__ import annotations

import contextlib
import functools
import os
import ssl
import warnings
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import httpx2

__all__ = ["AUTH_STATUSES", "CA_VARIABLES", "KEY_SHOWN_AS", "http_client", "tls_context", "without_key"]

AUTH_STATUSES = (401, 403)
"""The HTTP statuses of a refused API key: no further call is made (:class:`gate.errors.JudgeAuthError`)."""

CA_VARIABLES = ("SSL_CERT_FILE", "SSL_CERT_DIR")
"""The environment variables that choose the CA certificates (the context is built again when they change)."""
KEY_SHOWN_AS = "[the key]"
"""What an API key in an error message is replaced with."""


def without_key(text: str, *keys: object) -> str:
    """``text`` with each of ``keys`` that is a non-empty string replaced by :data:`KEY_SHOWN_AS`."""
    for key in keys:
        if isinstance(key, str) and key.strip():
            text = text.replace(key, KEY_SHOWN_AS)
    return text


def tls_context() -> ssl.SSLContext:
    """The process's TLS context for the judge APIs, as the SDK would build it."""
    return _context(tuple(os.environ.get(v) for v in CA_VARIABLES))


@functools.lru_cache(maxsize=4)
def _context(ca_variables: tuple[str | None, ...]) -> ssl.SSLContext:
    """Keyed by the CA variables' values; ``create_ssl_context`` reads them from the environment."""
    import httpx2

    return httpx2.create_ssl_context()


def _close(client: httpx2.Client) -> None:
    if not client.is_closed:
        # As an unclosed file does (ignored unless warnings are shown): whatever order the collector
        # finalises a cycle in, a provider nobody closed is named, not only its sockets.
        warnings.warn("a judge provider's HTTP client was collected open: close the provider when done",
                      ResourceWarning, stacklevel=1)
        with contextlib.suppress(Exception):  # at interpreter exit the pool may be half torn down
            client.close()


_CLOSING: dict[type[httpx2.Client], type[httpx2.Client]] = {}


def _closing(kind: type[httpx2.Client]) -> type[httpx2.Client]:
    """``kind`` closing its connections when collected (as the SDKs' own ``SyncHttpxClientWrapper``)."""
    closing = _CLOSING.get(kind)
    if closing is None:
        made = type(f"Closing{kind.__name__}", (kind,), {"__del__": _close, "__module__": __name__})
        closing = _CLOSING.setdefault(kind, made)
    return closing


def http_client(kind: type[httpx2.Client]) -> httpx2.Client:
    """An SDK's ``DefaultHttpxClient`` (``kind``) on the shared :func:`tls_context`."""
    return _closing(kind)(verify=tls_context())
