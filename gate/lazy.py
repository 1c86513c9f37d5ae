"""Names a package exports but loads on first use, so importing it stays cheap.

``gate``, ``gate.judge``, ``gate.snapshot`` and ``gate.replay`` list their public names in a dict of name ->
module; this builds their module-level ``__getattr__`` and ``__dir__`` from it (PEP 562).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping
from importlib import import_module
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, str], namespace: MutableMapping[str, Any]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: each name is imported from its module once."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(namespace.get("__all__", exports))

    return __getattr__, __dir__
