"""Whether this machine lets the tests make the network namespace ``sourcegate run`` confines each agent
in (:mod:`gate.runner.netns`): asked once per test process, as ``run`` asks it once per run."""

from __future__ import annotations

import sys

import pytest

from gate.runner.network import probe

METHOD, WHY = probe() if sys.platform.startswith("linux") else (None, "network namespaces are Linux's")
"""The namespaces the probe could make (``user``, ``net``; None: none, for ``WHY``)."""

needs_namespace = pytest.mark.skipif(METHOD is None, reason=f"no network namespace can be made here: {WHY}")
"""Skips a test that needs an agent confined."""
