"""``gate.snapshot.__all__`` is its public API: every name resolves, is documented, and loads lazily."""

from __future__ import annotations

import gate.snapshot
from tests.support.fresh_import import FreshImport


def test_every_name_resolves_and_is_documented() -> None:
    assert set(gate.snapshot.__all__) == set(gate.snapshot._EXPORTS)
    for name in gate.snapshot.__all__:
        value = getattr(gate.snapshot, name)
        assert (value.__doc__ or "").strip(), f"{name} has no docstring"


def test_building_the_cli_parser_does_not_load_the_live_recorder(cli_import: FreshImport) -> None:
    # The replay side (build, verify, serve) is imported with the command; the live web, which
    # needs the HTTP client, only when a recording runs.
    assert cli_import.loaded("gate.snapshot.live", "requests") == []
