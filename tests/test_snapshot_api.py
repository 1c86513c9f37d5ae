"""``gate.snapshot.__all__`` and ``gate.replay.__all__`` are their public APIs: every name resolves, is
documented, and loads lazily."""

from __future__ import annotations

import types

import pytest

import gate.replay
import gate.snapshot
from tests.support.fresh_import import FreshImport


@pytest.mark.parametrize("package", [gate.snapshot, gate.replay], ids=lambda p: p.__name__)
def test_every_name_resolves_and_is_documented(package: types.ModuleType) -> None:
    assert set(package.__all__) == set(package._EXPORTS)
    for name in package.__all__:
        value = getattr(package, name)
        assert (value.__doc__ or "").strip(), f"{name} has no docstring"


def test_building_the_cli_parser_does_not_load_the_live_recorder(cli_import: FreshImport) -> None:
    # The replay side (build, verify, serve) is imported with the command; the live web, which
    # needs the HTTP client, only when a recording runs.
    assert cli_import.loaded("gate.live", "requests") == []
