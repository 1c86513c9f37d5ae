"""What a preloaded interpreter for the agents at the real addresses (``tests/test_run_real_addresses.py``)
imports once: the suite's network guard, installed first, then the HTTP clients and the providers' SDKs.
Not aiohttp: it makes its default TLS context as it is imported, and that must read the case's bundle
from the agent's own environment, not the preloading interpreter's."""

from __future__ import annotations

from tests.support.network import GUARD

GUARD.install()  # before any client is imported, as each agent's common module does

import exa_py  # noqa: E402,F401
import httpx2  # noqa: E402,F401
import requests  # noqa: E402,F401
import tavily  # noqa: E402,F401

__all__: list[str] = []
