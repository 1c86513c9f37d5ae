"""What a fresh ``python`` process has loaded once it imported the CLI: the modules, and ``-X importtime``.

The process starts the way the action does (``import gate.action``) and keeps what that alone loaded.

Tests that pin what importing the CLI must *not* load (an SDK, OpenTelemetry, the live recorder, an
importer, jsonschema) share one such process instead of starting one each. The process then stays,
its imports done, and :meth:`FreshImport.run` runs code the way ``python -c CODE ARGS`` would, each
time in a process forked from it: what a command loads from there (a judge's SDK on a replay run, say)
shows in that process alone, and no test pays for another interpreter and another import of the CLI.
The process ends when the test run does (its stdin closes).
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Everything the CLI's start-up touches: the package face, the CLI and its parser, the judge's
#: package and session (which must not load a provider's SDK) and the action's inputs.
PROBE = ("import json, sys, gate, gate.cli, gate.judge, gate.judge.session, gate.judge.providers, "
         "gate.action.inputs, gate.report.json; gate.CHECKS; gate.cli.build_parser(); "
         "print(json.dumps(sorted(sys.modules)))")

#: Run first: what importing the action's package alone loads, before :data:`PROBE` imports the rest.
ACTION_PROBE = "import sys, gate.action; ACTION_MODULES = sorted(sys.modules); "


#: The hash seed of the fresh process (and of what it forks): never the one this process was started with.
HASH_SEED = "2" if os.environ.get("PYTHONHASHSEED") == "1" else "1"

END_OF_PROBE = "-- end of the probe --\n"
"""What the fresh process writes to stderr after the probe: ``-X importtime`` wrote the rest."""

# After the probe: one request a line on stdin (JSON), one process forked for each, its exit code a line
# on stdout. The forked process takes the request's files as stdout and stderr, its environment and
# folder, and runs the code as `python -c` runs it (the atexit functions included).
SERVE = ACTION_PROBE + PROBE + "; print(json.dumps(ACTION_MODULES))" + (
    f"\nsys.stderr.write({END_OF_PROBE!r}); sys.stderr.flush()\n") + """
import atexit, os, traceback
for line in sys.stdin:
    request = json.loads(line)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            for target, (name, flags) in enumerate([(os.devnull, os.O_RDONLY), (request["stdout"], os.O_WRONLY),
                                                    (request["stderr"], os.O_WRONLY)]):
                os.dup2(os.open(name, flags), target)
            os.chdir(request["cwd"])
            os.environ.clear()
            os.environ.update(request["env"])
            sys.argv = ["-c", *request["args"]]
            try:
                exec(compile(request["code"], "<string>", "exec"), {"__name__": "__main__"})
                code = 0
            except SystemExit as e:
                if e.code is None or isinstance(e.code, int):
                    code = e.code or 0
                else:
                    print(e.code, file=sys.stderr)
            except BaseException:
                traceback.print_exc()
            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    print(os.waitstatus_to_exitcode(status), flush=True)
"""


class _Server:
    """The fresh process, kept after the probe to fork from."""

    def __init__(self, process: subprocess.Popen[str]) -> None:
        self.process = process
        atexit.register(self.close)

    def run(self, code: str, args: list[str], env: Mapping[str, str]) -> subprocess.CompletedProcess[str]:
        process = self.process
        assert process.stdin is not None and process.stdout is not None
        with tempfile.TemporaryDirectory(prefix="fresh-") as folder:
            out, err = Path(folder, "stdout"), Path(folder, "stderr")
            out.touch()
            err.touch()
            request = {"code": code, "args": args, "env": dict(env), "cwd": str(ROOT),
                       "stdout": str(out), "stderr": str(err)}
            process.stdin.write(json.dumps(request) + "\n")
            process.stdin.flush()
            answer = process.stdout.readline()
            if not answer:
                raise RuntimeError("the fresh process ended before it ran the code")
            return subprocess.CompletedProcess(["python", "-c", code, *args], int(answer),
                                               out.read_text(encoding="utf-8"), err.read_text(encoding="utf-8"))

    def close(self) -> None:
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()
        self.process.wait(timeout=30)


@dataclass(frozen=True)
class FreshImport:
    """The modules loaded by :data:`PROBE` in a fresh process, and what ``-X importtime`` wrote."""

    modules: frozenset[str]
    importtime: str
    action_modules: frozenset[str] = frozenset()
    """What ``import gate.action`` had loaded, first thing in that process."""
    server: _Server | None = field(default=None, compare=False, repr=False)

    def loaded(self, *prefixes: str) -> list[str]:
        """The loaded modules whose names start with one of ``prefixes``, sorted."""
        return sorted(m for m in self.modules if m.startswith(prefixes))

    def run(self, code: str, *args: str, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        """Run ``code`` as ``python -c CODE ARGS`` would (in the repository, with ``env`` or this process's
        environment), in a process forked from the fresh one: its imports done, its hash seed
        :data:`HASH_SEED`, and ``-X importtime`` writing to the forked process's stderr."""
        if self.server is None:
            raise RuntimeError("this FreshImport has no process to fork from")
        return self.server.run(code, list(args), os.environ if env is None else env)


def fresh_import() -> FreshImport:
    """Run :data:`ACTION_PROBE`, then :data:`PROBE`, in a new interpreter, which stays to fork from
    (:meth:`FreshImport.run`)."""
    process = subprocess.Popen([sys.executable, "-X", "importtime", "-c", SERVE], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                               env={**os.environ, "PYTHONHASHSEED": HASH_SEED})
    assert process.stdout is not None and process.stderr is not None
    importtime = []
    for line in process.stderr:  # first: -X importtime fills the pipe before the probe prints its modules
        if line == END_OF_PROBE:
            break
        importtime.append(line)
    modules, action_modules = process.stdout.readline(), process.stdout.readline()
    if not action_modules:
        process.communicate(timeout=30)
        raise RuntimeError(f"the probe failed: {''.join(importtime)}")
    return FreshImport(frozenset(json.loads(modules)), "".join(importtime), frozenset(json.loads(action_modules)),
                       _Server(process))
