"""What a fresh ``python`` process has loaded once it imported the CLI: the modules, and ``-X importtime``.

The process starts the way the action does (``import gate.action``) and keeps what that alone loaded.

Tests that pin what importing the CLI must *not* load (an SDK, OpenTelemetry, the live recorder, an
importer, jsonschema) share one such process instead of starting one each.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Everything the CLI's start-up touches: the package face, the CLI and its parser, the judge's
#: package and session (which must not load a provider's SDK) and the action's inputs.
PROBE = ("import json, sys, gate, gate.cli, gate.judge, gate.judge.session, gate.judge.providers, "
         "gate.action.inputs, gate.report.json; gate.CHECKS; gate.cli.build_parser(); "
         "print(json.dumps(sorted(sys.modules)))")


#: Run first: what importing the action's package alone loads, before :data:`PROBE` imports the rest.
ACTION_PROBE = "import sys, gate.action; ACTION_MODULES = sorted(sys.modules); "


@dataclass(frozen=True)
class FreshImport:
    """The modules loaded by :data:`PROBE` in a fresh process, and what ``-X importtime`` wrote."""

    modules: frozenset[str]
    importtime: str
    action_modules: frozenset[str] = frozenset()
    """What ``import gate.action`` had loaded, first thing in that process."""

    def loaded(self, *prefixes: str) -> list[str]:
        """The loaded modules whose names start with one of ``prefixes``, sorted."""
        return sorted(m for m in self.modules if m.startswith(prefixes))


def fresh_import() -> FreshImport:
    """Run :data:`ACTION_PROBE`, then :data:`PROBE`, in a new interpreter."""
    code = ACTION_PROBE + PROBE + "; print(json.dumps(ACTION_MODULES))"
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True,
                          check=True, cwd=ROOT)
    modules, action_modules = done.stdout.splitlines()
    return FreshImport(frozenset(json.loads(modules)), done.stderr, frozenset(json.loads(action_modules)))
