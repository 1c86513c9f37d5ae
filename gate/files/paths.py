"""Whether a path stays below a folder: the one test behind every rooted read and write."""

from __future__ import annotations

import os
import stat

__all__ = ["is_below", "real_is_below"]


def is_below(path: str, root: str) -> bool:
    """True when ``path`` is ``root`` or below it (both made absolute; no symlink is resolved)."""
    a, r = os.path.abspath(path), os.path.abspath(root)
    return os.path.commonpath([a, r]) == r


def real_is_below(path: str, root: str) -> bool:
    """True when the real path of ``path`` (every symlink resolved) is inside the real path of ``root``.

    Most paths are ``root`` joined with the names of files and folders that exist and are not links:
    their real path is the real path of ``root`` with those names, below it by construction, which
    takes one ``lstat`` per name under ``root`` (:func:`_plainly_below`). Any other path is resolved
    whole, both sides, every symlink followed.
    """
    return _plainly_below(path, root) or is_below(os.path.realpath(path), os.path.realpath(root))


def _plainly_below(path: str, root: str) -> bool:
    """True when ``path`` is ``root`` or ``root`` followed by names that exist and are not symlinks.

    Both must be written plainly (absolute once joined to the working folder, no ``.``, ``..``,
    doubled or trailing separator), so that resolving ``path`` walks ``root`` exactly as resolving
    ``root`` does, then the names, none of which a resolution changes. False means "not shown this
    way", not "outside".
    """
    if not (os.path.isabs(path) and os.path.isabs(root)):
        cwd = os.getcwd()
        path, root = os.path.join(cwd, path), os.path.join(cwd, root)
    if os.path.normpath(path) != path or os.path.normpath(root) != root:
        return False
    if path == root:
        return True
    prefix = root if root.endswith(os.sep) else root + os.sep
    if not path.startswith(prefix):
        return False
    current = root
    for name in path[len(prefix):].split(os.sep):
        current = os.path.join(current, name)
        try:
            if stat.S_ISLNK(os.lstat(current).st_mode):
                return False
        except OSError:
            return False
    return True
