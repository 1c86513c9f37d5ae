"""The package's imports form no cycle: not at module level, and not behind an import inside a function.

Imports under ``if TYPE_CHECKING:`` are left out of the first test (they never run), and so are the
names the package faces load on first use (``gate.lazy``), which are strings, not imports; the second
test counts the types too, between modules other than the faces.
"""

from __future__ import annotations

import ast
import graphlib
from pathlib import Path

import gate

ROOT = Path(gate.__file__).parent


def _modules() -> dict[str, Path]:
    found = {}
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _runtime_imports(tree: ast.Module, typing_too: bool = False) -> list[ast.Import | ast.ImportFrom]:
    kept: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if not typing_too and isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            kept.append(node)
        for field in ("body", "orelse", "handlers", "finalbody", "cases"):  # imports are statements
            for child in getattr(node, field, ()):
                if isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
                    visit(child)

    visit(tree)
    return kept


def _targets(module: str, is_package: bool, node: ast.Import | ast.ImportFrom, known: set[str]) -> set[str]:
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        here = module.split(".") if is_package else module.split(".")[:-1]
        base = ".".join([*here[:len(here) - node.level + 1], *([node.module] if node.module else [])]) \
            if node.level else node.module or ""
        names = [f"{base}.{alias.name}" for alias in node.names]
    targets = set()
    for name in names:
        while name and name not in known:
            name = name.rpartition(".")[0]
        if name and name != module:
            targets.add(name)
    return targets


def import_graph(typing_too: bool = False) -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {
        module: set().union(*(_targets(module, path.name == "__init__.py", node, known)
                              for node in _runtime_imports(ast.parse(path.read_text(encoding="utf-8")), typing_too)))
        for module, path in modules.items()
    }


def test_the_package_imports_form_no_cycle_even_inside_functions() -> None:
    graph = import_graph()
    assert len(graph) > 100 and "gate.pipeline" in graph["gate.commands.check"]
    try:
        order = list(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as cycle:
        raise AssertionError(f"import cycle: {' -> '.join(cycle.args[1])}") from None
    assert set(order) == set(graph)


def test_an_import_inside_a_function_is_an_edge_and_a_type_checking_import_is_not() -> None:
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import gate.cli\n"
                     "def f():\n    from gate import version\n")
    known = {"gate", "gate.cli", "gate.version", "gate.deliver.spans.otel"}
    edges = set().union(*(_targets("gate.deliver.spans.otel", False, n, known) for n in _runtime_imports(tree)))
    assert edges == {"gate.version"}


def test_the_modules_need_each_other_in_no_loop_even_for_their_types() -> None:
    """A type named under ``TYPE_CHECKING`` still ties two modules for a reader: a loop there is a
    seam in the wrong place. The package faces, which name their contents for the type checker
    alone, are left out."""
    modules = _modules()
    graph = {module: {t for t in targets if modules[t].name != "__init__.py"}
             for module, targets in import_graph(typing_too=True).items()
             if modules[module].name != "__init__.py"}
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as cycle:
        raise AssertionError(f"import cycle: {' -> '.join(cycle.args[1])}") from None
