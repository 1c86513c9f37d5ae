"""Symbolic links cannot choose what the base revision's rules are read from.

With ``--baseline-ref``, the configuration, the baseline, ``golden.yaml`` and the judge cache are read
at the base commit by their path as given (relative to the top of the repository, ``..`` removed
lexically), never by where the pull request's links point. A link the pull request put in place of a
file the base has, a link that leads out of the set, a link at the base commit and a golden set that
is itself a link are refused (exit 2). Each scenario is a real git repository (a base commit and a
pull request on top) checked through ``main(argv)``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from gate.cli import main
from gate.errors import InputError
from gate.git.revision import relative, toplevel
from tests.support.gitrepo import GitRepo
from tests.support.golden_factory import write_golden

LENIENT = 'judge:\n  mode: "off"\n'
STRICT = 'judge:\n  mode: "off"\nchecks:\n  domain_floor:\n    lookup: 5\n'
"""every case cites one domain: a floor of five fails them all"""


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> GitRepo:
    """Base: ``sets/ex`` (three clean cases) with a strict ``sourcegate.yaml``, and ``other/lenient.yaml``."""
    repo = GitRepo(tmp_path_factory.mktemp("links") / "repo")
    write_golden(repo.root / "sets" / "ex", ["a", "b", "c"])
    (repo.root / "sets" / "ex" / "sourcegate.yaml").write_text(STRICT, encoding="utf-8")
    (repo.root / "other").mkdir()
    (repo.root / "other" / "lenient.yaml").write_text(LENIENT, encoding="utf-8")
    repo.commit("base: a strict configuration")
    return repo.packed()


@pytest.fixture
def repo(template: GitRepo, tmp_path: Path) -> GitRepo:
    return template.copy(tmp_path / "repo")


def check(repo: GitRepo, *argv: str, target: str = "sets/ex", ref: str | None = "HEAD~1") -> tuple[int, dict[str, Any]]:
    """``sourcegate check TARGET --baseline-ref REF ...`` from the top of the repository: exit code, JSON report."""
    out = repo.root.parent / "report.json"
    if out.exists():
        out.unlink()
    cwd = os.getcwd()
    os.chdir(repo.root)
    try:
        code = main(["check", target, *(["--baseline-ref", ref] if ref else []), *argv, "--judge", "off",
                     "--json", str(out)])
    finally:
        os.chdir(cwd)
    return code, json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}


def relink(path: Path, target: str) -> None:
    """The pull request replaces ``path`` (a file or folder) with a symbolic link to ``target``."""
    if path.is_dir() and not path.is_symlink():
        for p in sorted(path.rglob("*"), reverse=True):
            p.rmdir() if p.is_dir() else p.unlink()
        path.rmdir()
    elif path.exists() or path.is_symlink():
        path.unlink()
    path.symlink_to(target)


def refused(capsys: pytest.CaptureFixture[str], *words: str) -> None:
    err = capsys.readouterr().err
    assert all(w in err for w in words), err


def test_the_base_configuration_decides(repo: GitRepo) -> None:
    code, report = check(repo, ref="HEAD")
    assert code == 1 and report["config"] == "HEAD:sets/ex/sourcegate.yaml"
    # The same spelled with a '..' that does not pass through a link reads the same file.
    assert check(repo, target="other/../sets/ex", ref="HEAD")[0] == 1


def test_a_config_replaced_by_a_dangling_link_is_refused(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    relink(repo.root / "sets" / "ex" / "sourcegate.yaml", "nowhere.yaml")
    repo.commit("pr: the configuration is a link to nothing")
    code, _ = check(repo)
    assert code == 2
    refused(capsys, "sets/ex/sourcegate.yaml is a symbolic link in the working tree",
            "the base revision HEAD~1 has a file", "may not replace it with a link")


def test_a_config_replaced_by_a_link_inside_the_set_is_refused(repo: GitRepo,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    (repo.root / "sets" / "ex" / "lenient.yaml").write_text(LENIENT, encoding="utf-8")
    relink(repo.root / "sets" / "ex" / "sourcegate.yaml", "lenient.yaml")
    repo.commit("pr: the configuration is a link to a lenient one")
    assert check(repo)[0] == 2
    refused(capsys, "sets/ex/sourcegate.yaml is a symbolic link in the working tree")


def test_a_config_file_replaced_by_a_link_to_a_file_the_base_has_is_refused(
        repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    (repo.root / ".github").mkdir()
    (repo.root / ".github" / "sourcegate.yaml").write_text(STRICT, encoding="utf-8")
    repo.commit("base: the configuration in .github")
    assert check(repo, "--config", ".github/sourcegate.yaml", ref="HEAD")[0] == 1
    relink(repo.root / ".github" / "sourcegate.yaml", "../other/lenient.yaml")
    repo.commit("pr: the configuration is a link to a lenient file of the base")
    assert check(repo, "--config", ".github/sourcegate.yaml")[0] == 2
    refused(capsys, ".github/sourcegate.yaml is a symbolic link in the working tree", "has a file")
    # A folder above it turned into a link is refused the same way.
    relink(repo.root / ".github" / "sourcegate.yaml", "../other/lenient.yaml")
    (repo.root / ".github" / "sourcegate.yaml").unlink()
    (repo.root / ".github").rmdir()
    (repo.root / "github-elsewhere").mkdir()
    (repo.root / "github-elsewhere" / "sourcegate.yaml").write_text(LENIENT, encoding="utf-8")
    (repo.root / ".github").symlink_to("github-elsewhere")
    assert check(repo, "--config", ".github/sourcegate.yaml")[0] == 2
    refused(capsys, ".github is a symbolic link in the working tree", "has a folder")


def test_a_baseline_replaced_by_a_link_to_an_older_report_is_refused(
        repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    ex = repo.root / "sets" / "ex"
    # An older report of the same set in which case b already failed, kept outside the set.
    write_golden(ex, ["a", "b", "c"], bad=["b"])
    assert main(["baseline", "update", str(ex), "--force", "--judge", "off"]) == 0
    os.replace(ex / "baseline.json", repo.root / "other" / "old-report.json")
    # Base: a clean baseline, and only new failures block.
    write_golden(ex, ["a", "b", "c"])
    assert main(["baseline", "update", str(ex), "--judge", "off"]) == 0
    (ex / "sourcegate.yaml").write_text(LENIENT + "compare:\n  block_on: new\n", encoding="utf-8")
    repo.commit("base: a clean baseline, an old report elsewhere")
    # The pull request breaks case b: against the base's baseline that failure is new.
    write_golden(ex, ["a", "b", "c"], bad=["b"])
    (ex / "sourcegate.yaml").write_text(LENIENT + "compare:\n  block_on: new\n", encoding="utf-8")
    repo.commit("pr: break case b")
    code, report = check(repo)
    assert code == 1 and report["comparison"]["baseline"]["file"] == "sets/ex/baseline.json"
    # Its baseline.json, a link to the old report, would make the failure look old.
    relink(ex / "baseline.json", "../../other/old-report.json")
    repo.commit("pr: the baseline is a link to an old report")
    assert check(repo)[0] == 2
    refused(capsys, "sets/ex/baseline.json is a symbolic link in the working tree", "has a file")
    assert check(repo, ref=None)[0] == 2  # without a revision the link out of the set is refused too
    refused(capsys, "baseline.json")


def test_a_new_link_out_of_the_set_is_refused(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    # The base has no baseline.json: a link the pull request adds that leads out of the set is refused.
    (repo.root / "other" / "old-report.json").write_text("{}", encoding="utf-8")
    (repo.root / "sets" / "ex" / "baseline.json").symlink_to("../../other/old-report.json")
    repo.commit("pr: a baseline that is a link out of the set")
    assert check(repo)[0] == 2
    refused(capsys, "sets/ex/baseline.json is a symbolic link in the working tree that leads out of the golden set")


def test_a_new_link_inside_the_set_where_the_base_has_nothing_reads_nothing_at_the_base(repo: GitRepo) -> None:
    (repo.root / "sets" / "ex" / "configs").mkdir()
    (repo.root / "sets" / "ex" / "configs" / "gate.yaml").write_text(LENIENT, encoding="utf-8")
    (repo.root / "sets" / "ex" / "gate.yaml").symlink_to("configs/gate.yaml")
    repo.commit("pr: a configuration link of its own")
    code, report = check(repo, "--config", "sets/ex/gate.yaml")
    assert code == 2  # the base has no such file: as for any --config file it lacks
    code, report = check(repo, "--config", "sets/ex/gate.yaml", "--trust-config")
    assert code == 0 and report["config"] == "sets/ex/gate.yaml"


def test_a_golden_set_that_is_a_link_is_refused(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    write_golden(repo.root / "sets" / "new", ["a", "b", "c"])
    (repo.root / "sets" / "new" / "sourcegate.yaml").unlink()
    relink(repo.root / "sets" / "ex", "new")
    repo.commit("pr: the set is a link to a new folder")
    assert check(repo)[0] == 2
    refused(capsys, "sets/ex: the golden set folder is a symbolic link")
    assert check(repo, target="sets/ex/")[0] == 2
    # A link to a set outside the repository is refused the same way, before git is asked about it.
    outside = write_golden(repo.root.parent / "outside", ["a", "b", "c"])
    relink(repo.root / "sets" / "ex", str(outside))
    assert check(repo)[0] == 2
    refused(capsys, "sets/ex: the golden set folder is a symbolic link")


def test_a_folder_above_the_set_that_is_a_link_is_refused(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    os.rename(repo.root / "sets", repo.root / "moved")
    write_golden(repo.root / "fresh" / "ex", ["a", "b", "c"])
    (repo.root / "sets").symlink_to("fresh")
    repo.commit("pr: the sets folder is a link to a new folder")
    assert check(repo)[0] == 2
    refused(capsys, "sets is a symbolic link in the working tree", "the folders above it")


def test_a_dotdot_after_a_link_is_refused(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    # sets/jump/../ex is sets/ex by its spelling, but elsewhere/ex through the link.
    write_golden(repo.root / "elsewhere" / "ex", ["a", "b", "c"])
    (repo.root / "elsewhere" / "ex" / "sourcegate.yaml").write_text(LENIENT, encoding="utf-8")
    (repo.root / "elsewhere" / "deep").mkdir()
    (repo.root / "sets" / "jump").symlink_to("../elsewhere/deep")
    repo.commit("pr: a link to jump through")
    assert check(repo, target="sets/jump/../ex")[0] == 2
    refused(capsys, "leads elsewhere than sets/ex through a symbolic link")


def test_a_link_at_the_base_revision_is_refused(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    ex = repo.root / "sets" / "ex"
    os.replace(ex / "sourcegate.yaml", ex / "strict.yaml")
    (ex / "sourcegate.yaml").symlink_to("strict.yaml")
    repo.commit("base: the configuration is a link")
    assert check(repo, ref="HEAD")[0] == 2
    refused(capsys, "sets/ex/sourcegate.yaml is a symbolic link at the base revision HEAD", "never through a link")


def test_a_link_above_the_repository_is_the_users_own(repo: GitRepo, tmp_path: Path) -> None:
    (tmp_path / "via").symlink_to(repo.root)
    out = tmp_path / "r.json"
    code = main(["check", str(tmp_path / "via" / "sets" / "ex"), "--baseline-ref", "HEAD", "--judge", "off",
                 "--json", str(out)])
    assert code == 1
    assert json.loads(out.read_text(encoding="utf-8"))["config"] == "HEAD:sets/ex/sourcegate.yaml"


def test_relative_is_lexical(repo: GitRepo, tmp_path: Path) -> None:
    top = toplevel(str(repo.root))
    (repo.root / "sets" / "ln").symlink_to("../other")
    assert relative(top, str(repo.root / "sets" / "ln" / "lenient.yaml")) == "sets/ln/lenient.yaml"
    assert relative(top, str(repo.root / "sets" / "ln" / ".." / "ex")) == "sets/ex"
    assert relative(top, str(repo.root)) == "."
    with pytest.raises(InputError, match="outside the git repository"):
        relative(top, str(repo.root / ".." / "elsewhere"))


def test_a_folder_that_is_a_link_at_the_base_revision_is_refused(repo: GitRepo,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    (repo.root / "conf").mkdir()
    (repo.root / "conf" / "sourcegate.yaml").write_text(STRICT, encoding="utf-8")
    (repo.root / ".github").symlink_to("conf")
    repo.commit("base: .github is a link")
    assert check(repo, "--config", ".github/sourcegate.yaml", ref="HEAD")[0] == 2
    refused(capsys, ".github is a symbolic link at the base revision HEAD")


def test_a_judge_cache_replaced_by_a_link_is_refused(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    (repo.root / "sets" / "ex" / "judgements").mkdir()
    (repo.root / "sets" / "ex" / "judgements" / "README.md").write_text("The judge cache.\n", encoding="utf-8")
    repo.commit("base: a judge cache")
    (repo.root / "sets" / "ex" / "cache").mkdir()
    relink(repo.root / "sets" / "ex" / "judgements", "cache")
    (repo.root / "sets" / "ex" / "cache" / "README.md").write_text("elsewhere\n", encoding="utf-8")
    repo.commit("pr: the judge cache is a link")
    assert check(repo)[0] == 2
    refused(capsys, "sets/ex/judgements is a symbolic link in the working tree", "has a folder")
