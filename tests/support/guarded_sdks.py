"""What a preloaded interpreter for the SDK agents of ``tests/test_replay_sdks.py`` imports once: the
suite's network guard, installed first, then the SDKs whose imports take seconds (Exa's client and
LangChain's Tavily tools, Tavily's own). Each agent forked from it still runs its script whole, and
its ``common`` module (the plan, the replay URL) is read in the forked process."""

from __future__ import annotations

from tests.support.network import GUARD

GUARD.install()  # before any SDK is imported, as each agent's common module does

import exa_py  # noqa: E402,F401
import langchain_tavily  # noqa: E402,F401
import tavily  # noqa: E402,F401

__all__: list[str] = []
