"""Files as a git revision has them (``gate.git.revision.show_file``), read from a real repository."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gate.errors import InputError
from gate.git import changed_files
from gate.git.objects import entry_at, read_objects
from gate.git.revision import resolve_revision, show_file
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
    assert show_file(top, commit, "golden.yaml") == "cases: []\n"  # not the working tree's
    assert show_file(top, commit, "set/baseline.json") == "{}"
    assert show_file(top, commit, "empty.json") == ""
    assert show_file(top, commit, " a name with spaces ") == "spaced\n"


def test_a_file_the_revision_lacks_is_none(base: tuple[str, str]) -> None:
    top, commit = base
    assert show_file(top, commit, "untracked.yaml") is None
    assert show_file(top, commit, "set/nope.json") is None
    assert show_file(top, commit, "nope/baseline.json") is None


def test_a_folder_reads_as_git_show_lists_it(base: tuple[str, str]) -> None:
    top, commit = base
    listing = show_file(top, commit, "set")
    assert listing is not None and listing.startswith("tree ") and "baseline.json" in listing


def test_text_that_is_not_utf8_is_an_input_error_naming_the_revision(base: tuple[str, str]) -> None:
    top, commit = base
    with pytest.raises(InputError, match=r"HEAD:latin1\.yaml.*not UTF-8 text \(invalid continuation byte"):
        show_file(top, commit, "latin1.yaml", "HEAD")


def test_a_revision_resolves_once_to_its_repository_and_commit(base: tuple[str, str]) -> None:
    top, commit = base
    revision = resolve_revision(str(Path(top) / "set"), "HEAD")
    assert (revision.top, revision.commit, revision.ref) == (str(Path(top).resolve()), commit, "HEAD")
    with pytest.raises(InputError, match="not a commit of this repository"):
        resolve_revision(top, "no-such-branch")


def test_changed_files_are_found_by_hashing_the_working_tree(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    (repo.root / "set" / "runs").mkdir(parents=True)
    for name in ("a.json", "b.json", "crlf.json", "gone.json"):
        (repo.root / "set" / "runs" / name).write_text(f"{name}\nline two\n", encoding="utf-8")
    (repo.root / "set" / "link").symlink_to("runs/a.json")
    commit = repo.commit("base")
    top = str(repo.root.resolve())
    assert changed_files(top, commit, ["set"]) == ()
    (repo.root / "set" / "runs" / "b.json").write_text("changed\n", encoding="utf-8")
    (repo.root / "set" / "runs" / "crlf.json").write_bytes(b"crlf.json\r\nline two\r\n")  # a Windows checkout
    (repo.root / "set" / "runs" / "gone.json").unlink()
    (repo.root / "set" / "link").unlink()
    (repo.root / "set" / "link").symlink_to("runs/b.json")
    (repo.root / "set" / "new" / "deep").mkdir(parents=True)
    (repo.root / "set" / "new" / "deep" / "c.json").write_text("{}", encoding="utf-8")
    assert changed_files(top, commit, ["set"]) == (
        "set/link", "set/new/deep/c.json", "set/runs/b.json", "set/runs/gone.json")
    assert changed_files(top, commit, ["set/runs/a.json", "set/nowhere"]) == ()


def test_an_object_over_the_size_limit_is_refused_before_it_is_read(base: tuple[str, str]) -> None:
    top, commit = base
    entry = entry_at(top, commit, "golden.yaml")
    assert entry is not None
    with pytest.raises(InputError, match=r"is 10 bytes, over the 4 sourcegate reads of one object"):
        read_objects(top, [entry.oid], limit=4)


def test_a_sha256_repository_reads_and_compares_the_same(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    done = subprocess.run(["git", "init", "-q", "--template=", "--object-format=sha256"], cwd=root,
                          capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip("this git cannot make a SHA-256 repository")
    repo = GitRepo(root)
    (root / "set").mkdir()
    (root / "set" / "sourcegate.yaml").write_text("judge:\n  mode: 'off'\n", encoding="utf-8")
    commit = repo.commit("base")
    assert len(commit) == 64
    revision = resolve_revision(str(root / "set"), commit)
    assert show_file(revision.top, revision.commit, "set/sourcegate.yaml") == "judge:\n  mode: 'off'\n"
    assert changed_files(revision.top, revision.commit, ["set"]) == ()
