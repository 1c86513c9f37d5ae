"""The packages split into small modules keep one public surface each: ``__all__`` in ``__init__``.

``gate.github``, ``gate.action`` and ``gate.urls`` are packages of private-by-convention modules;
what callers may import is exactly what the package's ``__all__`` lists (after httpx's
``tests/test_exported_members.py``). A name added to a module and re-exported without being listed,
or listed without being there, fails here.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from types import ModuleType

import pytest

PACKAGES = ("gate.github", "gate.action", "gate.urls", "gate.importers", "gate.record", "gate.judge.batch")


def _public_names(package: ModuleType) -> set[str]:
    for name in package.__all__:  # a name loaded on first use (gate.lazy) is there once asked for
        getattr(package, name)
    return {
        name for name, value in vars(package).items()
        if not name.startswith("_") and name not in ("annotations", "TYPE_CHECKING")
        and not isinstance(value, ModuleType)
    }


@pytest.mark.parametrize("name", PACKAGES)
def test_all_lists_exactly_the_public_names(name: str) -> None:
    package = importlib.import_module(name)
    assert sorted(package.__all__) == sorted(set(package.__all__)), "duplicates in __all__"
    assert set(package.__all__) == _public_names(package)


@pytest.mark.parametrize("name", PACKAGES)
def test_every_exported_class_and_function_is_documented(name: str) -> None:
    package = importlib.import_module(name)
    for member in package.__all__:
        value = getattr(package, member)
        if isinstance(value, type) or callable(value):
            assert (value.__doc__ or "").strip(), f"{name}.{member} has no docstring"


def test_the_action_still_runs_as_a_module() -> None:
    # The Dockerfile's ENTRYPOINT is `python -m gate.action`; arguments are refused with exit 2.
    done = subprocess.run([sys.executable, "-m", "gate.action", "--help"], capture_output=True, text=True,
                          check=False, env={"PATH": "/usr/bin:/bin"})
    assert done.returncode == 2
    assert "::error title=sourcegate::gate.action takes no arguments" in done.stdout
