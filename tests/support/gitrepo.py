"""A real git repository in a temporary folder, committed step by step: a base commit, then a PR commit."""

from __future__ import annotations

import os
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
            self.git("init", "-q")

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
