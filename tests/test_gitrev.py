"""Files as a git revision has them (``gate.gitrev.show``), read from a real repository."""

from __future__ import annotations

from pathlib import Path

import pytest

from gate.errors import InputError
from gate.gitrev import resolve, show
from tests.support.gitrepo import GitRepo


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """A commit with a text file, an empty file, a name with spaces, a folder and a file that is not UTF-8."""
    repo = GitRepo(tmp_path_factory.mktemp("gitrev") / "repo")
    (repo.root / "golden.yaml").write_text("cases: []\n", encoding="utf-8")
    (repo.root / "empty.json").write_bytes(b"")
    (repo.root / " a name with spaces ").write_text("spaced\n", encoding="utf-8")
    (repo.root / "set").mkdir()
    (repo.root / "set" / "baseline.json").write_text("{}", encoding="utf-8")
    (repo.root / "latin1.yaml").write_bytes(b"caf\xe9\n")
    commit = repo.commit("base")
    (repo.root / "golden.yaml").write_text("changed after the commit\n", encoding="utf-8")
    (repo.root / "untracked.yaml").write_text("not committed\n", encoding="utf-8")
    return str(repo.root), commit


def test_a_file_reads_as_the_revision_has_it(base: tuple[str, str]) -> None:
    top, commit = base
    assert show(top, commit, "golden.yaml") == "cases: []\n"  # not the working tree's
    assert show(top, commit, "set/baseline.json") == "{}"
    assert show(top, commit, "empty.json") == ""
    assert show(top, commit, " a name with spaces ") == "spaced\n"


def test_a_file_the_revision_lacks_is_none(base: tuple[str, str]) -> None:
    top, commit = base
    assert show(top, commit, "untracked.yaml") is None
    assert show(top, commit, "set/nope.json") is None
    assert show(top, commit, "nope/baseline.json") is None


def test_a_folder_reads_as_git_show_lists_it(base: tuple[str, str]) -> None:
    top, commit = base
    listing = show(top, commit, "set")
    assert listing is not None and listing.startswith("tree ") and "baseline.json" in listing


def test_text_that_is_not_utf8_is_an_input_error_naming_the_revision(base: tuple[str, str]) -> None:
    top, commit = base
    with pytest.raises(InputError, match=r"HEAD:latin1\.yaml.*not UTF-8 text \(invalid continuation byte"):
        show(top, commit, "latin1.yaml", "HEAD")


def test_a_revision_resolves_once_to_its_repository_and_commit(base: tuple[str, str]) -> None:
    top, commit = base
    revision = resolve(str(Path(top) / "set"), "HEAD")
    assert (revision.top, revision.commit, revision.ref) == (str(Path(top).resolve()), commit, "HEAD")
    with pytest.raises(InputError, match="not a commit of this repository"):
        resolve(top, "no-such-branch")
