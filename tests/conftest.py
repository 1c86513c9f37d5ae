"""Fixtures shared by the test modules."""

from __future__ import annotations

import pytest

from tests.support.live_providers import LIVE_PROVIDERS, LiveProvider


@pytest.fixture(params=LIVE_PROVIDERS, ids=lambda p: p.name)
def provider(request: pytest.FixtureRequest) -> LiveProvider:
    """Each judge provider in turn: the live judge's scenarios run against every one."""
    p: LiveProvider = request.param
    return p
