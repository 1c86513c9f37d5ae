"""``real_is_below`` answers as resolving both paths whole does, links in, out and up included."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from gate.files.paths import is_below, real_is_below

NAMES = ["a", "b", "c", "f", "out", "in", "up", "cl", "x", "y", "..", ".", "", "nope", "alink"]


def _resolved_whole(path: str, root: str) -> bool:
    return is_below(os.path.realpath(path), os.path.realpath(root))


@pytest.fixture()
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Folders and files, with links that stay in ``a``, leave it, climb out of it, and point at it."""
    for folder in ["a/b/c", "a/c", "x/y"]:
        (tmp_path / folder).mkdir(parents=True)
    for file in ["a/f", "a/b/f", "a/b/c/f", "x/f", "x/y/f"]:
        (tmp_path / file).touch()
    (tmp_path / "a/out").symlink_to(tmp_path / "x")
    (tmp_path / "a/in").symlink_to("b")
    (tmp_path / "a/b/up").symlink_to("../../x/y")
    (tmp_path / "a/b/cl").symlink_to("c")
    (tmp_path / "alink").symlink_to(tmp_path / "a")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_every_path_gets_the_answer_of_resolving_it_whole(tree: Path) -> None:
    rng = random.Random(7)
    starts = ["", f"{tree}/", "./", f"{tree}//", "/"]

    def path() -> str:
        return rng.choice(starts) + "/".join(rng.choice(NAMES) for _ in range(rng.randint(0, 5)))

    below = 0
    for _ in range(800):
        p, r = path(), path()
        if r:
            expected = _resolved_whole(p, r)
            assert real_is_below(p, r) is expected, (p, r)
            below += expected
    assert below > 80  # the draw reaches the paths below their root, not only the others


@pytest.mark.parametrize(("path", "root", "expected"), [
    ("a/b/c/f", "a", True),
    ("a/out/f", "a", False),         # a link out of the root
    ("a/in/f", "a", True),           # a link that stays inside
    ("a/b/up/f", "a", False),        # a relative link that climbs out
    ("a/b/up/f", "x", True),         # ... and lands below x
    ("alink/b/f", "a", True),        # a link to the root itself
    ("a/b/../../x/f", "a", False),   # .. resolved after the links, not by the letters
    ("a/nope/deeper", "a", True),    # what does not exist yet (an output about to be written)
    ("a", "a", True),
])
def test_links_and_dots_are_resolved_as_the_system_does(tree: Path, path: str, root: str, expected: bool) -> None:
    assert real_is_below(path, root) is expected
    assert real_is_below(str(tree / path), str(tree / root)) is expected
    assert _resolved_whole(path, root) is expected
