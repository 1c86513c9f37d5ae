"""One example at the end of every command's help (argparse ``epilog``), kept in one table.

:func:`add_examples` walks the finished parser and gives each command the example listed here under
its name (``"snapshot build"``); a test keeps every command's help under a screen and ending with
its example, so a new command without one fails there.
"""

from __future__ import annotations

import argparse

__all__ = ["EXAMPLES", "ExampleFormatter", "add_examples", "subparsers"]

EXAMPLES = {
    "": "sourcegate check cached-snapshots/example",
    "check": "sourcegate check cached-snapshots/example --json report.json --junit junit.xml",
    "baseline": "sourcegate baseline update cached-snapshots/example",
    "baseline update": "sourcegate baseline update cached-snapshots/example --judge replay",
    "comment": "sourcegate comment report.json --output -",
    "snapshot": "sourcegate snapshot verify cached-snapshots/example",
    "snapshot build": "sourcegate snapshot build cached-snapshots/example",
    "snapshot verify": "sourcegate snapshot verify cached-snapshots/example --provider tavily",
    "snapshot serve": "sourcegate snapshot serve cached-snapshots/example --port 8787",
    "snapshot record": "sourcegate snapshot record cached-snapshots/mine --port 8750",
    "import": "sourcegate import anthropic runs/q7.json --out my-set/runs --question \"...\"",
    "init": "sourcegate init my-set --from-runs traces/",
    "run": "sourcegate run cached-snapshots/example --check -- python examples/agent/agent.py",
    "merge": "sourcegate merge cached-snapshots/example shard-*.json --json report.json",
    "drift": "sourcegate drift cached-snapshots/example --json drift.json --markdown drift.md",
}
"""The example of each command, by its name after ``sourcegate`` (the empty name: the main help)."""


class ExampleFormatter(argparse.HelpFormatter):
    """argparse's formatter, but the example is kept as written (a command line must not be re-wrapped)."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if text.startswith("example:\n"):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


def subparsers(parser: argparse.ArgumentParser, name: str = "") -> dict[str, argparse.ArgumentParser]:
    """Every parser under ``parser`` (itself included), by command name."""
    found = {name: parser}
    for action in parser._actions:  # argparse keeps sub-commands only here
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                found.update(subparsers(sub, f"{name} {sub_name}".strip()))
    return found


def add_examples(parser: argparse.ArgumentParser) -> None:
    """Set each command's epilog to its example, kept as written (no re-wrapping)."""
    for name, p in subparsers(parser).items():
        example = EXAMPLES.get(name)
        if example is not None:
            p.epilog = f"example:\n  {example}"
            p.formatter_class = ExampleFormatter
