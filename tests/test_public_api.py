"""The public API is what ``gate.__all__`` lists: every name resolves, and nothing else leaks."""

from __future__ import annotations

import gate
from tests.support.fresh_import import FreshImport


def test_every_exported_name_resolves() -> None:
    for name in gate.__all__:
        assert getattr(gate, name) is not None, name


def test_exports_are_documented() -> None:
    for name in gate.__all__:
        value = getattr(gate, name)
        if callable(value) and not isinstance(value, type(gate)):
            assert (value.__doc__ or "").strip(), f"{name} has no docstring"


def test_unknown_names_raise_attribute_error() -> None:
    try:
        gate.not_a_name  # noqa: B018
    except AttributeError:
        return
    raise AssertionError("expected AttributeError")


def test_importing_the_package_and_cli_does_not_import_the_sdk(cli_import: FreshImport) -> None:
    assert cli_import.loaded("anthropic") == []


def test_importing_the_cli_leaves_jsonschema_until_a_schema_is_validated(cli_import: FreshImport) -> None:
    assert cli_import.loaded("jsonschema", "referencing") == []


def test_all_lists_exactly_the_lazy_exports() -> None:
    assert set(gate.__all__) == {"__version__", *gate._EXPORTS}
