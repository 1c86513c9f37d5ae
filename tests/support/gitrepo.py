"""A real git repository in a temporary folder, committed step by step: a base commit, then a PR commit.

A repository built once can be copied whole (:meth:`GitRepo.copy`) for each test that writes to it:
a copy costs a folder copy, not a run of ``git add`` and ``git commit`` over every file again. A
repository is made without git's template (no sample hooks), so a copy has only the files that matter.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

GIT_CONFIG = ("-c", "user.name=Test", "-c", "user.email=test@example.invalid", "-c", "init.defaultBranch=main",
              "-c", "commit.gpgsign=false")


class GitRepo:
    """``repo.commit("base")`` records the folder as it is and returns the commit id."""

    def __init__(self, root: Path) -> None:
        """Create (or reuse) a repository at ``root``."""
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        if not (root / ".git").exists():
            self.git("init", "-q", "--template=")

    def git(self, *args: str) -> str:
        """Run git in the repository (no global or system configuration) and return its output."""
        env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
        done = subprocess.run(["git", *GIT_CONFIG, *args], cwd=self.root, capture_output=True, text=True,
                              check=True, env=env)
        return done.stdout.strip()

    def commit(self, message: str) -> str:
        """Commit everything in the folder; the new commit's id."""
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.git("rev-parse", "HEAD")

    def packed(self) -> GitRepo:
        """This repository with its objects in one pack (a copy then has a few files to copy, not one per object)."""
        self.git("repack", "-a", "-d", "-q")
        self.git("prune-packed")
        return self

    def copy(self, root: Path) -> GitRepo:
        """A copy of this repository (history, index and working tree) at ``root``, which must not exist."""
        shutil.copytree(self.root, root, symlinks=True)
        return GitRepo(root)
