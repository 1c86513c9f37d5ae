"""Git is read as data: what an agent plants in ``.git`` changes nothing the gate reads at the base.

Each test is the attack as a hostile pull request would make it. A real repository: the example set
at the base commit, with its rules written out (``sourcegate.yaml``, FAIL with 16 hard failures),
and a pull-request commit on top whose ``sourcegate.yaml`` disables every check. ``sourcegate run``
starts a real agent process that attacks the repository (a replace ref, planted configuration and
hooks, an alternate object store, a rewritten object, a moved ref, a nested ``.git``), then
``sourcegate check --baseline-ref BASE`` runs as the gate step would. The verdict stays the base's
(FAIL, exit 1), or the changed base is refused (exit 2) with a message that says so; nothing the
agent planted runs (a trap writes a marker file when it does, and plain git fires it, to show it
was armed).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from gate.checks import CHECKS
from gate.cli import main
from tests.support.gitrepo import GIT_CONFIG, GitRepo

EXAMPLE = Path(__file__).resolve().parent.parent / "cached-snapshots" / "example"
SET = "cached-snapshots/example"
ATTACKER = "who-physical-activity-adults"
"""The case whose agent attacks the repository during ``sourcegate run``."""
STRICT = {"checks": {"disabled": []}}
LENIENT = {"checks": {"disabled": sorted(CHECKS)}}
HOOKS = ("pre-commit", "post-checkout", "post-commit", "post-merge", "post-index-change", "reference-transaction",
         "pre-auto-gc", "post-rewrite", "fsmonitor-watchman", "push-to-checkout", "pre-push")

AGENT = r'''
import json, os, shutil, subprocess, sys, zlib

# what to do is in attack.json beside this file (not in the environment, which is sourcegate run's to give)
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "attack.json")) as f:
    plan = json.load(f)
repo, attack, trap, base, set_dir = plan["repo"], plan["attack"], plan["trap"], plan["base"], plan["set"]
quiet = {**{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
         "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}


def git(*args):
    done = subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True, env=quiet)
    return done.stdout.strip()


def loose(oid):
    return os.path.join(repo, ".git", "objects", oid[:2], oid[2:])


def forged(content):
    """A loose object file that holds ``content`` (which does not hash to the name it is given)."""
    return zlib.compress(b"blob %d\0" % len(content) + content)


def attack_repository():
    config_blob = git("rev-parse", f"{base}:{set_dir}/sourcegate.yaml")
    pr_blob = git("rev-parse", f"HEAD:{set_dir}/sourcegate.yaml")
    lenient = subprocess.run(["git", "cat-file", "blob", pr_blob], cwd=repo, check=True, capture_output=True,
                             env=quiet).stdout
    if attack == "replace":
        git("replace", "-f", config_blob, pr_blob)
        git("replace", "-f", base, "HEAD")  # the whole base commit, too
        os.makedirs(os.path.join(repo, ".git", "info"), exist_ok=True)
        with open(os.path.join(repo, ".git", "info", "grafts"), "w") as f:
            f.write(f"{base}\n")
    elif attack == "config":
        for key in ("core.fsmonitor", "diff.external", "core.pager", "core.sshCommand", "core.askPass",
                    "credential.helper", "gpg.program", "core.editor", "core.alternateRefsCommand",
                    "uploadpack.packObjectsHook", "filter.evil.clean", "filter.evil.smudge", "filter.evil.process",
                    "diff.evil.textconv", "diff.evil.command", "sequence.editor"):
            git("config", key, trap)
        git("config", "filter.evil.required", "true")
        git("config", "core.untrackedCache", "true")
        git("config", "core.worktree", os.path.join(repo, set_dir))  # a top that makes paths read elsewhere
        hooks = os.path.join(repo, "planted-hooks")
        os.makedirs(hooks, exist_ok=True)
        for name in plan["hooks"]:
            for folder in (hooks, os.path.join(repo, ".git", "hooks")):
                os.makedirs(folder, exist_ok=True)
                shutil.copy(trap, os.path.join(folder, name))
        git("config", "core.hooksPath", hooks)
        with open(os.path.join(repo, set_dir, ".gitattributes"), "w") as f:
            f.write("* filter=evil diff=evil\n")
    elif attack == "lazy-fetch":
        # a partial clone whose promisor remote is a command: a missing object would be fetched by running it
        git("config", "core.repositoryFormatVersion", "1")
        git("config", "extensions.partialClone", "evil")
        git("config", "remote.evil.url", f"ext::{trap} %S")
        git("config", "remote.evil.promisor", "true")
        git("config", "protocol.allow", "always")
        git("config", "protocol.ext.allow", "always")
        os.remove(loose(config_blob))
    elif attack == "alternates":
        # the object store moved to a folder of the agent's, read through objects/info/alternates
        store = os.path.join(repo, "..", "moved-objects")
        objects = os.path.join(repo, ".git", "objects")
        shutil.copytree(objects, store, ignore=shutil.ignore_patterns("info"))
        for name in os.listdir(objects):
            if len(name) == 2:
                shutil.rmtree(os.path.join(objects, name))
        with open(os.path.join(objects, "info", "alternates"), "w") as f:
            f.write(os.path.abspath(store) + "\n")
        if plan.get("forge"):
            path = os.path.join(store, config_blob[:2], config_blob[2:])
            os.chmod(path, 0o644)
            with open(path, "wb") as f:
                f.write(forged(lenient))
    elif attack == "rewrite":
        path = loose(config_blob)
        os.chmod(path, 0o644)
        with open(path, "wb") as f:
            f.write(forged(lenient))
    elif attack == "refs":
        git("update-ref", "refs/heads/main", "HEAD")
        git("update-ref", f"refs/heads/{base}", "HEAD")  # a branch named like the base commit
        git("update-ref", f"refs/tags/{base}", "HEAD")
    elif attack == "nested":
        # a repository of the agent's in the golden set's folder, with the real objects: the set's rules
        # would be read at its top, where the base has none
        nested = os.path.join(repo, set_dir, ".git")
        os.makedirs(os.path.join(nested, "objects", "info"))
        os.makedirs(os.path.join(nested, "refs", "heads"))
        with open(os.path.join(nested, "HEAD"), "w") as f:
            f.write("ref: refs/heads/main\n")
        with open(os.path.join(nested, "objects", "info", "alternates"), "w") as f:
            f.write(os.path.join(repo, ".git", "objects") + "\n")
    else:
        sys.exit(f"unknown attack {attack}")


try:  # the first agent to start attacks; every agent answers
    fd = os.open(plan["done"], os.O_CREAT | os.O_EXCL | os.O_WRONLY)
except FileExistsError:
    pass
else:
    os.close(fd)
    attack_repository()
print(json.dumps({"answer": "Nothing to see here."}))
'''


def _yaml(data: dict[str, Any]) -> str:
    return yaml.safe_dump(data, sort_keys=True)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[GitRepo, str]:
    """The repository, built once: the base commit (strict rules) and the pull request (every check off)."""
    repo = GitRepo(tmp_path_factory.mktemp("git-as-data") / "repo")
    shutil.copytree(EXAMPLE, repo.root / SET)
    (repo.root / SET / "sourcegate.yaml").write_text(_yaml(STRICT), encoding="utf-8")
    base = repo.commit("base: the example set, its rules written out")
    (repo.root / SET / "sourcegate.yaml").write_text(_yaml(LENIENT), encoding="utf-8")
    repo.commit("pull request: every check disabled")
    return repo, base


@pytest.fixture
def repo(built: tuple[GitRepo, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    """A copy of the repository of its own, the working folder at its top (as the gate step runs)."""
    copy = built[0].copy(tmp_path / "repo")
    monkeypatch.chdir(copy.root)
    return copy


def _trap(tmp_path: Path) -> tuple[Path, Path]:
    """A program that appends how it was called to a marker file: (the program, the marker)."""
    marker = tmp_path / "ran.txt"
    trap = tmp_path / "trap.sh"
    trap.write_text(f'#!/bin/sh\necho "$0 $*" >> "{marker}"\ncat >/dev/null 2>&1 </dev/null\nexit 0\n',
                    encoding="utf-8")
    trap.chmod(trap.stat().st_mode | stat.S_IXUSR)
    return trap, marker


def _attack(repo: GitRepo, base: str, tmp_path: Path, attack: str, *, forge: bool = False) -> Path:
    """``sourcegate run`` the example set with the attacking agent (its traces go elsewhere); the marker file."""
    trap, marker = _trap(tmp_path)
    agent = tmp_path / "agent" / "agent.py"
    agent.parent.mkdir()
    agent.write_text(AGENT, encoding="utf-8")
    plan = {"repo": str(repo.root), "attack": attack, "trap": str(trap), "base": base, "set": SET,
            "hooks": HOOKS, "done": str(tmp_path / "attacked"), "forge": forge}
    (agent.parent / "attack.json").write_text(json.dumps(plan), encoding="utf-8")
    # one case's agent is the attacker: the other cases' agents would only answer
    assert main(["run", SET, "--out", str(tmp_path / "traces"), "--case", ATTACKER, "--",
                 sys.executable, "-I", "-S", str(agent)]) == 0
    assert (tmp_path / "attacked").exists()
    return marker


def _check(tmp_path: Path, ref: str) -> tuple[int, dict[str, Any] | None]:
    out = tmp_path / "report.json"
    code = main(["check", SET, "--baseline-ref", ref, "--json", str(out), "-q"])
    return code, json.loads(out.read_text(encoding="utf-8")) if out.exists() else None


def _assert_the_base_decides(code: int, report: dict[str, Any] | None) -> None:
    assert report is not None and code == 1 and report["verdict"] == "fail"
    assert sum(len(c["hard_failures"]) for c in report["cases"]) == 16
    weakened = [c for c in report["config_changes"] if c["effect"] == "weakening"]
    # the PR's rules, seen as the PR's: every check it disables is a weakening
    assert {c["setting"] for c in weakened} == {f"checks.disabled.{check}" for check in CHECKS}


def _plain_git(repo: GitRepo, *args: str) -> subprocess.CompletedProcess[str]:
    """git as a user runs it (the repository's own configuration in force), for the controls."""
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    return subprocess.run(["git", *GIT_CONFIG, *args], cwd=repo.root, capture_output=True, text=True, env=env,
                          check=False)


def test_before_any_attack_the_base_rules_fail_the_set(repo: GitRepo, built: tuple[GitRepo, str],
                                                       tmp_path: Path) -> None:
    _assert_the_base_decides(*_check(tmp_path, built[1]))


def test_a_replace_ref_does_not_make_the_pull_request_s_rules_the_base_s(
        repo: GitRepo, built: tuple[GitRepo, str], tmp_path: Path) -> None:
    base = built[1]
    _attack(repo, base, tmp_path, "replace")
    # armed: git, as anyone runs it, now reads the pull request's rules at the base
    assert _plain_git(repo, "show", f"{base}:{SET}/sourcegate.yaml").stdout == _yaml(LENIENT)
    _assert_the_base_decides(*_check(tmp_path, base))


def test_configuration_and_hooks_planted_in_git_never_run(
        repo: GitRepo, built: tuple[GitRepo, str], tmp_path: Path) -> None:
    base = built[1]
    marker = _attack(repo, base, tmp_path, "config")
    _assert_the_base_decides(*_check(tmp_path, base))
    assert not marker.exists(), marker.read_text(encoding="utf-8")
    # armed: a plain `git status` runs the planted file-system monitor (and the hooks path's programs)
    _plain_git(repo, "-c", "core.worktree=" + str(repo.root), "status")
    assert marker.exists()


def test_a_partial_clone_cannot_fetch_a_missing_base_object_through_a_command(
        repo: GitRepo, built: tuple[GitRepo, str], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    base = built[1]
    marker = _attack(repo, base, tmp_path, "lazy-fetch")
    code, report = _check(tmp_path, base)
    assert code == 2 and report is None
    assert "the repository lacks the file" in capsys.readouterr().err
    assert not marker.exists(), marker.read_text(encoding="utf-8")
    _plain_git(repo, "cat-file", "-p", f"{base}:{SET}/sourcegate.yaml")  # armed: git fetches by running it
    assert marker.exists()


def test_an_alternate_object_store_with_the_real_objects_reads_the_same(
        repo: GitRepo, built: tuple[GitRepo, str], tmp_path: Path) -> None:
    base = built[1]
    _attack(repo, base, tmp_path, "alternates")
    _assert_the_base_decides(*_check(tmp_path, base))


@pytest.mark.parametrize("attack", ["alternates", "rewrite"])
def test_an_object_that_does_not_hash_to_its_id_is_refused(
        repo: GitRepo, built: tuple[GitRepo, str], tmp_path: Path,
        capsys: pytest.CaptureFixture[str], attack: str) -> None:
    base = built[1]
    _attack(repo, base, tmp_path, attack, forge=True)
    # armed: git reads the forged object as the base's file
    assert _plain_git(repo, "show", f"{base}:{SET}/sourcegate.yaml").stdout == _yaml(LENIENT)
    code, report = _check(tmp_path, base)
    assert code == 2 and report is None
    err = capsys.readouterr().err
    assert "does not hash to its id: the repository's objects were changed" in err


def test_moved_refs_do_not_move_a_base_given_by_its_commit_id(
        repo: GitRepo, built: tuple[GitRepo, str], tmp_path: Path) -> None:
    base = built[1]
    _attack(repo, base, tmp_path, "refs")
    _assert_the_base_decides(*_check(tmp_path, base))
    # A name is resolved by the refs, which whoever writes .git moves: that is why the action passes the
    # event's base commit id, never a branch name.
    code, report = _check(tmp_path, "main")
    assert code == 0 and report is not None and report["verdict"] == "pass"


def test_a_git_folder_planted_in_the_golden_set_is_refused(
        repo: GitRepo, built: tuple[GitRepo, str], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    base = built[1]
    _attack(repo, base, tmp_path, "nested")
    code, report = _check(tmp_path, base)
    assert code == 2 and report is None
    assert "in a git repository of its own" in capsys.readouterr().err


def test_git_runs_only_read_commands_with_nothing_of_the_repository_that_runs_a_program() -> None:
    from gate.git.command import argv, environment

    line = argv("cat-file", "--batch")
    assert line[:3] == ["git", "--no-pager", "--no-replace-objects"]
    for key in ("core.fsmonitor=false", "core.hooksPath=" + os.devnull, "protocol.allow=never", "safe.directory=*"):
        assert key in line
    with pytest.raises(ValueError, match="only the git commands"):
        argv("diff", "--name-only")
    os.environ["GIT_EXTERNAL_DIFF"] = "/bin/false"
    try:
        env = environment()
    finally:
        del os.environ["GIT_EXTERNAL_DIFF"]
    assert "GIT_EXTERNAL_DIFF" not in env and env["GIT_NO_REPLACE_OBJECTS"] == "1"
    assert env["GIT_CONFIG_GLOBAL"] == os.devnull and env["GIT_ALLOW_PROTOCOL"] == ""
