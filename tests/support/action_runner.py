"""A simulated GitHub Actions runner for the action's tests, and the golden sets they gate.

:class:`Runner` builds what the runner gives a container action: ``INPUT_*`` variables for every
input (defaults included, named as the runner names them), ``GITHUB_OUTPUT`` and
``GITHUB_STEP_SUMMARY`` files, ``GITHUB_EVENT_PATH`` pointing at a real ``pull_request`` webhook
payload (octokit/webhooks), and ``GITHUB_API_URL`` pointing at the loopback fake GitHub of
``tests/support/github_server.py``. The workspace is a real git repository, so the PR's base commit
exists as it does after a ``fetch-depth: 0`` checkout, and ``git config --global`` writes to a file
of the test. The ``runner`` fixture (``tests/conftest.py``) gives one per test.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from gate import action
from tests.support.github_server import DEFAULT_TOKEN, FakeGitHub
from tests.support.scratch import process_folder

ROOT = Path(__file__).resolve().parent.parent.parent
PAYLOADS = ROOT / "tests" / "fixtures" / "github"
REPO = "Codertocat/Hello-World"
PR_NUMBER = 2


# --------------------------------------------------------------------------------------------
# Golden sets and runs


def _trace(case: str, cited: Sequence[str]) -> dict[str, Any]:
    """A recorded run about Jupiter's moons that cites ``cited`` (two good sources were read)."""
    nasa, wiki = "https://science.nasa.gov/jupiter/moons/", "https://en.wikipedia.org/wiki/Moons_of_Jupiter"
    links = ", ".join(f"[source {i + 1}]({url})" for i, url in enumerate(cited))
    return {
        "format": "sourcegate-trace/1",
        "case": case,
        "question": "How many moons does Jupiter have?",
        "started_at": "2026-03-01T12:00:00Z",
        "queries": ["jupiter number of moons"],
        "results": [
            {"query": 0, "position": 1, "title": "Jupiter Moons", "url": nasa,
             "snippet": "Jupiter has 95 officially recognized moons."},
            {"query": 0, "position": 2, "title": "Moons of Jupiter", "url": wiki,
             "snippet": "There are 95 moons of Jupiter with confirmed orbits."},
            {"query": 0, "position": 3, "title": "Jupiter",
             "url": "https://www.britannica.com/place/Jupiter-planet",
             "snippet": "Jupiter, the fifth planet from the Sun."},
        ],
        "pages": [
            {"url": nasa, "status": 200,
             "text": "Jupiter has 95 moons that are officially recognized by the International "
                     "Astronomical Union."},
            {"url": wiki, "status": 200,
             "text": "There are 95 moons of Jupiter with confirmed orbits as of 5 February 2024."},
        ],
        "answer": f"Jupiter has 95 officially recognised moons ({links}).",
    }


GOOD = ("https://science.nasa.gov/jupiter/moons/", "https://en.wikipedia.org/wiki/Moons_of_Jupiter")
FABRICATED = "https://nasa.example.gov/jupiter-moons-2026"


def write_set(ws: Path, name: str, runs: dict[str, Sequence[str]]) -> str:
    """A golden set ``cached-snapshots/<name>`` with one case per run; returns its relative path."""
    root = ws / "cached-snapshots" / name
    (root / "runs").mkdir(parents=True)
    cases = "".join(f"  - {{id: {case}, question: 'How many moons does Jupiter have?'}}\n" for case in runs)
    (root / "golden.yaml").write_text(f"version: 1\nname: {name}\ncases:\n{cases}", encoding="utf-8")
    for case, cited in runs.items():
        run_file = root / "runs" / f"{case}.json"
        run_file.write_text(json.dumps(_trace(case, cited), indent=1), encoding="utf-8")
    return f"cached-snapshots/{name}"


# --------------------------------------------------------------------------------------------
# The simulated runner


class Runner:
    """A workspace, the files GitHub provides, and the environment of one action step."""

    def __init__(self, tmp_path: Path, server: FakeGitHub) -> None:
        self.tmp = tmp_path
        self.server = server
        self.ws = tmp_path / "workspace"
        self.ws.mkdir()
        self.gitconfig = tmp_path / "home" / ".gitconfig"
        self.gitconfig.parent.mkdir()
        self.output = tmp_path / "file_commands" / "set_output"
        self.summary = tmp_path / "file_commands" / "step_summary"
        self.output.parent.mkdir()
        self.output.touch()
        self.summary.touch()

    @property
    def git_env(self) -> dict[str, str]:
        return {"HOME": str(self.gitconfig.parent), "GIT_CONFIG_GLOBAL": str(self.gitconfig),
                "GIT_CONFIG_NOSYSTEM": "1"}

    def git(self, *args: str) -> str:
        done = subprocess.run(["git", *args], cwd=self.ws, check=True, capture_output=True, text=True,
                              env={**os.environ, **self.git_env})
        return done.stdout.strip()

    def commit(self) -> str:
        """Commit the workspace as it is; return the commit (the PR's base in these tests).

        The first commit of a workspace whose files an earlier test committed already is that
        test's repository, copied (:func:`_first_commits`): git reads the copy as it would its own."""
        first = not (self.ws / ".git").exists()
        key = _content_key(self.ws) if first else None
        made = _first_commits().get(key) if key is not None else None
        if made is not None:
            shutil.copytree(made[0], self.ws / ".git", symlinks=True)
            return made[1]
        if first:
            self.git("init", "-q")
        self.git("add", "-A")
        self.git("-c", "user.name=t", "-c", "user.email=t@example.com",
                 "commit", "-q", "--allow-empty", "-m", "base")
        head = self._head()
        if key is not None:
            kept = Path(tempfile.mkdtemp(prefix="first-commit-", dir=process_folder("action-runner-"))) / ".git"
            shutil.copytree(self.ws / ".git", kept, symlinks=True)
            _first_commits()[key] = (kept, head)
        return head

    def _head(self) -> str:
        """The commit HEAD names, read from the repository's files (``git rev-parse HEAD`` when packed)."""
        git = self.ws / ".git"
        head = (git / "HEAD").read_text(encoding="utf-8").strip()
        ref = git / head.removeprefix("ref: ") if head.startswith("ref: ") else None
        if ref is None:
            return head  # a detached HEAD holds the commit itself
        return ref.read_text(encoding="utf-8").strip() if ref.is_file() else self.git("rev-parse", "HEAD")

    def event(self, base_sha: str, *, fork: bool = False, name: str = "pull_request.opened.json") -> Path:
        """The real webhook payload with its base commit set to ``base_sha`` (and a fork head)."""
        payload = json.loads((PAYLOADS / name).read_text(encoding="utf-8"))
        payload = copy.deepcopy(payload)
        payload["pull_request"]["base"]["sha"] = base_sha
        if fork:
            head_repo = payload["pull_request"]["head"]["repo"]
            head_repo["full_name"] = "forker/Hello-World"
            head_repo["fork"] = True
        path = self.tmp / "event.json"
        path.write_text(json.dumps(payload), encoding="utf-8")
        return path

    def env(self, event: Path | None, **inputs: str) -> dict[str, str]:
        """The step's environment: every declared input (defaults as the runner fills them in)."""
        env = dict(_input_defaults())
        env[action.input_env_name("github-token")] = DEFAULT_TOKEN
        env.update({action.input_env_name(k.replace("_", "-")): v for k, v in inputs.items()})
        env.update(self.git_env)
        env.update({
            "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": str(self.ws),
            "GITHUB_OUTPUT": str(self.output),
            "GITHUB_STEP_SUMMARY": str(self.summary),
            "GITHUB_REPOSITORY": REPO,
            "GITHUB_API_URL": self.server.base_url,
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_EVENT_NAME": "pull_request" if event else "push",
        })
        if event is not None:
            env["GITHUB_EVENT_PATH"] = str(event)
        return env

    def outputs(self) -> dict[str, str]:
        """Parse ``GITHUB_OUTPUT`` (``name<<DELIM`` blocks) the way the runner does."""
        lines = self.output.read_text(encoding="utf-8").split("\n")
        out: dict[str, str] = {}
        i = 0
        while i < len(lines) and lines[i]:
            name, delim = lines[i].split("<<", 1)
            end = lines.index(delim, i + 1)
            out[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
        return out


def run(env: dict[str, str], gate: action.Gate | None = None) -> int:
    """Run the action in-process with ``env`` as the step's environment; ``gate`` stands in for the
    gate (None: the real one)."""
    return action.main(env, []) if gate is None else action.main(env, [], gate=gate)


def annotations(log: str, kind: str = "error") -> list[str]:
    """The workflow-command annotations of ``kind`` in ``log``, one line each."""
    return [line for line in log.splitlines() if line.startswith(f"::{kind} ")]


def _content_key(folder: Path) -> str:
    """What git would commit of ``folder``: every path with its kind and content (a link's target)."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if ".git" not in p.relative_to(folder).parts[:1]):
        rel = path.relative_to(folder).as_posix().encode()
        if path.is_symlink():
            digest.update(b"link\0" + rel + b"\0" + os.readlink(path).encode() + b"\0")
        elif path.is_file():
            executable = b"x" if path.stat().st_mode & 0o111 else b"-"
            digest.update(b"file\0" + rel + b"\0" + executable + hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


@cache
def _first_commits() -> dict[str, tuple[Path, str]]:
    """Content key -> (a copy of the ``.git`` folder of that first commit, the commit), in this process."""
    return {}


@cache
def _input_defaults() -> Mapping[str, str]:
    """Every input ``action.yml`` declares, as the runner passes it, with its default (read once)."""
    metadata = yaml.load((ROOT / "action.yml").read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
    return {action.input_env_name(k): str(v.get("default", "")) for k, v in metadata["inputs"].items()}
