"""The sub-commands of ``sourcegate``: one module each, registered in :data:`COMMANDS`.

Each module has ``add_parser(subparsers)`` and ``run(args) -> int`` (:class:`Command`); adding a
command is one module plus one line here. The command line builds its parser from this registry.
"""

from __future__ import annotations

from types import MappingProxyType

from gate.commands import baseline, check, comment, drift, import_, init, merge, run, snapshot
from gate.commands.base import Command, Parser

__all__ = ["COMMANDS", "Command", "Parser"]

COMMANDS: MappingProxyType[str, Command] = MappingProxyType({
    "check": check,
    "baseline": baseline,
    "comment": comment,
    "snapshot": snapshot,
    "import": import_,
    "init": init,
    "run": run,
    "merge": merge,
    "drift": drift,
})
"""Sub-command name -> its module, in the order ``sourcegate --help`` lists them."""
