"""The tree reads as the pipeline: folders by step, imports running one way, one name for one thing.

A *room* is what stands at the top of ``gate/``: a folder (with everything in it) or a loose module.
Every import counts here, those under ``TYPE_CHECKING`` too, since a reader follows them all: the
rooms' imports form no loop (no arrow runs back up the floors), the two doors (``commands/`` and
``action/``) share ``deliver/`` and import each other not at all, and the README's package map
names every room.
"""

from __future__ import annotations

import ast
import graphlib
import re
import subprocess
import sys
from collections import defaultdict
from functools import cache
from pathlib import Path

from radon.complexity import cc_visit_ast

import gate

ROOT = Path(gate.__file__).parent
DEVELOPING = ROOT.parent / "docs" / "developing.md"

MAX_LOOSE = 16
"""Modules loose at the top of gate/, besides __init__.py and __main__.py: the door, the corridor and
a handful of primitives."""
PROTOCOL_NAMES = {
    "add_parser": "each command module of gate/commands/ (the COMMANDS registry)",
    "run": "each command module of gate/commands/ (the COMMANDS registry)",
    "main": "each process's entry point: the CLI, the Action, the runner's keeper",
}
"""Names every module of a kind defines on purpose: a protocol implemented by modules."""
MAX_COMPLEXITY = 25
"""The most branches one block (a function, a method, a class's methods together) may hold, as
radon counts them: above it, a block is split into named steps."""


def _room(module: str) -> str:
    parts = module.split(".")
    return ".".join(parts[:2])


@cache
def _trees() -> dict[Path, ast.Module]:
    """Every module of the package, parsed once for all the tests of the file."""
    return {path: ast.parse(path.read_text(encoding="utf-8")) for path in sorted(ROOT.rglob("*.py"))}


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(_trees()[path]):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m == "gate" or m.startswith("gate.")}


def _module_of(path: Path) -> str:
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _room_graph() -> dict[str, frozenset[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for path in _trees():
        room = _room(_module_of(path))
        graph[room] |= {_room(m) for m in _imports(path) if _room(m) not in (room, "gate")}
    return {room: frozenset(arrows) for room, arrows in graph.items()}


def room_graph() -> dict[str, set[str]]:
    """Room -> the rooms it imports (a fresh copy: the graph is built once)."""
    graph: dict[str, set[str]] = defaultdict(set)
    graph.update({room: set(arrows) for room, arrows in _room_graph().items()})
    return graph


def _loose() -> list[str]:
    return sorted(p.name for p in ROOT.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))


def test_at_most_a_handful_of_modules_stand_loose_at_the_top() -> None:
    assert len(_loose()) <= MAX_LOOSE, _loose()


def test_no_arrow_runs_back_up_between_the_rooms() -> None:
    graph = room_graph()
    assert {"gate.checks", "gate.verdict", "gate.deliver"} <= set(graph)
    try:
        list(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as cycle:
        raise AssertionError(f"the rooms import in a loop: {' -> '.join(cycle.args[1])}") from None


def test_the_flow_runs_down_the_steps() -> None:
    # Each step imports only what stands below it in the flow (docs/architecture.md).
    flow = ["gate.deliver", "gate.pipeline", "gate.report", "gate.store", "gate.verdict", "gate.score",
            "gate.checks", "gate.load", "gate.files"]
    graph = room_graph()
    for i, step in enumerate(flow):
        above = set(flow[:i])
        assert not graph[step] & above, f"{step} imports {sorted(graph[step] & above)}, which stand above it"


def test_the_two_doors_import_each_other_not_at_all() -> None:
    graph = room_graph()
    assert "gate.commands" not in graph["gate.action"] and "gate.action" not in graph["gate.commands"]
    assert "gate.deliver" in graph["gate.action"] and "gate.deliver" in graph["gate.commands"]


def test_no_block_is_more_complex_than_the_limit() -> None:
    too_complex = sorted(
        f"{path.relative_to(ROOT.parent)}:{block.lineno} {block.fullname} ({block.complexity})"
        for path, tree in _trees().items()
        for block in cc_visit_ast(tree)  # functions, classes and their methods
        if block.complexity > MAX_COMPLEXITY
    )
    assert not too_complex, f"split into named steps (radon cc above {MAX_COMPLEXITY}): {too_complex}"


def test_no_public_name_is_defined_in_two_modules() -> None:
    defined: dict[str, list[str]] = defaultdict(list)
    for path, tree in _trees().items():
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names = [node.name]
            elif isinstance(node, ast.Assign):
                names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names = [node.target.id]
            else:
                continue
            for name in names:
                if not name.startswith("_") and name not in PROTOCOL_NAMES:
                    defined[name].append(_module_of(path))
    twice = {name: where for name, where in defined.items() if len(where) > 1}
    assert not twice, f"one name, several things: {twice}"
    # One exit-code type: the ExitCode enum of gate.exitcodes, no loose integers beside it.
    assert not [name for name in defined if name.startswith("EXIT_")]
    assert defined["ExitCode"] == ["gate.exitcodes"]


def test_the_developers_map_names_every_room_and_nothing_that_is_gone() -> None:
    text = DEVELOPING.read_text(encoding="utf-8")
    block = text[text.index("# Developing"):]
    block = block[block.index("```\ngate/\n") + 4:]
    block = block[:block.index("```")]
    named = set(re.findall(r"^  ([a-z_]+(?:\.py|/))", block, flags=re.MULTILINE))
    named |= set(re.findall(r"(?<![\w/.])([a-z_]+\.py)(?=[:;, ]|$)", block, flags=re.MULTILINE))
    rooms = {p.name + "/" for p in ROOT.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    rooms |= set(_loose())
    rooms.add("schemas/")
    missing = sorted(r for r in rooms if r not in named)
    assert not missing, f"docs/developing.md's map does not name {missing}"
    tops = set(re.findall(r"^  ([a-z_]+(?:\.py|/))", block, flags=re.MULTILINE))
    gone = sorted(r for r in tops if not (ROOT / r.rstrip("/")).exists())
    assert not gone, f"docs/developing.md's map names what is not there: {gone}"


def test_the_recorder_inside_an_agent_loads_no_judge_check_or_server() -> None:
    # `import gate.record` runs inside the agent under test: it borrows nothing from the gate's own
    # steps (the judge, the checks, the importers) nor from the replay server or the live web.
    code = ("import sys, gate.record; print(' '.join(sorted(m for m in sys.modules if m.startswith(("
            "'gate.judge.', 'gate.checks', 'gate.importers', 'gate.score', 'gate.verdict', 'gate.replay', "
            "'gate.live', 'gate.pipeline')) or m == 'gate.judge')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.split() == []
