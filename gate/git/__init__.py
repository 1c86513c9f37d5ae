"""Git read as data: the one place git runs (:mod:`gate.git.command`), objects checked by hash
(:mod:`gate.git.objects`), and the working tree compared with a commit without git
(:mod:`gate.git.worktree`). :mod:`gate.git.revision` reads the base revision through it."""

from gate.git.command import GIT_TIMEOUT, git
from gate.git.objects import Entry, commit_of, entry_at, object_id, read_blob, read_trees, walk
from gate.git.worktree import changed_files

__all__ = ["GIT_TIMEOUT", "Entry", "changed_files", "commit_of", "entry_at", "git", "object_id", "read_blob",
           "read_trees", "walk"]
