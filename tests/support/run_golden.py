"""A small golden set for ``sourcegate run`` tests: some cases of the example set, with its snapshot,
and a scripted agent (a real Python process) that does what the test's plan says for each case."""

from __future__ import annotations

import functools
import json
import os
import shutil
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from tests.support.scratch import process_folder

EXAMPLE = Path(__file__).resolve().parent.parent.parent / "cached-snapshots" / "example"
PLAN_ENV = "SCRIPTED_AGENT_PLAN"

SCRIPTED_AGENT = r'''
import json, os, socket, sys, time
from urllib.parse import urlencode, urlsplit

plan = json.loads(os.environ["SCRIPTED_AGENT_PLAN"])[os.environ["SOURCEGATE_CASE"]]
base = urlsplit(os.environ["SOURCEGATE_REPLAY_URL"])

def get(path, **params):
    # HTTP/1.1 on a plain socket: an HTTP client library would cost more to import than the whole run
    target = f"{base.path}{path}?{urlencode(params)}"
    with socket.create_connection((base.hostname, base.port), timeout=10) as conn:
        conn.sendall(f"GET {target} HTTP/1.1\r\nHost: {base.netloc}\r\nConnection: close\r\n\r\n".encode())
        response = b"".join(iter(lambda: conn.recv(65536), b""))
    head, _, body = response.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 "):
        raise SystemExit(f"not an HTTP response: {head[:80]!r}")
    return json.loads(body)

for query in plan.get("search", []):
    get("/search", provider="trace", q=query)
for url in plan.get("fetch", []):
    get("/fetch", url=url)
for url in plan.get("extract", []):
    get("/extract", url=url)
if "pid_file" in plan:
    with open(plan["pid_file"] + "." + os.environ["SOURCEGATE_CASE"], "w") as f:
        f.write(str(os.getpid()))
sys.stderr.write(plan.get("stderr", ""))
time.sleep(plan.get("sleep", 0))
if "exit" in plan:
    sys.exit(plan["exit"])
if "stdout" in plan:
    sys.stdout.write(plan["stdout"])
else:
    answer = {"answer": plan.get("answer", "")}
    if "citations" in plan:
        answer["citations"] = plan["citations"]
    print(json.dumps(answer))
'''


def make_golden(root: Path, case_ids: Sequence[str], config: Mapping[str, Any] | None = None) -> Path:
    """``root``: a golden set with these cases of the example set, its snapshot and its committed runs."""
    root.mkdir(parents=True)
    (root / "golden.yaml").write_text(_golden_yaml(tuple(case_ids)), encoding="utf-8")
    shutil.copytree(_snapshot_copy(), root / "snapshot", copy_function=_link)
    (root / "runs").mkdir()
    for case in case_ids:
        shutil.copy(EXAMPLE / "runs" / f"{case}.json", root / "runs" / f"{case}.json")
    if config is not None:
        (root / "sourcegate.yaml").write_text(yaml.safe_dump(dict(config)), encoding="utf-8")
    return root


@functools.cache
def _snapshot_copy() -> Path:
    """One copy of the example's snapshot for this process, which every golden set made here links to.

    A golden set's ``snapshot/`` holds hard links to these files: nothing is copied per test, and the
    gate writes a file by replacing it (a new file renamed over the link), never in place, so a write
    in one set reaches neither another set nor the repository's own files."""
    copy = process_folder("sourcegate-example-snapshot-") / "snapshot"
    shutil.copytree(EXAMPLE / "snapshot", copy)
    return copy


def _link(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:  # another file system (or none that links): a copy
        shutil.copy2(source, target)


@functools.cache
def _golden_yaml(case_ids: tuple[str, ...]) -> str:
    data = yaml.safe_load((EXAMPLE / "golden.yaml").read_text(encoding="utf-8"))
    data["cases"] = [c for c in data["cases"] if c["id"] in case_ids]
    return yaml.safe_dump(data, sort_keys=False)


def scripted_agent(folder: Path) -> list[str]:
    """The command that runs the scripted agent (its plan comes from ``$SCRIPTED_AGENT_PLAN``).

    The agent needs the standard library only: its interpreter skips ``site`` and the ``PYTHON*``
    variables (``-I -S``), a quarter of what starting it would cost otherwise."""
    script = folder / "scripted_agent.py"
    script.write_text(SCRIPTED_AGENT, encoding="utf-8")
    return [sys.executable, "-I", "-S", str(script)]


def committed(case: str) -> dict[str, Any]:
    """The example set's committed trace of ``case``."""
    data: dict[str, Any] = json.loads((EXAMPLE / "runs" / f"{case}.json").read_text(encoding="utf-8"))
    return data


def faithful_plan(case: str) -> dict[str, Any]:
    """What the committed run of ``case`` did, replayed: its queries, its pages, its answer and citations."""
    run = committed(case)
    pages = run["pages"]
    urls = list(pages) if isinstance(pages, dict) else [p["url"] for p in pages]  # the minimal shape: {url: text}
    plan = {"search": run.get("queries", []), "fetch": urls, "answer": run["answer"]}
    if "citations" in run:
        plan["citations"] = run["citations"]
    return plan


def as_traced(command: Sequence[str]) -> list[str]:
    """A command as a trace names it: a path inside the working folder relative to it (docs/run.md);
    the tests' interpreter and temporary files are outside it, and stay as they are."""
    here = os.getcwd() + os.sep
    return [os.path.relpath(a) if os.path.isabs(a) and a.startswith(here) else a for a in command]


def trace_of(golden: Path, case: str) -> dict[str, Any]:
    """The trace ``sourcegate run`` wrote for ``case`` into the set's ``runs/``."""
    data: dict[str, Any] = json.loads((golden / "runs" / f"{case}.json").read_text(encoding="utf-8"))
    return data


def failures_of(report: dict[str, Any], case: str) -> list[dict[str, Any]]:
    """The hard failures of ``case`` in a JSON report."""
    found = next(c for c in report["cases"] if c["id"] == case)
    failures: list[dict[str, Any]] = found["hard_failures"]
    return failures
